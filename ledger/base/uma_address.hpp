#pragma once
// UMA addresses are "$user@domain". The user part is a-z 0-9 - _ . + (case-insensitive, stored lower
// case), the whole address at most 64 characters including the "$". The domain is a DNS name or an
// IP literal, optionally with a port (127.0.0.1:8080 serves local tests and private networks).
#include <optional>
#include <string>
#include <string_view>

namespace corridor {

struct uma_address {
    std::string user;    // lower case
    std::string domain;  // lower case
    std::string text() const { return "$" + user + "@" + domain; }
};

std::optional<uma_address> parse_uma_address(std::string_view text);
// The domain in its one normalised spelling when valid: lower case, IPv6 literals in RFC 5952
// form, ports without leading zeros.
std::optional<std::string> normalize_uma_domain(std::string_view text);

constexpr std::size_t uma_address_chars_max = 64;

}  // namespace corridor
