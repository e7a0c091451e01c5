#include "uma/signing.hpp"

#include <openssl/sha.h>

#include "ledger/base/assert.hpp"
#include "uma/secp256k1_context.hpp"

namespace corridor::uma {
namespace {

secp256k1_pubkey to_library_key(const private_key& key) {
    secp256k1_pubkey point;
    CORRIDOR_ASSERT(secp256k1_ec_pubkey_create(secp_context(), &point, key.data()) == 1);
    return point;
}

}  // namespace

std::optional<private_key> private_key_from_bytes(std::span<const std::uint8_t> data) {
    if (data.size() != 32) return std::nullopt;
    private_key key;
    std::copy(data.begin(), data.end(), key.begin());
    if (secp256k1_ec_seckey_verify(secp_context(), key.data()) != 1) return std::nullopt;
    return key;
}

private_key generate_private_key(random_source& random) {
    private_key key;
    do {
        random.fill(key);
    } while (secp256k1_ec_seckey_verify(secp_context(), key.data()) != 1);
    return key;
}

public_key public_key_of(const private_key& key) {
    secp256k1_pubkey point = to_library_key(key);
    public_key out;
    std::size_t size = out.size();
    secp256k1_ec_pubkey_serialize(secp_context(), out.data(), &size, &point,
                                  SECP256K1_EC_UNCOMPRESSED);
    CORRIDOR_ASSERT(size == out.size());
    return out;
}

std::optional<public_key> parse_public_key(std::span<const std::uint8_t> data) {
    secp256k1_pubkey point;
    if (secp256k1_ec_pubkey_parse(secp_context(), &point, data.data(), data.size()) != 1) {
        return std::nullopt;
    }
    public_key out;
    std::size_t size = out.size();
    secp256k1_ec_pubkey_serialize(secp_context(), out.data(), &size, &point,
                                  SECP256K1_EC_UNCOMPRESSED);
    return out;
}

std::array<std::uint8_t, 33> compress(const public_key& key) {
    secp256k1_pubkey point;
    CORRIDOR_ASSERT(secp256k1_ec_pubkey_parse(secp_context(), &point, key.data(), key.size()) == 1);
    std::array<std::uint8_t, 33> out;
    std::size_t size = out.size();
    secp256k1_ec_pubkey_serialize(secp_context(), out.data(), &size, &point,
                                  SECP256K1_EC_COMPRESSED);
    return out;
}

std::array<std::uint8_t, 32> sha256(std::string_view data) {
    std::array<std::uint8_t, 32> digest;
    SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest.data());
    return digest;
}

std::string sign_payload(std::string_view payload, const private_key& key) {
    auto digest = sha256(payload);
    secp256k1_ecdsa_signature signature;
    // A null nonce function means RFC 6979, and libsecp256k1 always produces low-S.
    CORRIDOR_ASSERT(secp256k1_ecdsa_sign(secp_context(), &signature, digest.data(), key.data(),
                                         nullptr, nullptr) == 1);
    std::array<std::uint8_t, 72> der;
    std::size_t size = der.size();
    CORRIDOR_ASSERT(secp256k1_ecdsa_signature_serialize_der(secp_context(), der.data(), &size,
                                                            &signature) == 1);
    return to_hex(std::span(der.data(), size));
}

bool verify_payload(std::string_view payload, std::string_view signature_hex,
                    const public_key& key) {
    auto der = from_hex(signature_hex);
    if (!der || der->empty()) return false;
    secp256k1_ecdsa_signature signature;
    if (secp256k1_ecdsa_signature_parse_der(secp_context(), &signature, der->data(), der->size()) !=
        1) {
        return false;
    }
    secp256k1_ecdsa_signature_normalize(secp_context(), &signature, &signature);
    secp256k1_pubkey point;
    if (secp256k1_ec_pubkey_parse(secp_context(), &point, key.data(), key.size()) != 1)
        return false;
    auto digest = sha256(payload);
    return secp256k1_ecdsa_verify(secp_context(), &signature, digest.data(), &point) == 1;
}

}  // namespace corridor::uma
