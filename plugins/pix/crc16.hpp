#pragma once
// CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final XOR): the BR Code CRC.
#include <cstdint>
#include <string>
#include <string_view>

namespace corridor::pix {

std::uint16_t crc16_ccitt_false(std::string_view bytes);

// Four upper-case hex digits, as written in field 63.
std::string crc16_hex(std::uint16_t crc);

}  // namespace corridor::pix
