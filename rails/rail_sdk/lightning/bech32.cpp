#include "rails/rail_sdk/lightning/bech32.hpp"

#include <array>

#include "rails/rail_sdk/formats/text.hpp"

namespace corridor::lightning {
namespace {

constexpr char charset[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
constexpr std::uint32_t bech32_constant = 1;
constexpr std::uint32_t bech32m_constant = 0x2bc830a3;

std::uint32_t polymod(const std::vector<std::uint8_t>& values) {
    static constexpr std::uint32_t generator[] = {0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd,
                                                  0x2a1462b3};
    std::uint32_t checksum = 1;
    for (std::uint8_t value : values) {
        std::uint32_t top = checksum >> 25;
        checksum = ((checksum & 0x1ffffff) << 5) ^ value;
        for (int i = 0; i < 5; ++i)
            if ((top >> i) & 1) checksum ^= generator[i];
    }
    return checksum;
}

std::vector<std::uint8_t> expand_hrp(std::string_view hrp) {
    std::vector<std::uint8_t> out;
    out.reserve(hrp.size() * 2 + 1);
    for (char c : hrp) out.push_back(static_cast<std::uint8_t>(c) >> 5);
    out.push_back(0);
    for (char c : hrp) out.push_back(static_cast<std::uint8_t>(c) & 31);
    return out;
}

int charset_index(char c) {
    for (int i = 0; i < 32; ++i)
        if (charset[i] == c) return i;
    return -1;
}

}  // namespace

std::string bech32_encode(std::string_view hrp, const std::vector<std::uint8_t>& words,
                          bech32_variant variant) {
    std::string lower_hrp = formats::lower(hrp);
    std::vector<std::uint8_t> values = expand_hrp(lower_hrp);
    values.insert(values.end(), words.begin(), words.end());
    values.insert(values.end(), 6, 0);
    std::uint32_t constant = variant == bech32_variant::bech32 ? bech32_constant : bech32m_constant;
    std::uint32_t checksum = polymod(values) ^ constant;

    std::string out = lower_hrp;
    out.reserve(lower_hrp.size() + 1 + words.size() + 6);
    out.push_back('1');
    for (std::uint8_t word : words) out.push_back(charset[word & 31]);
    for (int i = 0; i < 6; ++i) out.push_back(charset[(checksum >> (5 * (5 - i))) & 31]);
    return out;
}

formats::outcome<bech32_data> bech32_decode(std::string_view text, std::size_t length_max) {
    using formats::make_error;
    if (text.size() > length_max)
        return make_error("too_long", "the string has " + std::to_string(text.size()) +
                                          " characters, more than the limit of " +
                                          std::to_string(length_max));
    bool has_lower = false, has_upper = false;
    for (char c : text) {
        auto code = static_cast<unsigned char>(c);
        if (code < 33 || code > 126)
            return make_error("bad_character", "the string has a character outside ASCII 33-126");
        has_lower = has_lower || formats::is_lower(c);
        has_upper = has_upper || formats::is_upper(c);
    }
    if (has_lower && has_upper)
        return make_error("mixed_case", "the string mixes upper and lower case");
    std::size_t separator = text.rfind('1');
    if (separator == std::string_view::npos)
        return make_error("no_separator", "the string has no separator '1'");
    if (separator == 0) return make_error("empty_hrp", "the human-readable part is empty");
    if (text.size() - separator - 1 < 6)
        return make_error("too_short", "the data part is shorter than its 6-character checksum");

    bech32_data out;
    out.hrp = formats::lower(text.substr(0, separator));
    std::vector<std::uint8_t> values = expand_hrp(out.hrp);
    for (std::size_t i = separator + 1; i < text.size(); ++i) {
        int index = charset_index(formats::to_lower(text[i]));
        if (index < 0)
            return make_error(
                "bad_character",
                std::string("the data part has a character outside the bech32 set: ") + text[i]);
        values.push_back(static_cast<std::uint8_t>(index));
    }
    std::uint32_t residue = polymod(values);
    if (residue == bech32_constant) {
        out.variant = bech32_variant::bech32;
    } else if (residue == bech32m_constant) {
        out.variant = bech32_variant::bech32m;
    } else {
        return make_error("bad_checksum", "the bech32 checksum is wrong");
    }
    std::size_t hrp_values = out.hrp.size() * 2 + 1;
    out.words.assign(values.begin() + static_cast<std::ptrdiff_t>(hrp_values), values.end() - 6);
    return out;
}

formats::outcome<std::vector<std::uint8_t>> convert_bits(const std::uint8_t* data, std::size_t size,
                                                         int from_bits, int to_bits, bool pad) {
    std::uint32_t accumulator = 0;
    int bits = 0;
    const std::uint32_t max_value = (1u << to_bits) - 1;
    std::vector<std::uint8_t> out;
    out.reserve(size * static_cast<std::size_t>(from_bits) / static_cast<std::size_t>(to_bits) + 1);
    for (std::size_t i = 0; i < size; ++i) {
        if ((data[i] >> from_bits) != 0)
            return formats::make_error("bad_value", "a value does not fit in its bit width");
        accumulator = (accumulator << from_bits) | data[i];
        bits += from_bits;
        while (bits >= to_bits) {
            bits -= to_bits;
            out.push_back(static_cast<std::uint8_t>((accumulator >> bits) & max_value));
        }
        accumulator &= (1u << bits) - 1;
    }
    if (pad) {
        if (bits > 0)
            out.push_back(static_cast<std::uint8_t>((accumulator << (to_bits - bits)) & max_value));
    } else if (bits >= from_bits || ((accumulator << (to_bits - bits)) & max_value) != 0) {
        return formats::make_error("bad_padding", "the data has non-zero or excess padding bits");
    }
    return out;
}

std::vector<std::uint8_t> words_to_bytes_truncating(const std::uint8_t* words, std::size_t count) {
    std::vector<std::uint8_t> out;
    out.reserve(count * 5 / 8);
    std::uint32_t accumulator = 0;
    int bits = 0;
    for (std::size_t i = 0; i < count; ++i) {
        accumulator = (accumulator << 5) | (words[i] & 31);
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<std::uint8_t>((accumulator >> bits) & 0xff));
        }
        accumulator &= (1u << bits) - 1;
    }
    return out;
}

std::vector<std::uint8_t> bytes_to_words(const std::uint8_t* data, std::size_t size) {
    return convert_bits(data, size, 8, 5, true).value();
}

}  // namespace corridor::lightning
