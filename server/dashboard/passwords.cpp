#include "server/dashboard/passwords.hpp"

#include <argon2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <stdexcept>

#include "ledger/base/random.hpp"

namespace corridor {
namespace {

// OWASP's Argon2id baseline (19 MiB, 2 passes, 1 lane): slow enough against guessing, cheap enough
// for a sign-in on a shared database thread.
constexpr std::uint32_t argon2_memory_kib = 19 * 1024;
constexpr std::uint32_t argon2_passes = 2;
constexpr std::uint32_t argon2_lanes = 1;
constexpr std::size_t salt_bytes = 16;
constexpr std::size_t digest_bytes = 32;

const std::set<std::string, std::less<>>& common_passwords() {
    static const std::set<std::string, std::less<>> list = [] {
        std::set<std::string, std::less<>> words;
        std::string_view text = common_passwords_text();
        while (!text.empty()) {
            auto end = text.find('\n');
            std::string_view line = text.substr(0, end);
            text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
            if (!line.empty() && line.front() != '#') words.emplace(line);
        }
        return words;
    }();
    return list;
}

std::string lower(std::string_view text) {
    std::string out(text);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

bool is_common_password(std::string_view password) {
    const auto& list = common_passwords();
    std::string folded = lower(password);
    if (list.contains(folded)) return true;
    // "password2024!" is "password" with a suffix: strip trailing digits and punctuation.
    std::string stem = folded;
    while (!stem.empty() && !std::isalpha(static_cast<unsigned char>(stem.back()))) stem.pop_back();
    if (!stem.empty() && stem != folded && list.contains(stem)) return true;
    // One character repeated ("aaaaaaaaaa") or a run of digits.
    bool one_char =
        std::all_of(folded.begin(), folded.end(), [&](char c) { return c == folded[0]; });
    return one_char;
}

std::string password_problem(std::string_view password) {
    if (password.size() < password_chars_min) {
        return "must be at least " + std::to_string(password_chars_min) + " characters";
    }
    if (password.size() > password_chars_max) {
        return "must be at most " + std::to_string(password_chars_max) + " characters";
    }
    if (is_common_password(password)) return "is one of the most common passwords; choose another";
    return {};
}

std::string hash_password(random_source& random, std::string_view password) {
    std::array<std::uint8_t, salt_bytes> salt{};
    random.fill(salt);
    std::size_t encoded_size = argon2_encodedlen(argon2_passes, argon2_memory_kib, argon2_lanes,
                                                 salt_bytes, digest_bytes, Argon2_id);
    std::string encoded(encoded_size, '\0');
    int result = argon2id_hash_encoded(argon2_passes, argon2_memory_kib, argon2_lanes,
                                       password.data(), password.size(), salt.data(), salt.size(),
                                       digest_bytes, encoded.data(), encoded.size());
    if (result != ARGON2_OK) {
        throw std::runtime_error(std::string("password hashing failed: ") +
                                 argon2_error_message(result));
    }
    encoded.resize(encoded.find('\0'));
    return encoded;
}

bool verify_password(std::string_view password, const std::string& stored_hash) {
    if (stored_hash.rfind("$argon2id$", 0) != 0) return false;
    return argon2id_verify(stored_hash.c_str(), password.data(), password.size()) == ARGON2_OK;
}

}  // namespace corridor
