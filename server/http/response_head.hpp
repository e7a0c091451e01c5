#pragma once
// The status line and header fields of a response, written as plain bytes in front of its body.
// No Asio or Beast in this header.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace corridor {

struct http_response;

// The fields of one response head, reused by a session from one response to the next.
using head_fields = std::vector<std::pair<std::string_view, std::string_view>>;

// Replaces `out` with the head of `response`: Content-Type, Cache-Control: no-store, X-Request-Id,
// the handler's headers, Connection: close without keep-alive, Content-Length. The few responses
// the plain writer leaves to Beast go through a Beast message, whose body is moved back into
// `response.body`.
void write_response_head(std::string& out, head_fields& fields, http_response& response,
                         std::string_view request_id, bool keep_alive);

}  // namespace corridor
