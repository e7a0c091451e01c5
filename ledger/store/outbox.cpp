#include "ledger/store/outbox.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "ledger/base/assert.hpp"
#include "ledger/store/deferred_writes.hpp"
#include "ledger/store/event_payloads.hpp"
#include "ledger/store/outbox_handover.hpp"
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

// The handover (outbox_handover.hpp): set and read under listener_mutex, except the room.
struct handover_target {
    std::string token;
    std::int64_t lease_ms = 0;
    std::function<void(std::vector<std::string>)> receive;
};
std::shared_ptr<const handover_target> handover;
std::atomic<std::int64_t> handover_room{0};
std::unordered_map<std::string, long long> handover_skipped;  // tenant -> until when
thread_local std::vector<std::string> leased_ids;  // this thread's transaction's, until it ends
thread_local std::size_t recorded_count = 0;       // events this thread's transaction recorded

}  // namespace

void set_outbox_handover(std::string token, std::int64_t lease_ms,
                         std::function<void(std::vector<std::string>)> receive) {
    std::lock_guard lock(listener_mutex);
    handover = receive ? std::make_shared<const handover_target>(
                             handover_target{std::move(token), lease_ms, std::move(receive)})
                       : nullptr;
    if (!handover) handover_room.store(0);
}

void set_outbox_handover_room(std::int64_t room) {
    handover_room.store(room, std::memory_order_relaxed);
}

void skip_handover_for(const std::string& platform_id, const std::string& environment,
                       long long until_ms) {
    std::lock_guard lock(listener_mutex);
    handover_skipped[platform_id + "|" + environment] = until_ms;
}

outbox_lease lease_for_handover(const std::string& event_id, const std::string& platform_id,
                                const std::string& environment, long long now_ms) {
    if (handover_room.load(std::memory_order_relaxed) <= 0) return {};
    std::shared_ptr<const handover_target> target;
    {
        std::lock_guard lock(listener_mutex);
        target = handover;
        if (!handover_skipped.empty()) {
            auto found = handover_skipped.find(platform_id + "|" + environment);
            if (found != handover_skipped.end() && found->second > now_ms) return {};
        }
    }
    if (!target || handover_room.fetch_sub(1, std::memory_order_relaxed) <= 0) return {};
    leased_ids.push_back(event_id);
    return {target->token, now_ms + target->lease_ms};
}

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
    std::shared_ptr<const handover_target> target;
    {
        std::lock_guard lock(listener_mutex);
        wake = listener;
        target = handover;
    }
    // Ids of events that a rolled-back savepoint took away may be among them: delivery reads each
    // back before sending, and finds none for those. When every event was handed over there is
    // nothing for a claim round to find: no wake-up.
    bool all_handed = target && leased_ids.size() >= recorded_count;
    if (!leased_ids.empty() && target) target->receive(std::exchange(leased_ids, {}));
    leased_ids.clear();
    recorded_count = 0;
    if (wake && !all_handed) (*wake)();
}

void outbox_rolled_back_on_this_thread() {
    events_pending = false;
    leased_ids.clear();
    recorded_count = 0;
}

