#include "ledger/idempotency.hpp"

#include "ledger/assert.hpp"

namespace corridor {

std::optional<stored_response> find_idempotent_response(soci::session& session,
                                                        const tenant& owner,
                                                        const std::string& key) {
    stored_response stored;
    std::string env_name(owner.env_name());
    soci::indicator found = soci::i_null;
    session << "SELECT request_hash, status, response_body FROM idempotency_keys WHERE "
               "platform_id = :p AND environment = :e AND idempotency_key = :k",
        soci::use(owner.platform_id), soci::use(env_name), soci::use(key),
        soci::into(stored.request_hash, found), soci::into(stored.status), soci::into(stored.body);
    if (!session.got_data() || found != soci::i_ok) return std::nullopt;
    return stored;
}

void store_idempotent_response(soci::session& session, const tenant& owner, const std::string& key,
                               const stored_response& response, std::int64_t now_ms) {
    CORRIDOR_ASSERT(response.status >= 200 && response.status < 500);
    CORRIDOR_ASSERT(!key.empty() && key.size() <= idempotency_key_chars_max);
    std::string env_name(owner.env_name());
    long long created_ms = now_ms;
    session << "INSERT INTO idempotency_keys (platform_id, environment, idempotency_key, "
               "request_hash, status, response_body, created_at_ms) VALUES (:p, :e, :k, :h, :s, "
               ":b, :t)",
        soci::use(owner.platform_id), soci::use(env_name), soci::use(key),
        soci::use(response.request_hash), soci::use(response.status), soci::use(response.body),
        soci::use(created_ms);
}

std::int64_t prune_idempotency_keys(soci::session& session, std::int64_t older_than_ms) {
    long long cutoff = older_than_ms;
    soci::statement statement =
        (session.prepare << "DELETE FROM idempotency_keys WHERE created_at_ms < :t", soci::use(cutoff));
    statement.execute(true);
    return statement.get_affected_rows();
}

}  // namespace corridor
