#pragma once
// Cryptographic randomness for the plugins (ids, preimages, secrets). The rail ABI passes no random
// source, so plugins take it from OpenSSL; the format libraries themselves take it injected.
#include <openssl/rand.h>

#include <cstddef>
#include <cstdint>

#include "rails/plugin_sdk.hpp"

namespace corridor::plugin_random {

inline void fill(std::uint8_t* buffer, std::size_t size) {
    if (RAND_bytes(buffer, static_cast<int>(size)) != 1)
        throw rail_sdk::rail_error(CORRIDOR_RAIL_UNAVAILABLE, "no randomness available");
}

}  // namespace corridor::plugin_random
