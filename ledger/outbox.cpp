#include "ledger/outbox.hpp"

#include "ledger/assert.hpp"
#include "ledger/statement_cache.hpp"

namespace corridor {

std::string record_event(soci::session& session, id_generator& ids, const clock& time,
                         const tenant& owner, const std::string& type, const std::string& payload) {
    CORRIDOR_ASSERT(!type.empty());
    CORRIDOR_ASSERT(!payload.empty() && payload.front() == '{');
    std::string id = ids.next("Webhook");
    std::string env_name(owner.env_name());
    long long now_ms = time.now_ms();
    run_prepared(session,
                 "INSERT INTO outbox_events (id, platform_id, environment, type, payload, state, "
                 "attempts, next_attempt_at_ms, created_at_ms) VALUES (:i, :p, :e, :y, :b, "
                 "'PENDING', 0, :n, :t)",
                 id, owner.platform_id, env_name, type, payload, now_ms, now_ms);
    return id;
}

}  // namespace corridor
