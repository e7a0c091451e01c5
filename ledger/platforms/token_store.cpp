#include "ledger/platforms/token_store.hpp"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

#include "ledger/base/assert.hpp"
#include "ledger/store/database.hpp"
#include "ledger/base/encoding.hpp"

namespace corridor {
namespace {

constexpr std::size_t secret_bytes = 32;

struct token_row {
    std::string id, platform_id, environment, name, client_id, secret_hash;
    int permissions = 0;
    long long created_at_ms = 0, updated_at_ms = 0;

    void bind(soci::statement& statement) {
        statement.exchange(soci::into(id));
        statement.exchange(soci::into(platform_id));
        statement.exchange(soci::into(environment));
        statement.exchange(soci::into(name));
        statement.exchange(soci::into(permissions));
        statement.exchange(soci::into(client_id));
        statement.exchange(soci::into(secret_hash));
        statement.exchange(soci::into(created_at_ms));
        statement.exchange(soci::into(updated_at_ms));
    }
    api_token to_token() const {
        return api_token{id,        tenant_of_row(platform_id, environment), name, static_cast<unsigned>(permissions),
                         client_id, created_at_ms,             updated_at_ms};
    }
};

constexpr const char* token_select =
    "SELECT id, platform_id, environment, name, permissions, client_id, secret_hash, "
    "created_at_ms, updated_at_ms FROM tokens";

sql_filter live_tokens_filter(const tenant& owner) {
    sql_filter filter = tenant_filter(owner);
    filter.equals("is_deleted", std::int64_t{0});
    return filter;
}

}  // namespace

std::string hash_secret(std::string_view secret) {
    // Every authenticated request hashes its secret: fetch the algorithm once, not per call (the
    // one-shot SHA256() looks it up in the provider table each time).
    static EVP_MD* const sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    CORRIDOR_ASSERT(sha256 != nullptr);
    std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
    unsigned int digest_size = 0;
    int hashed = EVP_Digest(secret.data(), secret.size(), digest.data(), &digest_size, sha256, nullptr);
    CORRIDOR_ASSERT(hashed == 1 && digest_size == digest.size());
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(digest.size() * 2);
    for (auto byte : digest) {
        out.push_back(digits[byte >> 4]);
        out.push_back(digits[byte & 0xf]);
    }
    return out;
}

created_token create_token(soci::session& session, id_generator& ids, random_source& random,
                           const clock& time, const tenant& owner, const std::string& name,
                           unsigned permissions) {
    CORRIDOR_ASSERT(permissions != 0);
    CORRIDOR_ASSERT((permissions & ~permissions_all) == 0);
    std::vector<std::uint8_t> secret_raw(secret_bytes);
    random.fill(secret_raw);
    created_token created;
    created.client_secret =
        "cs_" + base64url_encode(std::string_view(reinterpret_cast<const char*>(secret_raw.data()),
                                                  secret_raw.size()));
    api_token& token = created.token;
    token.id = ids.next("Token");
    token.owner = owner;
    token.name = name;
    token.permissions = permissions;
    token.client_id = std::string(owner.env == environment::sandbox ? "sbx_" : "live_") +
                      random_hex(random, 16);
    token.created_at_ms = token.updated_at_ms = time.now_ms();
    std::string env_name(owner.env_name());
    std::string secret_hash = hash_secret(created.client_secret);
    int permission_bits = static_cast<int>(permissions);
    long long now_ms = token.created_at_ms;
    session << "INSERT INTO tokens (id, platform_id, environment, name, permissions, client_id, "
               "secret_hash, is_deleted, created_at_ms, updated_at_ms) VALUES (:i, :p, :e, :n, "
               ":m, :c, :h, 0, :t, :t2)",
        soci::use(token.id), soci::use(owner.platform_id), soci::use(env_name),
        soci::use(token.name), soci::use(permission_bits), soci::use(token.client_id),
        soci::use(secret_hash), soci::use(now_ms), soci::use(now_ms);
    return created;
}

page<api_token> list_tokens(soci::session& session, const tenant& owner,
                            const token_filter& filter, const page_request& request) {
    sql_filter where = live_tokens_filter(owner);
    if (filter.name) where.equals("name", *filter.name);
    if (filter.created_after_ms) where.at_least("created_at_ms", *filter.created_after_ms);
    if (filter.created_before_ms) where.at_most("created_at_ms", *filter.created_before_ms);
    if (filter.updated_after_ms) where.at_least("updated_at_ms", *filter.updated_after_ms);
    if (filter.updated_before_ms) where.at_most("updated_at_ms", *filter.updated_before_ms);
    return list_page<api_token, token_row>(session, "tokens", token_select, where, request,
                                           [](const token_row& r) { return r.to_token(); });
}

std::optional<api_token> find_token(soci::session& session, const tenant& owner,
                                    const std::string& id) {
    sql_filter where = live_tokens_filter(owner);
    where.equals("id", id);
    token_row row;
    std::optional<api_token> found;
    fetch_page(session, token_select, where, page_request{1, std::nullopt, false}, row,
               [&](const token_row& r) { found = r.to_token(); });
    return found;
}

bool delete_token(soci::session& session, const clock& time, const tenant& owner,
                  const std::string& id) {
    std::string env_name(owner.env_name());
    long long now_ms = time.now_ms();
    soci::statement statement =
        (session.prepare << "UPDATE tokens SET is_deleted = 1, updated_at_ms = :t WHERE id = :i "
                            "AND platform_id = :p AND environment = :e AND is_deleted = 0",
         soci::use(now_ms), soci::use(id), soci::use(owner.platform_id), soci::use(env_name));
    statement.execute(true);
    auto affected = statement.get_affected_rows();
    CORRIDOR_ASSERT(affected == 0 || affected == 1);
    return affected == 1;
}

std::optional<token_credentials> find_token_by_client_id(soci::session& session,
                                                         const std::string& client_id) {
    // The username of a Basic credential is any bytes a client sends. Issued client ids are short
    // ASCII ("sbx_"/"live_" and hex); anything else cannot match, and must not reach the database
    // (PostgreSQL fails a query whose parameter is not valid UTF-8).
    constexpr std::size_t client_id_chars_max = 64;
    if (client_id.empty() || client_id.size() > client_id_chars_max ||
        !std::all_of(client_id.begin(), client_id.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
        })) {
        return std::nullopt;
    }
    sql_filter where;
    where.equals("client_id", client_id);
    where.equals("is_deleted", std::int64_t{0});
    token_row row;
    std::optional<token_credentials> found;
    fetch_page(session, token_select, where, page_request{1, std::nullopt, false}, row,
               [&](const token_row& r) { found = token_credentials{r.to_token(), r.secret_hash}; });
    return found;
}

}  // namespace corridor
