#include "server/dashboard/totp.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <cctype>
#include <vector>

#include "ledger/base/random.hpp"

namespace corridor {
namespace {

constexpr std::string_view base32_alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
constexpr std::size_t totp_secret_bytes = 20;

std::string uri_escape(std::string_view text) {
    static constexpr char digits[] = "0123456789ABCDEF";
    std::string out;
    for (char c : text) {
        unsigned char u = static_cast<unsigned char>(c);
        if (std::isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~' || c == '@') {
            out.push_back(c);
        } else {
            out.push_back('%');
            out.push_back(digits[u >> 4]);
            out.push_back(digits[u & 0xf]);
        }
    }
    return out;
}

}  // namespace

std::string totp_code(std::string_view key, std::int64_t step, int digits) {
    std::array<unsigned char, 8> counter{};
    auto value = static_cast<std::uint64_t>(step);
    for (int i = 7; i >= 0; --i) {
        counter[static_cast<std::size_t>(i)] = static_cast<unsigned char>(value & 0xff);
        value >>= 8;
    }
    std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
    unsigned int mac_size = 0;
    HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()), counter.data(), counter.size(),
         mac.data(), &mac_size);
    // RFC 4226 dynamic truncation.
    unsigned offset = mac[mac_size - 1] & 0x0f;
    std::uint32_t binary = (static_cast<std::uint32_t>(mac[offset] & 0x7f) << 24) |
                           (static_cast<std::uint32_t>(mac[offset + 1]) << 16) |
                           (static_cast<std::uint32_t>(mac[offset + 2]) << 8) |
                           static_cast<std::uint32_t>(mac[offset + 3]);
    std::uint32_t modulus = 1;
    for (int i = 0; i < digits; ++i) modulus *= 10;
    std::string code = std::to_string(binary % modulus);
    return std::string(static_cast<std::size_t>(digits) - code.size(), '0') + code;
}

std::optional<std::int64_t> totp_matching_step(std::string_view key, std::string_view code,
                                               std::int64_t now_ms) {
    if (code.size() != static_cast<std::size_t>(totp_digits)) return std::nullopt;
    std::int64_t now_step = now_ms / 1000 / totp_step_seconds;
    for (std::int64_t step : {now_step - 1, now_step, now_step + 1}) {
        std::string expected = totp_code(key, step);
        if (CRYPTO_memcmp(expected.data(), code.data(), expected.size()) == 0) return step;
    }
    return std::nullopt;
}

std::string base32_encode(std::string_view bytes) {
    std::string out;
    std::uint32_t buffer = 0;
    int bits = 0;
    for (char c : bytes) {
        buffer = (buffer << 8) | static_cast<unsigned char>(c);
        bits += 8;
        while (bits >= 5) {
            out.push_back(base32_alphabet[(buffer >> (bits - 5)) & 0x1f]);
            bits -= 5;
        }
    }
    if (bits > 0) out.push_back(base32_alphabet[(buffer << (5 - bits)) & 0x1f]);
    return out;
}

std::optional<std::string> base32_decode(std::string_view text) {
    std::string out;
    std::uint32_t buffer = 0;
    int bits = 0;
    for (char c : text) {
        if (c == '=' || c == ' ') continue;
        char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        auto index = base32_alphabet.find(upper);
        if (index == std::string_view::npos) return std::nullopt;
        buffer = (buffer << 5) | static_cast<std::uint32_t>(index);
        bits += 5;
        if (bits >= 8) {
            out.push_back(static_cast<char>((buffer >> (bits - 8)) & 0xff));
            bits -= 8;
        }
    }
    return out;
}

std::string new_totp_secret(random_source& random) {
    std::vector<std::uint8_t> raw(totp_secret_bytes);
    random.fill(raw);
    return base32_encode(std::string_view(reinterpret_cast<const char*>(raw.data()), raw.size()));
}

std::string totp_uri(std::string_view issuer, std::string_view account,
                     std::string_view secret_base32) {
    return "otpauth://totp/" + uri_escape(issuer) + ":" + uri_escape(account) +
           "?secret=" + std::string(secret_base32) + "&issuer=" + uri_escape(issuer) +
           "&algorithm=SHA1&digits=6&period=30";
}

}  // namespace corridor
