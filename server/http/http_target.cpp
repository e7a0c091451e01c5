#include "server/http/http_target.hpp"

#include <boost/url/parse.hpp>

namespace corridor {

std::optional<http_target> parse_http_target(std::string_view url, std::string& problem) {
    auto parsed = boost::urls::parse_absolute_uri(url);
    if (!parsed) {
        problem = "is not an absolute URL";
        return std::nullopt;
    }
    http_target out;
    if (parsed->scheme() == "https") {
        out.tls = true;
    } else if (parsed->scheme() != "http") {
        problem = "must be http or https";
        return std::nullopt;
    }
    out.host = std::string(parsed->host_address());
    if (out.host.empty()) {
        problem = "has no host";
        return std::nullopt;
    }
    out.port = parsed->has_port() ? std::string(parsed->port()) : (out.tls ? "443" : "80");
    out.path = std::string(parsed->encoded_path());
    if (out.path.empty()) out.path = "/";
    if (parsed->has_query()) out.path += "?" + std::string(parsed->encoded_query());
    return out;
}

std::string host_header(const http_target& target) {
    bool ipv6 = target.host.find(':') != std::string::npos;
    std::string host = ipv6 ? "[" + target.host + "]" : target.host;
    bool default_port = target.port == (target.tls ? "443" : "80");
    return default_port ? host : host + ":" + target.port;
}

}  // namespace corridor
