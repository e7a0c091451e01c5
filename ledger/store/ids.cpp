#include "ledger/store/ids.hpp"

#include <array>

#include "ledger/base/assert.hpp"

namespace corridor {

std::string id_generator::next_uuid() {
    std::string out;
    out.reserve(36);
    append_uuid(out);
    return out;
}

std::string id_generator::next(std::string_view type) {
    std::string out;
    out.reserve(type.size() + 1 + 36);
    out.append(type);
    out.push_back(':');
    append_uuid(out);
    return out;
}

void id_generator::append_uuid(std::string& out) {
    std::array<std::uint8_t, 16> bytes{};
    random_.fill(bytes);
    std::int64_t ms = clock_.now_ms();
    std::uint16_t sequence = 0;
    {
        std::lock_guard lock(mutex_);
        if (ms <= last_ms_) {
            // Same millisecond (or a clock step back): keep order by counting up.
            ms = last_ms_;
            sequence_ = static_cast<std::uint16_t>(sequence_ + 1);
            if (sequence_ > 0x0fff) {
                ms = last_ms_ + 1;
                sequence_ = 0;
            }
        } else {
            sequence_ = 0;
        }
        last_ms_ = ms;
        sequence = sequence_;
    }
    CORRIDOR_ASSERT(ms >= 0);
    for (int i = 0; i < 6; ++i) bytes[i] = static_cast<std::uint8_t>(ms >> (8 * (5 - i)));
    bytes[6] = static_cast<std::uint8_t>(0x70 | ((sequence >> 8) & 0x0f));
    bytes[7] = static_cast<std::uint8_t>(sequence & 0xff);
    bytes[8] = static_cast<std::uint8_t>(0x80 | (bytes[8] & 0x3f));

    static constexpr char digits[] = "0123456789abcdef";
    std::size_t start = out.size();
    out.resize(start + 36);
    char* at = out.data() + start;
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) *at++ = '-';
        *at++ = digits[bytes[i] >> 4];
        *at++ = digits[bytes[i] & 0xf];
    }
    CORRIDOR_ASSERT(at == out.data() + out.size());
}

std::string first_id_at(std::string_view type, std::int64_t ms) {
    CORRIDOR_ASSERT(ms >= 0);
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(type.size() + 1 + 36);
    out.append(type);
    out.push_back(':');
    for (int nibble = 11; nibble >= 0; --nibble) {
        if (nibble == 3) out.push_back('-');
        out.push_back(digits[(ms >> (4 * nibble)) & 0xf]);
    }
    out += "-0000-0000-000000000000";
    return out;
}

bool is_uuid(std::string_view text) {
    if (text.size() != 36) return false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        bool dash_position = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash_position) {
            if (c != '-') return false;
        } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
            return false;
        }
    }
    return true;
}

std::string_view uuid_part(std::string_view id) {
    std::size_t colon = id.find(':');
    return colon == std::string_view::npos ? id : id.substr(colon + 1);
}

bool pack_id(std::string_view typed, unsigned char (&out)[16]) {
    std::string_view uuid = uuid_part(typed);
    if (!is_uuid(uuid)) return false;
    auto nibble = [](char c) {
        if (c >= '0' && c <= '9') return c - '0';
        return (c | 0x20) - 'a' + 10;
    };
    std::size_t at = 0;
    for (int i = 0; i < 16; ++i) {
        if (uuid[at] == '-') ++at;
        out[i] = static_cast<unsigned char>(nibble(uuid[at]) << 4 | nibble(uuid[at + 1]));
        at += 2;
    }
    return true;
}

std::string unpack_id(std::string_view type, const unsigned char* bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(type.size() + 1 + 36);
    out.append(type);
    out.push_back(':');
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
        out.push_back(digits[bytes[i] >> 4]);
        out.push_back(digits[bytes[i] & 0xf]);
    }
    return out;
}

bool is_typed_id(std::string_view type, std::string_view text) {
    if (text.size() != type.size() + 1 + 36) return false;
    if (text.substr(0, type.size()) != type || text[type.size()] != ':') return false;
    return is_uuid(text.substr(type.size() + 1));
}

bool is_made_id(std::string_view type, std::string_view text) {
    if (!is_typed_id(type, text)) return false;
    for (char c : text.substr(type.size() + 1)) {
        if (c >= 'A' && c <= 'F') return false;
    }
    return true;
}

}  // namespace corridor
