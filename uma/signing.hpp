#pragma once
// secp256k1 ECDSA as UMA uses it: SHA-256 of the UTF-8 payload, RFC 6979 nonces, low-S DER
// signatures sent as lower-case hex. Verification normalises S first, because some senders (the Go
// SDK) emit high-S signatures that libsecp256k1 would otherwise refuse.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ledger/base/random.hpp"
#include "uma/hex.hpp"

namespace corridor::uma {

using private_key = std::array<std::uint8_t, 32>;
// Public keys travel as the 65-byte uncompressed point (04 || x || y).
using public_key = std::array<std::uint8_t, 65>;

// Nullopt when the 32 bytes are not a valid secret (zero or not below the group order).
std::optional<private_key> private_key_from_bytes(std::span<const std::uint8_t> data);
private_key generate_private_key(random_source& random);
public_key public_key_of(const private_key& key);
// Accepts the 65-byte uncompressed or the 33-byte compressed form; returns the uncompressed one.
std::optional<public_key> parse_public_key(std::span<const std::uint8_t> data);
// The 33-byte compressed form, which the eciesjs-based SDKs pass to their encryptor.
std::array<std::uint8_t, 33> compress(const public_key& key);

std::array<std::uint8_t, 32> sha256(std::string_view data);

// DER signature, lower-case hex.
std::string sign_payload(std::string_view payload, const private_key& key);
// True when signature_hex is a DER ECDSA signature by `key` over SHA-256(payload), S normalised.
bool verify_payload(std::string_view payload, std::string_view signature_hex,
                    const public_key& key);

}  // namespace corridor::uma
