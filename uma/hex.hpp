#pragma once
// Lower-case hex, the encoding UMA uses for signatures, keys, certificates and ciphertexts.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace corridor::uma {

using bytes = std::vector<std::uint8_t>;

std::string to_hex(std::span<const std::uint8_t> data);
// Nullopt unless the text is an even number of hex digits (either case).
std::optional<bytes> from_hex(std::string_view text);

}  // namespace corridor::uma
