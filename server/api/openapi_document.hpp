#pragma once
// The OpenAPI document (api/openapi.json), embedded at configure time.
#include <string_view>

namespace corridor {

class router;
void register_openapi_routes(router& routes);  // GET /{version}/openapi.json

std::string_view openapi_document_json();
std::string_view openapi_document_sha256();  // hex, lower case

}  // namespace corridor
