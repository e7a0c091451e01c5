#pragma once
// Bech32 (BIP-173) and bech32m (BIP-350) strings: a human-readable part, the separator '1', 5-bit
// data words and a six-character checksum. Lightning invoices use bech32 with no length limit;
// Spark addresses use bech32m with a limit of 1024.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../formats/result.hpp"

namespace corridor::lightning {

enum class bech32_variant { bech32, bech32m };

struct bech32_data {
    std::string hrp;                  // always lower case
    std::vector<std::uint8_t> words;  // 5-bit values, checksum removed
    bech32_variant variant = bech32_variant::bech32;
};

inline constexpr std::size_t bip173_length_max = 90;

// Lower-case output. The caller keeps hrp within 1..83 printable ASCII characters.
std::string bech32_encode(std::string_view hrp, const std::vector<std::uint8_t>& words,
                          bech32_variant variant);

// Accepts all-lower or all-upper input; refuses mixed case, characters outside 33..126, a missing
// separator, an empty hrp, fewer than six checksum characters, a length above length_max, and a
// checksum that matches neither variant.
formats::outcome<bech32_data> bech32_decode(std::string_view text, std::size_t length_max);

// Regroups bits (8->5 with pad = true, 5->8 with pad = false). With pad = false, leftover bits
// must be fewer than from_bits and zero, as BIP-173 requires for witness programs.
formats::outcome<std::vector<std::uint8_t>> convert_bits(const std::uint8_t* data, std::size_t size,
                                                         int from_bits, int to_bits, bool pad);

// 5->8 regrouping that drops leftover bits whatever their value: BOLT #11 field data is zero-padded
// to a multiple of 5 bits and its readers take the whole bytes.
std::vector<std::uint8_t> words_to_bytes_truncating(const std::uint8_t* words, std::size_t count);

std::vector<std::uint8_t> bytes_to_words(const std::uint8_t* data, std::size_t size);

}  // namespace corridor::lightning
