#pragma once
// HTTP Basic authentication with a token's clientId and clientSecret.
#include <optional>
#include <string>
#include <string_view>

#include "ledger/base/tenant.hpp"
#include "ledger/platforms/token_store.hpp"

namespace corridor {

struct principal {
    std::string token_id;
    std::string client_id;
    tenant owner;
    unsigned permissions = 0;
};

struct basic_credentials {
    std::string client_id;
    std::string client_secret;
};

// Parses "Basic base64(clientId:clientSecret)"; nullopt when absent or malformed.
std::optional<basic_credentials> parse_basic_authorization(std::string_view header);

// Constant-time check of a presented secret against the stored hash.
bool secret_matches(const std::string& presented_secret, const std::string& stored_hash);

std::string permission_names(unsigned permissions);  // "VIEW,TRANSACT"

}  // namespace corridor
