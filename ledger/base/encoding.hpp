#pragma once
// base64url (RFC 4648 section 5) without padding: opaque cursors and generated secrets.
#include <optional>
#include <string>
#include <string_view>

namespace corridor {

std::string base64url_encode(std::string_view data);
// Only the canonical encoding decodes; up to 512 characters.
std::optional<std::string> base64url_decode(std::string_view text);

}  // namespace corridor
