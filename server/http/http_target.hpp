#pragma once
// Where an outbound HTTP(S) request goes, read from its URL. Shared by the two outbound clients
// (webhooks, UMA), which send the same request line and Host header for the same URL.
#include <optional>
#include <string>
#include <string_view>

namespace corridor {

struct http_target {
    bool tls = false;
    std::string host;  // percent-decoded, without the brackets of an IPv6 literal
    std::string port;  // the URL's, else the scheme's default
    std::string path;  // path and query as encoded in the URL, "/" when empty
};

// nullopt with `problem` set ("is not an absolute URL" — a fragment included —, "must be http or
// https", "has no host") when the URL is not one a request can be sent to.
std::optional<http_target> parse_http_target(std::string_view url, std::string& problem);

// The Host header: brackets around an IPv6 literal, and the port unless it is the scheme's default.
std::string host_header(const http_target& target);

}  // namespace corridor
