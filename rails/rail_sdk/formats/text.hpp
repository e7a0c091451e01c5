#pragma once
// Small ASCII utilities shared by the rail format libraries (header-only, no locale).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace corridor::formats {

inline bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
inline bool is_upper(char c) {
    return c >= 'A' && c <= 'Z';
}
inline bool is_lower(char c) {
    return c >= 'a' && c <= 'z';
}
inline bool is_alnum(char c) {
    return is_digit(c) || is_upper(c) || is_lower(c);
}
inline char to_lower(char c) {
    return is_upper(c) ? static_cast<char>(c - 'A' + 'a') : c;
}
inline char to_upper(char c) {
    return is_lower(c) ? static_cast<char>(c - 'a' + 'A') : c;
}

// The sandbox failure pattern an identifier ends in: '2' to '5' for 002 to 005, else 0 (README,
// Sandbox failure patterns). Shared by the rails that honour them and the host that makes
// sandbox invoices, which must not end in one by chance.
inline char sandbox_failure_pattern(std::string_view identifier) {
    if (identifier.size() < 3) return 0;
    std::string_view tail = identifier.substr(identifier.size() - 3);
    if (tail == "002" || tail == "003" || tail == "004" || tail == "005") return tail[2];
    return 0;
}

inline bool all_digits(std::string_view text) {
    if (text.empty()) return false;
    for (char c : text)
        if (!is_digit(c)) return false;
    return true;
}

inline std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = to_lower(c);
    return out;
}

inline std::string hex_encode(const std::uint8_t* data, std::size_t size) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(size * 2);
    for (std::size_t i = 0; i < size; ++i) {
        out.push_back(digits[data[i] >> 4]);
        out.push_back(digits[data[i] & 0x0f]);
    }
    return out;
}

template <class Bytes>
std::string hex_encode(const Bytes& bytes) {
    return hex_encode(bytes.data(), bytes.size());
}

// Empty result and false when the text is not an even-length hex string.
inline bool hex_decode(std::string_view text, std::vector<std::uint8_t>& out) {
    auto nibble = [](char c) -> int {
        if (is_digit(c)) return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    out.clear();
    if (text.size() % 2 != 0) return false;
    out.reserve(text.size() / 2);
    for (std::size_t i = 0; i < text.size(); i += 2) {
        int high = nibble(text[i]);
        int low = nibble(text[i + 1]);
        if (high < 0 || low < 0) {
            out.clear();
            return false;
        }
        out.push_back(static_cast<std::uint8_t>(high * 16 + low));
    }
    return true;
}

// Whole UTF-8 validity (no overlongs, no surrogates, at most U+10FFFF).
inline bool valid_utf8(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size()) {
        auto byte = static_cast<unsigned char>(text[i]);
        std::size_t extra = 0;
        std::uint32_t code = 0;
        if (byte < 0x80) {
            ++i;
            continue;
        } else if ((byte & 0xe0) == 0xc0) {
            extra = 1;
            code = byte & 0x1f;
        } else if ((byte & 0xf0) == 0xe0) {
            extra = 2;
            code = byte & 0x0f;
        } else if ((byte & 0xf8) == 0xf0) {
            extra = 3;
            code = byte & 0x07;
        } else {
            return false;
        }
        if (i + extra >= text.size()) return false;
        for (std::size_t k = 1; k <= extra; ++k) {
            auto next = static_cast<unsigned char>(text[i + k]);
            if ((next & 0xc0) != 0x80) return false;
            code = (code << 6) | (next & 0x3f);
        }
        static constexpr std::uint32_t minimum[] = {0, 0x80, 0x800, 0x10000};
        if (code < minimum[extra] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
            return false;
        i += extra + 1;
    }
    return true;
}

}  // namespace corridor::formats
