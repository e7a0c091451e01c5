#pragma once
// API tokens: HTTP Basic credentials scoped to one platform environment. The secret is 32 random
// bytes shown once at creation; only its SHA-256 is stored (a high-entropy secret needs no slow KDF,
// and a plain hash keeps authentication cheap).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <soci/soci.h>

#include "ledger/base/clock.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/store/page.hpp"
#include "ledger/base/random.hpp"
#include "ledger/base/tenant.hpp"

namespace corridor {

enum permission : unsigned {
    permission_view = 1u << 0,
    permission_transact = 1u << 1,
    permission_manage = 1u << 2,
};
constexpr unsigned permissions_all = permission_view | permission_transact | permission_manage;

struct api_token {
    std::string id;  // Token:<uuid>
    tenant owner;
    std::string name;
    unsigned permissions = 0;
    std::string client_id;
    std::int64_t created_at_ms = 0;
    std::int64_t updated_at_ms = 0;
};

struct created_token {
    api_token token;
    std::string client_secret;  // returned once, never stored
};

struct token_credentials {
    api_token token;
    std::string secret_hash;  // hex SHA-256 of the secret
};

struct token_filter {
    std::optional<std::string> name;
    std::optional<std::int64_t> created_after_ms, created_before_ms;
    std::optional<std::int64_t> updated_after_ms, updated_before_ms;
};

std::string hash_secret(std::string_view secret);

created_token create_token(soci::session& session, id_generator& ids, random_source& random,
                           const clock& time, const tenant& owner, const std::string& name,
                           unsigned permissions);
page<api_token> list_tokens(soci::session& session, const tenant& owner,
                            const token_filter& filter, const page_request& request);
std::optional<api_token> find_token(soci::session& session, const tenant& owner,
                                    const std::string& id);
// Marks the token deleted; false when no live token of this tenant has that id.
bool delete_token(soci::session& session, const clock& time, const tenant& owner,
                  const std::string& id);
std::optional<token_credentials> find_token_by_client_id(soci::session& session,
                                                         const std::string& client_id);

}  // namespace corridor
