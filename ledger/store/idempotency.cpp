#include "ledger/store/idempotency.hpp"

#include "ledger/base/assert.hpp"
#include "ledger/store/statement_cache.hpp"

namespace corridor {

std::optional<stored_response> find_idempotent_response(soci::session& session,
                                                        const tenant& owner,
                                                        const std::string& key) {
    struct response_row {
        stored_response stored;
        soci::indicator found = soci::i_null;
        void bind(soci::statement& statement) {
            statement.exchange(soci::into(stored.request_hash, found));
            statement.exchange(soci::into(stored.status));
            statement.exchange(soci::into(stored.body));
        }
    };
    std::string env_name(owner.env_name());
    response_row row;
    if (!fetch_prepared(session,
                        "SELECT request_hash, status, response_body FROM idempotency_keys WHERE "
                        "platform_id = :p AND environment = :e AND idempotency_key = :k",
                        row, owner.platform_id, env_name, key) ||
        row.found != soci::i_ok) {
        return std::nullopt;
    }
    return std::move(row.stored);
}

void store_idempotent_response(soci::session& session, const tenant& owner, const std::string& key,
                               const stored_response& response, std::int64_t now_ms) {
    CORRIDOR_ASSERT(response.status >= 200 && response.status < 500);
    CORRIDOR_ASSERT(!key.empty() && key.size() <= idempotency_key_chars_max);
    std::string env_name(owner.env_name());
    long long created_ms = now_ms;
    run_prepared(session,
                 "INSERT INTO idempotency_keys (platform_id, environment, idempotency_key, "
                 "request_hash, status, response_body, created_at_ms) VALUES (:p, :e, :k, :h, :s, "
                 ":b, :t)",
                 owner.platform_id, env_name, key, response.request_hash, response.status,
                 response.body, created_ms);
}

std::int64_t prune_idempotency_keys(soci::session& session, std::int64_t older_than_ms) {
    long long cutoff = older_than_ms;
    soci::statement statement =
        (session.prepare << "DELETE FROM idempotency_keys WHERE created_at_ms < :t", soci::use(cutoff));
    statement.execute(true);
    return statement.get_affected_rows();
}

}  // namespace corridor
