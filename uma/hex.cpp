#include "uma/hex.hpp"

#include "rails/rail_sdk/formats/text.hpp"

namespace corridor::uma {

std::string to_hex(std::span<const std::uint8_t> data) {
    return formats::hex_encode(data.data(), data.size());
}

std::optional<bytes> from_hex(std::string_view text) {
    bytes out;
    if (!formats::hex_decode(text, out)) return std::nullopt;
    return out;
}

}  // namespace corridor::uma
