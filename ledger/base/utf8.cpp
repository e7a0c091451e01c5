#include "ledger/base/utf8.hpp"

#include <cstdint>

namespace corridor {

bool is_valid_utf8(std::string_view text) {
    std::size_t at = 0;
    while (at < text.size()) {
        auto lead = static_cast<std::uint8_t>(text[at]);
        if (lead < 0x80) {
            ++at;
            continue;
        }
        // Length and the allowed range of the second byte, per RFC 3629 section 4.
        std::size_t length = 0;
        std::uint8_t second_min = 0x80, second_max = 0xbf;
        if (lead >= 0xc2 && lead <= 0xdf) {
            length = 2;
        } else if (lead >= 0xe0 && lead <= 0xef) {
            length = 3;
            if (lead == 0xe0) second_min = 0xa0;  // overlong
            if (lead == 0xed) second_max = 0x9f;  // surrogates
        } else if (lead >= 0xf0 && lead <= 0xf4) {
            length = 4;
            if (lead == 0xf0) second_min = 0x90;  // overlong
            if (lead == 0xf4) second_max = 0x8f;  // above U+10FFFF
        } else {
            return false;
        }
        if (text.size() - at < length) return false;
        auto second = static_cast<std::uint8_t>(text[at + 1]);
        if (second < second_min || second > second_max) return false;
        for (std::size_t i = 2; i < length; ++i) {
            auto next = static_cast<std::uint8_t>(text[at + i]);
            if (next < 0x80 || next > 0xbf) return false;
        }
        at += length;
    }
    return true;
}

std::string printable_excerpt(std::string_view text, std::size_t bytes_max) {
    std::string out;
    for (char c : text.substr(0, bytes_max)) {
        unsigned char u = static_cast<unsigned char>(c);
        out += (u >= 0x20 && u < 0x7f) || c == '\n' || c == '\t' ? c : '?';
    }
    return out;
}

}  // namespace corridor
