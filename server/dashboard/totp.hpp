#pragma once
// Time-based one-time passwords (RFC 6238): HMAC-SHA1 over the 30-second step, 6 digits. A code is
// accepted one step either side of now, and a step once used is not accepted again.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace corridor {

class random_source;

constexpr std::int64_t totp_step_seconds = 30;
constexpr int totp_digits = 6;

// The code for `step` (unix seconds / 30) from the raw key; `digits` 6 to 8.
std::string totp_code(std::string_view key, std::int64_t step, int digits = totp_digits);
// The step within +-1 of now_ms whose code is `code`, or nullopt.
std::optional<std::int64_t> totp_matching_step(std::string_view key, std::string_view code,
                                               std::int64_t now_ms);

// RFC 4648 base32 (upper case, no padding), the form authenticator apps take.
std::string base32_encode(std::string_view bytes);
std::optional<std::string> base32_decode(std::string_view text);
// A new 20-byte secret, base32.
std::string new_totp_secret(random_source& random);
// otpauth://totp/<issuer>:<account>?secret=...&issuer=..., for an authenticator app.
std::string totp_uri(std::string_view issuer, std::string_view account,
                     std::string_view secret_base32);

}  // namespace corridor