namespace {

// outbox_event_insert_sql with the payload's parameter in PostgreSQL's form.
const char* outbox_event_insert_postgresql_sql() {
    static const std::string sql = [] {
        std::string text = outbox_event_insert_sql;
        std::string_view sqlite_form = outbox_event_payload_sqlite;
        text.replace(text.find(sqlite_form), sqlite_form.size(), outbox_event_payload_postgresql);
        return text;
    }();
    return sql.c_str();
}

struct tenant_key_row {
    long long key = 0;
    void bind(soci::statement& statement) { statement.exchange(soci::into(key)); }
};

// The key of the tenant whose event the ledger writer's flush writes: the one of the configuration
// a payment loaded (writer_facts), so a payment's events cost no read; for other events read once
// and remembered (a key never changes). No configuration, no event: the command fails, not the
// batch's flush.
std::int64_t event_tenant_key(soci::session& session, deferred_writes& deferred,
                              const tenant& owner) {
    writer_facts& facts = deferred.facts();
    if (std::int64_t key = facts.key_of_tenant(owner)) return key;
    std::string env_name(owner.env_name());
    tenant_key_row row;
    if (!fetch_prepared(session,
                        "SELECT tenant_key FROM platform_configs WHERE platform_id = :p AND "
                        "environment = :e",
                        row, owner.platform_id, env_name)) {
        throw std::runtime_error("webhook event for a platform environment with no configuration");
    }
    facts.saw_tenant_key(owner, row.key);
    return row.key;
}

// A NOTIFY event of `owner` for the writer's flush, its payload still to come.
deferred_event writer_event(soci::session& session, deferred_writes& deferred, std::string id,
                            const tenant& owner, const std::string& type, long long now_ms) {
    deferred_event event;
    event.id = std::move(id);
    event.platform_id = owner.platform_id;
    event.environment = std::string(owner.env_name());
    event.type = type;
    event.purpose = std::string(to_string(event_purpose::notify));
    event.created_at_ms = now_ms;
    event.tenant_key = event_tenant_key(session, deferred, owner);
    return event;
}

}  // namespace

std::string record_event(soci::session& session, id_generator& ids, const clock& time,
                         const tenant& owner, const std::string& type, const std::string& payload,
                         event_purpose purpose) {
    CORRIDOR_ASSERT(!type.empty());
    CORRIDOR_ASSERT(!payload.empty() && payload.front() == '{');
    std::string id = ids.next("Webhook");
    std::string env_name(owner.env_name());
    std::string purpose_name(to_string(purpose));
    long long now_ms = time.now_ms();
    if (deferred_writes* deferred = deferred_writes_of(session)) {
        // Nothing in a ledger batch reads its own events back: they join the batch's flush, their
        // payloads packed off the writer's thread meanwhile.
        deferred_event event = writer_event(session, *deferred, id, owner, type, now_ms);
        event.purpose = purpose_name;
        deferred->add_event(std::move(event), payload);
        events_pending = true;
        ++recorded_count;
        return id;
    }
    events_pending = true;
    ++recorded_count;
    bool postgresql = session.get_backend_name() == "postgresql";
    std::string stored = pack_event_payload(payload);
    if (postgresql) stored = event_payload_base64(stored);
    // Outside a ledger batch nothing is handed over: POST /webhooks/test claims its own event.
    std::string no_lease;
    long long no_lease_until = 0;
    run_prepared(session,
                 postgresql ? outbox_event_insert_postgresql_sql() : outbox_event_insert_sql, id,
                 owner.platform_id, env_name, type, stored, purpose_name, now_ms, no_lease,
                 no_lease_until, purpose_name, owner.platform_id, env_name);
    events_pending = true;
    return id;
}

std::string record_built_event(soci::session& session, id_generator& ids, const clock& time,
                               const tenant& owner, const std::string& type,
                               std::function<std::string()> build) {
    deferred_writes* deferred = deferred_writes_of(session);
    if (!deferred) return record_event(session, ids, time, owner, type, build());
    CORRIDOR_ASSERT(!type.empty());
    std::string id = ids.next("Webhook");
    deferred->add_event(writer_event(session, *deferred, id, owner, type, time.now_ms()),
                        std::move(build));
    events_pending = true;
    ++recorded_count;
    return id;
}

std::string record_late_event(soci::session& session, id_generator& ids, const clock& time,
                              const tenant& owner, const std::string& type, std::size_t slot,
                              std::function<std::string(long long balance)> build) {
    deferred_writes* deferred = deferred_writes_of(session);
    CORRIDOR_ASSERT(deferred != nullptr && !type.empty());
    std::string id = ids.next("Webhook");
    deferred_event event = writer_event(session, *deferred, id, owner, type, time.now_ms());
    events_pending = true;
    event.late_payload = std::move(build);
    event.late_slot = slot;
    deferred->add_late_event(std::move(event));
    return id;
}

}  // namespace corridor
