#pragma once
// Text from clients that reaches the store must be well-formed UTF-8: PostgreSQL rejects anything
// else with an error, which would turn client input into a server failure.
#include <string_view>

namespace corridor {

// Well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF.
bool is_valid_utf8(std::string_view text);

}  // namespace corridor
