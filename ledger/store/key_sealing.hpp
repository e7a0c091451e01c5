#pragma once
// Secrets at rest: sealed with AES-256-GCM under the operator's key-encryption key (KEK), a file
// kept outside the database, and bound to the row they belong to (the context is authenticated,
// not stored), so that a copy of the database alone signs for no one and a sealed value moved to
// another row does not open. One mechanism for every private key the database holds: webhook
// signing keys (ledger/webhook_keys) and UMA keys (uma/key_sealing).
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/base/random.hpp"

namespace corridor {

using sealing_key = std::array<std::uint8_t, 32>;

// 64 hex digits, surrounding whitespace ignored; nullopt otherwise.
std::optional<sealing_key> parse_sealing_key(std::string_view text);

// "sealed1:" + hex(nonce 12 || tag 16 || ciphertext).
std::string seal_bytes(const sealing_key& key, std::span<const std::uint8_t> secret,
                       std::string_view context, random_source& random);
bool is_sealed(std::string_view stored);
// Nullopt when the text is not a sealed secret, or the key or context is not the sealing one.
std::optional<std::vector<std::uint8_t>> unseal_bytes(const sealing_key& key,
                                                      std::string_view stored,
                                                      std::string_view context);

// The process's KEK. `serve` and the commands that write keys install it once at start-up, before
// any other thread runs; stores that write a private key seal it when one is installed.
// Process-wide rather than passed along because every path to a webhook key (platform creation,
// delivery claims, the CLI) would otherwise carry it through signatures that have nothing to do
// with it.
void install_key_encryption_key(const sealing_key& key);
const sealing_key* installed_key_encryption_key();

}  // namespace corridor
