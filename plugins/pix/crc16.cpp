#include "plugins/pix/crc16.hpp"

namespace corridor::pix {

std::uint16_t crc16_ccitt_false(std::string_view bytes) {
    std::uint16_t crc = 0xffff;
    for (char c : bytes) {
        crc ^= static_cast<std::uint16_t>(static_cast<unsigned char>(c) << 8);
        for (int bit = 0; bit < 8; ++bit)
            crc = static_cast<std::uint16_t>((crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1);
    }
    return crc;
}

std::string crc16_hex(std::uint16_t crc) {
    static constexpr char digits[] = "0123456789ABCDEF";
    return {digits[(crc >> 12) & 15], digits[(crc >> 8) & 15], digits[(crc >> 4) & 15],
            digits[crc & 15]};
}

}  // namespace corridor::pix
