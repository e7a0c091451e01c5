#include "uma/key_sealing.hpp"

#include <openssl/evp.h>

#include <memory>

#include "ledger/assert.hpp"
#include "uma/hex.hpp"

namespace corridor::uma {
namespace {

constexpr std::string_view prefix = "sealed1:";
constexpr std::size_t nonce_bytes = 12;
constexpr std::size_t tag_bytes = 16;
using cipher_ptr = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

cipher_ptr gcm(const sealing_key& key, const std::uint8_t* nonce, std::string_view context,
               bool encrypt) {
    cipher_ptr cipher(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    CORRIDOR_ASSERT(cipher != nullptr);
    CORRIDOR_ASSERT(EVP_CipherInit_ex(cipher.get(), EVP_aes_256_gcm(), nullptr, key.data(), nonce,
                                      encrypt ? 1 : 0) == 1);
    int ignored = 0;
    CORRIDOR_ASSERT(EVP_CipherUpdate(cipher.get(), nullptr, &ignored,
                                     reinterpret_cast<const unsigned char*>(context.data()),
                                     static_cast<int>(context.size())) == 1);
    return cipher;
}

}  // namespace

std::optional<sealing_key> parse_sealing_key(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
        text.remove_suffix(1);
    }
    while (!text.empty() && (text.front() == ' ' || text.front() == '\n')) text.remove_prefix(1);
    auto data = from_hex(text);
    if (!data || data->size() != 32) return std::nullopt;
    sealing_key key;
    std::copy(data->begin(), data->end(), key.begin());
    return key;
}

std::string seal_secret(const sealing_key& key, const private_key& secret, std::string_view context,
                        random_source& random) {
    std::array<std::uint8_t, nonce_bytes + tag_bytes + 32> out{};
    random.fill(std::span(out.data(), nonce_bytes));
    auto cipher = gcm(key, out.data(), context, true);
    int written = 0;
    std::uint8_t* body = out.data() + nonce_bytes + tag_bytes;
    CORRIDOR_ASSERT(EVP_EncryptUpdate(cipher.get(), body, &written, secret.data(),
                                      static_cast<int>(secret.size())) == 1);
    int final_written = 0;
    CORRIDOR_ASSERT(EVP_EncryptFinal_ex(cipher.get(), body + written, &final_written) == 1);
    CORRIDOR_ASSERT(EVP_CIPHER_CTX_ctrl(cipher.get(), EVP_CTRL_GCM_GET_TAG, tag_bytes,
                                        out.data() + nonce_bytes) == 1);
    return std::string(prefix) + to_hex(out);
}

bool is_sealed(std::string_view stored) {
    return stored.starts_with(prefix);
}

std::optional<private_key> unseal_secret(const sealing_key& key, std::string_view stored,
                                         std::string_view context) {
    if (!is_sealed(stored)) return std::nullopt;
    auto data = from_hex(stored.substr(prefix.size()));
    if (!data || data->size() != nonce_bytes + tag_bytes + 32) return std::nullopt;
    auto cipher = gcm(key, data->data(), context, false);
    private_key secret{};
    int written = 0;
    const std::uint8_t* body = data->data() + nonce_bytes + tag_bytes;
    if (EVP_DecryptUpdate(cipher.get(), secret.data(), &written, body, 32) != 1)
        return std::nullopt;
    CORRIDOR_ASSERT(EVP_CIPHER_CTX_ctrl(cipher.get(), EVP_CTRL_GCM_SET_TAG, tag_bytes,
                                        data->data() + nonce_bytes) == 1);
    int final_written = 0;
    if (EVP_DecryptFinal_ex(cipher.get(), secret.data() + written, &final_written) != 1) {
        return std::nullopt;
    }
    return private_key_from_bytes(secret);
}

}  // namespace corridor::uma
