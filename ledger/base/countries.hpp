#pragma once
#include <string_view>

namespace corridor {
// An assigned ISO 3166-1 alpha-2 country code.
bool is_country_code(std::string_view code);
}  // namespace corridor
