#pragma once
// X.509 certificates whose public key is a secp256k1 UMA key. UMA publishes its keys as
// certificate chains (hex DER, leaf first); readers take the leaf's uncompressed point. Corridor's
// certificates are self-signed by the key they certify: no SDK validates issuers.
#include <cstdint>
#include <optional>
#include <string>

#include "uma/hex.hpp"
#include "uma/signing.hpp"

namespace corridor::uma {

struct certificate_request {
    std::string common_name;  // the platform's UMA domain
    std::int64_t not_before_s = 0;
    std::int64_t not_after_s = 0;
    std::uint64_t serial = 1;
};

// DER of a v3 certificate for `key`'s public key, signed with `key` (ECDSA with SHA-256).
bytes self_signed_certificate(const private_key& key, const certificate_request& request);
// The secp256k1 public key of a DER certificate; nullopt when it does not parse or its key is not
// on secp256k1.
std::optional<public_key> certificate_public_key(std::span<const std::uint8_t> der);

}  // namespace corridor::uma
