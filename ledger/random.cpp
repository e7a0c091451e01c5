#include "ledger/random.hpp"

#include <openssl/rand.h>

#include <stdexcept>
#include <vector>

namespace corridor {

void os_random::fill(std::span<std::uint8_t> out) {
    if (out.empty()) return;
    if (RAND_bytes(out.data(), static_cast<int>(out.size())) != 1) {
        throw std::runtime_error("the OS random source failed");
    }
}

void seeded_random::fill(std::span<std::uint8_t> out) {
    std::lock_guard lock(mutex_);
    for (auto& byte : out) byte = static_cast<std::uint8_t>(engine_() & 0xff);
}

std::string random_hex(random_source& source, std::size_t byte_count) {
    static constexpr char digits[] = "0123456789abcdef";
    std::vector<std::uint8_t> bytes(byte_count);
    source.fill(bytes);
    std::string out;
    out.reserve(byte_count * 2);
    for (auto byte : bytes) {
        out.push_back(digits[byte >> 4]);
        out.push_back(digits[byte & 0xf]);
    }
    return out;
}

std::string random_base32(random_source& source, std::size_t char_count) {
    static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
    std::vector<std::uint8_t> bytes(char_count);
    source.fill(bytes);
    std::string out;
    out.reserve(char_count);
    for (auto byte : bytes) out.push_back(alphabet[byte & 31]);
    return out;
}

}  // namespace corridor
