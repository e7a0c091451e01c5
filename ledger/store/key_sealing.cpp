#include "ledger/store/key_sealing.hpp"

#include <openssl/evp.h>

#include <memory>

#include "ledger/base/assert.hpp"

namespace corridor {
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

constexpr char hex_digits[] = "0123456789abcdef";

std::string hex_of(std::span<const std::uint8_t> data) {
    std::string out;
    out.reserve(data.size() * 2);
    for (auto byte : data) {
        out += hex_digits[byte >> 4];
        out += hex_digits[byte & 0xf];
    }
    return out;
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::optional<std::vector<std::uint8_t>> bytes_of_hex(std::string_view text) {
    if (text.size() % 2 != 0) return std::nullopt;
    std::vector<std::uint8_t> out(text.size() / 2);
    for (std::size_t i = 0; i < out.size(); ++i) {
        int high = hex_value(text[2 * i]), low = hex_value(text[2 * i + 1]);
        if (high < 0 || low < 0) return std::nullopt;
        out[i] = static_cast<std::uint8_t>(high << 4 | low);
    }
    return out;
}

std::optional<sealing_key> process_key;

}  // namespace

std::optional<sealing_key> parse_sealing_key(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
        text.remove_suffix(1);
    }
    while (!text.empty() && (text.front() == ' ' || text.front() == '\n')) text.remove_prefix(1);
    auto data = bytes_of_hex(text);
    if (!data || data->size() != 32) return std::nullopt;
    sealing_key key;
    std::copy(data->begin(), data->end(), key.begin());
    return key;
}

std::string seal_bytes(const sealing_key& key, std::span<const std::uint8_t> secret,
                       std::string_view context, random_source& random) {
    std::vector<std::uint8_t> out(nonce_bytes + tag_bytes + secret.size());
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
    return std::string(prefix) + hex_of(out);
}

bool is_sealed(std::string_view stored) {
    return stored.starts_with(prefix);
}

std::optional<std::vector<std::uint8_t>> unseal_bytes(const sealing_key& key,
                                                      std::string_view stored,
                                                      std::string_view context) {
    if (!is_sealed(stored)) return std::nullopt;
    auto data = bytes_of_hex(stored.substr(prefix.size()));
    if (!data || data->size() < nonce_bytes + tag_bytes) return std::nullopt;
    std::size_t size = data->size() - nonce_bytes - tag_bytes;
    auto cipher = gcm(key, data->data(), context, false);
    std::vector<std::uint8_t> secret(size);
    int written = 0;
    const std::uint8_t* body = data->data() + nonce_bytes + tag_bytes;
    if (EVP_DecryptUpdate(cipher.get(), secret.data(), &written, body, static_cast<int>(size)) != 1)
        return std::nullopt;
    CORRIDOR_ASSERT(EVP_CIPHER_CTX_ctrl(cipher.get(), EVP_CTRL_GCM_SET_TAG, tag_bytes,
                                        data->data() + nonce_bytes) == 1);
    int final_written = 0;
    if (EVP_DecryptFinal_ex(cipher.get(), secret.data() + written, &final_written) != 1) {
        return std::nullopt;
    }
    return secret;
}

void install_key_encryption_key(const sealing_key& key) {
    process_key = key;
}

const sealing_key* installed_key_encryption_key() {
    return process_key ? &*process_key : nullptr;
}

}  // namespace corridor
