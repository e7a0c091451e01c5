#pragma once
// Travel-rule payer data is encrypted to the receiver's encryption key with ECIES in the format of
// eciesjs (and eciespy, ecies/go, the Rust ecies crate), which every UMA SDK uses:
//   ephemeral public key (65 bytes, uncompressed) || nonce (16) || AES-GCM tag (16) || ciphertext
// with key = HKDF-SHA256(ephemeral public key || shared point, both uncompressed, no salt, no
// info, 32 bytes), AES-256-GCM, no associated data.
#include <optional>
#include <string>
#include <string_view>

#include "ledger/base/random.hpp"
#include "uma/hex.hpp"
#include "uma/signing.hpp"

namespace corridor::uma {

bytes ecies_encrypt(const public_key& receiver, std::string_view plaintext, random_source& random);
// Nullopt when the data is too short, the ephemeral key is not a curve point, or the tag does not
// authenticate (wrong key or tampered data).
std::optional<std::string> ecies_decrypt(const private_key& receiver,
                                         std::span<const std::uint8_t> data);

}  // namespace corridor::uma
