#pragma once
// Internal to the validation of account details (account_details.cpp, account_identifiers.cpp,
// beneficiary_details.cpp): the character and string helpers they share. ASCII only, as the
// identifiers they read are.
#include <algorithm>
#include <string>
#include <string_view>

namespace corridor::details_parsing {

// The 32 characters of bech32 data, in the order of their 5-bit values (BIP-173).
inline constexpr std::string_view bech32_charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

inline bool all_digits(std::string_view text) {
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}
inline bool is_upper_alnum(char c) {
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
}
inline bool is_lower_alnum(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z');
}
inline std::string to_upper(std::string text) {
    for (auto& c : text) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c;
    return text;
}
inline std::string to_lower(std::string text) {
    for (auto& c : text) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
    return text;
}
inline std::string without(std::string_view text, std::string_view drop) {
    std::string out;
    for (char c : text) {
        if (drop.find(c) == std::string_view::npos) out.push_back(c);
    }
    return out;
}

}  // namespace corridor::details_parsing
