#include "ledger/base/encoding.hpp"

#include <openssl/evp.h>

#include <cctype>

namespace corridor {

std::string base64url_encode(std::string_view data) {
    std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
    int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(data.data()),
                                  static_cast<int>(data.size()));
    out.resize(static_cast<std::size_t>(written));
    for (auto& c : out) {
        if (c == '+') c = '-';
        if (c == '/') c = '_';
    }
    while (!out.empty() && out.back() == '=') out.pop_back();
    return out;
}

std::optional<std::string> base64url_decode(std::string_view text) {
    if (text.empty() || text.size() > 512) return std::nullopt;
    std::string padded(text);
    for (auto& c : padded) {
        if (c == '-') c = '+';
        else if (c == '_') c = '/';
        else if (!std::isalnum(static_cast<unsigned char>(c))) return std::nullopt;
    }
    while (padded.size() % 4 != 0) padded.push_back('=');
    std::string out(padded.size() / 4 * 3, '\0');
    int written = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(padded.data()),
                                  static_cast<int>(padded.size()));
    if (written < 0) return std::nullopt;
    std::size_t padding = padded.size() - text.size();
    if (padding > 2) return std::nullopt;  // one character left over encodes no whole byte
    out.resize(static_cast<std::size_t>(written) - padding);
    // Only the canonical encoding is ours: unused trailing bits set, or extra characters that the
    // padding hides, mean the text was not made by base64url_encode.
    if (base64url_encode(out) != text) return std::nullopt;
    return out;
}

}  // namespace corridor
