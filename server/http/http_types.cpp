#include "server/http/http_types.hpp"

namespace corridor {

std::string_view to_string(http_method method) {
    switch (method) {
        case http_method::get: return "GET";
        case http_method::post: return "POST";
        case http_method::patch: return "PATCH";
        case http_method::put: return "PUT";
        case http_method::delete_: return "DELETE";
        case http_method::head: return "HEAD";
        case http_method::options: return "OPTIONS";
        case http_method::other: return "OTHER";
    }
    return "OTHER";
}

}  // namespace corridor
