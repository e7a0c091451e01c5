// GET /2025-10-13/openapi.json: the OpenAPI document of the interface (api/openapi.json), built
// into the binary so that an installed corridor serves the contract of its own version. Public:
// a client reads the contract before it has credentials.
#include <string>
#include <string_view>

#include "server/api/app.hpp"
#include "server/api/openapi_document.hpp"
#include "server/api/router.hpp"

namespace corridor {
namespace {

// A strong validator: the document's SHA-256, computed at configure time.
std::string entity_tag() {
    return "\"" + std::string(openapi_document_sha256()) + "\"";
}

// If-None-Match is a list of tags (or "*"); weak tags compare by their opaque part.
bool matches_any(std::string_view header, std::string_view tag) {
    while (!header.empty()) {
        auto comma = header.find(',');
        std::string_view item = header.substr(0, comma);
        while (!item.empty() && (item.front() == ' ' || item.front() == '\t'))
            item.remove_prefix(1);
        while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
        if (item.starts_with("W/")) item.remove_prefix(2);
        if (item == "*" || item == tag) return true;
        if (comma == std::string_view::npos) break;
        header.remove_prefix(comma + 1);
    }
    return false;
}

http_response openapi_document(request_context& context) {
    static const std::string tag = entity_tag();
    http_response response;
    response.headers.emplace_back("ETag", tag);
    response.headers.emplace_back("Cache-Control", "no-cache");
    auto given = context.request.header("if-none-match");
    if (given && matches_any(*given, tag)) {
        response.status = 304;
        response.content_type.clear();
        return response;
    }
    response.body = std::string(openapi_document_json());
    return response;
}

}  // namespace

void register_openapi_routes(router& routes) {
    routes.add({.method = http_method::get,
                .pattern = versioned("/openapi.json"),
                .who = access::public_route,
                .needs_database = false,
                .handler = openapi_document});
}

}  // namespace corridor
