#pragma once
// UMA private keys at rest: sealed with AES-256-GCM under an operator key kept outside the
// database (uma.key_encryption_key_file), bound to the row they belong to, so that a copy of the
// database alone does not sign for any platform.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ledger/random.hpp"
#include "uma/signing.hpp"

namespace corridor::uma {

using sealing_key = std::array<std::uint8_t, 32>;

// 64 hex digits, surrounding whitespace ignored; nullopt otherwise.
std::optional<sealing_key> parse_sealing_key(std::string_view text);

// "sealed1:" + hex(nonce 12 || tag 16 || ciphertext 32); `context` is authenticated, not stored.
std::string seal_secret(const sealing_key& key, const private_key& secret, std::string_view context,
                        random_source& random);
bool is_sealed(std::string_view stored);
// Nullopt when the text is not a sealed secret, or the key or context is not the sealing one.
std::optional<private_key> unseal_secret(const sealing_key& key, std::string_view stored,
                                         std::string_view context);

}  // namespace corridor::uma
