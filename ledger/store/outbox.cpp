#include "ledger/store/outbox.hpp"

#include <memory>
#include <mutex>

#include "ledger/base/assert.hpp"
#include "ledger/store/deferred_writes.hpp"
#include "ledger/store/event_payloads.hpp"
#include "ledger/store/outbox_insert.hpp"
#include "ledger/store/statement_cache.hpp"

namespace corridor {

std::string_view to_string(event_purpose purpose) {
    switch (purpose) {
        case event_purpose::notify: return "NOTIFY";
        case event_purpose::test: return "TEST";
        case event_purpose::approval: return "APPROVAL";
    }
    CORRIDOR_ASSERT(false);
    return "";
}

std::string record_event(soci::session& session, id_generator& ids, const clock& time,
                         const tenant& owner, const std::string& type, const std::string& payload) {
    return record_event(session, ids, time, owner, type, payload, event_purpose::notify);
}

namespace {

thread_local bool events_pending = false;
std::mutex listener_mutex;
std::shared_ptr<const std::function<void()>> listener;

}  // namespace

void set_outbox_listener(std::function<void()> wake) {
    std::lock_guard lock(listener_mutex);
    listener = wake ? std::make_shared<const std::function<void()>>(std::move(wake)) : nullptr;
}

bool outbox_events_pending_on_this_thread() {
    return events_pending;
}

void outbox_committed_on_this_thread() {
    if (!events_pending) return;
    events_pending = false;
    std::shared_ptr<const std::function<void()>> wake;
    {
        std::lock_guard lock(listener_mutex);
        wake = listener;
    }
    if (wake) (*wake)();
}

void outbox_rolled_back_on_this_thread() {
    events_pending = false;
}

std::string record_event(soci::session& session, id_generator& ids, const clock& time,
                         const tenant& owner, const std::string& type, const std::string& payload,
                         event_purpose purpose) {
    CORRIDOR_ASSERT(!type.empty());
    CORRIDOR_ASSERT(!payload.empty() && payload.front() == '{');
    std::string id = ids.next("Webhook");
    std::string env_name(owner.env_name());
    std::string purpose_name(to_string(purpose));
    long long now_ms = time.now_ms();
    events_pending = true;
    if (deferred_writes* deferred = deferred_writes_of(session)) {
        // Nothing in a ledger batch reads its own events back: they join the batch's flush, their
        // payloads packed off the writer's thread meanwhile.
        deferred->add_event({id, owner.platform_id, env_name, type, {}, purpose_name, now_ms, {}},
                            payload);
        return id;
    }
    std::string stored = pack_event_payload(payload);
    run_prepared(session, outbox_event_insert_sql, id, owner.platform_id, env_name, type, stored,
                 now_ms, now_ms, purpose_name, now_ms, purpose_name, owner.platform_id, env_name);
    events_pending = true;
    return id;
}

}  // namespace corridor
