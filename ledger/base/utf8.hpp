#pragma once
// Text from clients that reaches the store must be well-formed UTF-8: PostgreSQL rejects anything
// else with an error, which would turn client input into a server failure.
#include <cstddef>
#include <string>
#include <string_view>

namespace corridor {

// Well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF.
bool is_valid_utf8(std::string_view text);

// The first `bytes_max` bytes of `text`, every byte but printable ASCII, line feed and tab made
// '?': an excerpt of a remote answer that any column stores (PostgreSQL TEXT refuses NUL bytes
// and malformed UTF-8) and any client can show.
std::string printable_excerpt(std::string_view text, std::size_t bytes_max);

}  // namespace corridor
