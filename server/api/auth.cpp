#include "server/api/auth.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

namespace corridor {
namespace {

// Standard base64 with padding (RFC 4648 section 4), as RFC 7617 requires: the alphabet, whole
// groups of four, and '=' only as the last one or two characters. EVP_DecodeBlock alone accepts
// padding in the middle and decodes whatever follows it into junk bytes.
bool is_padded_base64(std::string_view text) {
    if (text.empty() || text.size() % 4 != 0) return false;
    std::size_t padding = text.ends_with("==") ? 2 : text.ends_with("=") ? 1 : 0;
    for (std::size_t i = 0; i + padding < text.size(); ++i) {
        char c = text[i];
        bool in_alphabet = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                           (c >= '0' && c <= '9') || c == '+' || c == '/';
        if (!in_alphabet) return false;
    }
    return true;
}

}  // namespace

std::optional<basic_credentials> parse_basic_authorization(std::string_view header) {
    constexpr std::string_view scheme = "basic ";
    if (header.size() <= scheme.size() || header.size() > 1024) return std::nullopt;
    for (std::size_t i = 0; i < scheme.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(header[i])) != scheme[i]) return std::nullopt;
    }
    std::string_view encoded = header.substr(scheme.size());
    while (!encoded.empty() && encoded.front() == ' ') encoded.remove_prefix(1);
    while (!encoded.empty() && encoded.back() == ' ') encoded.remove_suffix(1);
    if (!is_padded_base64(encoded)) return std::nullopt;
    std::string decoded(encoded.size() / 4 * 3, '\0');
    int written = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(decoded.data()),
                                  reinterpret_cast<const unsigned char*>(encoded.data()),
                                  static_cast<int>(encoded.size()));
    if (written < 0) return std::nullopt;
    std::size_t padding = 0;
    if (encoded.ends_with("==")) padding = 2;
    else if (encoded.ends_with("=")) padding = 1;
    decoded.resize(static_cast<std::size_t>(written) - padding);
    auto colon = decoded.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == decoded.size()) {
        return std::nullopt;
    }
    // Client ids are visible ASCII (sbx_/live_ and hex). Other bytes cannot match a token, and
    // ones that are not UTF-8 would make the PostgreSQL lookup fail instead of answering 401.
    for (std::size_t i = 0; i < colon; ++i) {
        auto byte = static_cast<unsigned char>(decoded[i]);
        if (byte < 0x21 || byte > 0x7e) return std::nullopt;
    }
    return basic_credentials{decoded.substr(0, colon), decoded.substr(colon + 1)};
}

bool secret_matches(const std::string& presented_secret, const std::string& stored_hash) {
    std::string presented_hash = hash_secret(presented_secret);
    if (presented_hash.size() != stored_hash.size()) return false;
    return CRYPTO_memcmp(presented_hash.data(), stored_hash.data(), stored_hash.size()) == 0;
}

std::string permission_names(unsigned permissions) {
    std::string out;
    auto add = [&](unsigned bit, const char* name) {
        if (!(permissions & bit)) return;
        if (!out.empty()) out += ",";
        out += name;
    };
    add(permission_view, "VIEW");
    add(permission_transact, "TRANSACT");
    add(permission_manage, "MANAGE");
    return out;
}

}  // namespace corridor
