#include "uma/ecies.hpp"

#include <openssl/evp.h>
#include <openssl/kdf.h>

#include <memory>

#include "ledger/base/assert.hpp"
#include "uma/secp256k1_context.hpp"

namespace corridor::uma {
namespace {

constexpr std::size_t point_bytes = 65;
constexpr std::size_t nonce_bytes = 16;
constexpr std::size_t tag_bytes = 16;
using aes_key = std::array<std::uint8_t, 32>;

// scalar * point, uncompressed; nullopt when the point is invalid.
std::optional<public_key> multiply(std::span<const std::uint8_t> point_data,
                                   const private_key& scalar) {
    secp256k1_pubkey point;
    if (secp256k1_ec_pubkey_parse(secp_context(), &point, point_data.data(), point_data.size()) !=
        1) {
        return std::nullopt;
    }
    if (secp256k1_ec_pubkey_tweak_mul(secp_context(), &point, scalar.data()) != 1)
        return std::nullopt;
    public_key out;
    std::size_t size = out.size();
    secp256k1_ec_pubkey_serialize(secp_context(), out.data(), &size, &point,
                                  SECP256K1_EC_UNCOMPRESSED);
    return out;
}

aes_key derive_key(std::span<const std::uint8_t> ephemeral, const public_key& shared) {
    bytes material(ephemeral.begin(), ephemeral.end());
    material.insert(material.end(), shared.begin(), shared.end());
    std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> kdf(
        EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nullptr), EVP_PKEY_CTX_free);
    CORRIDOR_ASSERT(kdf != nullptr);
    CORRIDOR_ASSERT(EVP_PKEY_derive_init(kdf.get()) == 1);
    CORRIDOR_ASSERT(EVP_PKEY_CTX_set_hkdf_md(kdf.get(), EVP_sha256()) == 1);
    // No salt: HKDF then uses a block of zeros, as eciesjs does.
    CORRIDOR_ASSERT(EVP_PKEY_CTX_set1_hkdf_key(kdf.get(), material.data(),
                                               static_cast<int>(material.size())) == 1);
    aes_key key;
    std::size_t size = key.size();
    CORRIDOR_ASSERT(EVP_PKEY_derive(kdf.get(), key.data(), &size) == 1 && size == key.size());
    return key;
}

using cipher_context = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

cipher_context gcm_context(const aes_key& key, std::span<const std::uint8_t> nonce, bool encrypt) {
    cipher_context cipher(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    CORRIDOR_ASSERT(cipher != nullptr);
    CORRIDOR_ASSERT(EVP_CipherInit_ex(cipher.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr,
                                      encrypt ? 1 : 0) == 1);
    CORRIDOR_ASSERT(EVP_CIPHER_CTX_ctrl(cipher.get(), EVP_CTRL_GCM_SET_IVLEN,
                                        static_cast<int>(nonce.size()), nullptr) == 1);
    CORRIDOR_ASSERT(EVP_CipherInit_ex(cipher.get(), nullptr, nullptr, key.data(), nonce.data(),
                                      encrypt ? 1 : 0) == 1);
    return cipher;
}

}  // namespace

bytes ecies_encrypt(const public_key& receiver, std::string_view plaintext, random_source& random) {
    private_key ephemeral_secret = generate_private_key(random);
    public_key ephemeral = public_key_of(ephemeral_secret);
    auto shared = multiply(receiver, ephemeral_secret);
    CORRIDOR_ASSERT(shared.has_value());
    aes_key key = derive_key(ephemeral, *shared);

    bytes out(point_bytes + nonce_bytes + tag_bytes + plaintext.size());
    std::copy(ephemeral.begin(), ephemeral.end(), out.begin());
    std::span<std::uint8_t> nonce(out.data() + point_bytes, nonce_bytes);
    random.fill(nonce);
    std::uint8_t* tag = out.data() + point_bytes + nonce_bytes;
    std::uint8_t* body = tag + tag_bytes;

    auto cipher = gcm_context(key, nonce, true);
    int written = 0;
    CORRIDOR_ASSERT(EVP_EncryptUpdate(cipher.get(), body, &written,
                                      reinterpret_cast<const unsigned char*>(plaintext.data()),
                                      static_cast<int>(plaintext.size())) == 1);
    int final_written = 0;
    CORRIDOR_ASSERT(EVP_EncryptFinal_ex(cipher.get(), body + written, &final_written) == 1);
    CORRIDOR_ASSERT(static_cast<std::size_t>(written + final_written) == plaintext.size());
    CORRIDOR_ASSERT(EVP_CIPHER_CTX_ctrl(cipher.get(), EVP_CTRL_GCM_GET_TAG, tag_bytes, tag) == 1);
    return out;
}

std::optional<std::string> ecies_decrypt(const private_key& receiver,
                                         std::span<const std::uint8_t> data) {
    if (data.size() < point_bytes + nonce_bytes + tag_bytes) return std::nullopt;
    auto ephemeral = data.first(point_bytes);
    auto shared = multiply(ephemeral, receiver);
    if (!shared) return std::nullopt;
    aes_key key = derive_key(ephemeral, *shared);
    auto nonce = data.subspan(point_bytes, nonce_bytes);
    auto tag = data.subspan(point_bytes + nonce_bytes, tag_bytes);
    auto body = data.subspan(point_bytes + nonce_bytes + tag_bytes);

    auto cipher = gcm_context(key, nonce, false);
    std::string plaintext(body.size(), '\0');
    int written = 0;
    if (EVP_DecryptUpdate(cipher.get(), reinterpret_cast<unsigned char*>(plaintext.data()),
                          &written, body.data(), static_cast<int>(body.size())) != 1) {
        return std::nullopt;
    }
    bytes tag_copy(tag.begin(), tag.end());
    CORRIDOR_ASSERT(
        EVP_CIPHER_CTX_ctrl(cipher.get(), EVP_CTRL_GCM_SET_TAG, tag_bytes, tag_copy.data()) == 1);
    int final_written = 0;
    if (EVP_DecryptFinal_ex(cipher.get(),
                            reinterpret_cast<unsigned char*>(plaintext.data()) + written,
                            &final_written) != 1) {
        return std::nullopt;
    }
    plaintext.resize(static_cast<std::size_t>(written + final_written));
    return plaintext;
}

}  // namespace corridor::uma
