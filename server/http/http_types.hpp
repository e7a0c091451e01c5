#pragma once
// The request and response as the API layer sees them. Deliberately free of Beast and Asio, so that
// routing, auth and handlers compile fast and are tested without sockets.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace corridor {

enum class http_method { get, post, patch, put, delete_, head, options, other };

std::string_view to_string(http_method method);

struct http_request {
    http_method method = http_method::get;
    std::string target;  // path and query as received
    std::string body;
    // For routes that stream their body to disk: the file holding it (the body string stays empty).
    // The transport deletes it after the response.
    std::string body_file;
    // Header names lower case. Only the headers the API reads are copied in.
    std::vector<std::pair<std::string, std::string>> headers;
    std::string request_id;
    std::string remote_address;

    std::optional<std::string_view> header(std::string_view lower_name) const {
        for (const auto& [name, value] : headers) {
            if (name == lower_name) return value;
        }
        return std::nullopt;
    }
};

struct http_response {
    int status = 200;
    std::string body;
    std::string content_type = "application/json";
    std::vector<std::pair<std::string, std::string>> headers;
    // Filled by the dispatcher for logs and metrics; never sent.
    int route_index = -1;
    std::string client_id;
    bool database_failed = false;  // the session that served it may be broken
    bool contention = false;       // the failure was a deadlock or serialization conflict
};

}  // namespace corridor
