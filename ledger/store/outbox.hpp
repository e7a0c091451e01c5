#pragma once
// The transactional outbox: every state change writes its webhook event in the same database
// transaction, so an event exists exactly when its change committed. Delivery reads this table.
#include <soci/soci.h>

#include <cstdint>
#include <functional>
#include <string>

#include "ledger/base/clock.hpp"
#include "ledger/base/tenant.hpp"
#include "ledger/store/ids.hpp"

namespace corridor {

// How an event is delivered (outbox_events.purpose).
enum class event_purpose {
    notify,    // informational: retried with backoff for days until the endpoint answers 2xx
    test,      // TEST: sent once, never retried
    approval,  // INCOMING_PAYMENT in PENDING: sent once; the answer decides the payment
};
std::string_view to_string(event_purpose purpose);

// type: INCOMING_PAYMENT, OUTGOING_PAYMENT, ACCOUNT_STATUS, ...; payload: the event's JSON body
// fields besides the envelope (webhookId, type, timestamp), which delivery adds from the row.
// Returns the event id (Webhook:<uuid>), which is the webhookId of every attempt.
std::string record_event(soci::session& session, id_generator& ids, const clock& time,
                         const tenant& owner, const std::string& type, const std::string& payload);
std::string record_event(soci::session& session, id_generator& ids, const clock& time,
                         const tenant& owner, const std::string& type, const std::string& payload,
                         event_purpose purpose);
// A NOTIFY event whose payload `build` makes: in a ledger batch it is called off the writer's
// thread when the event packer gets to it first (so it must be a pure function of what it
// captured, owning its copies); elsewhere at once.
std::string record_built_event(soci::session& session, id_generator& ids, const clock& time,
                               const tenant& owner, const std::string& type,
                               std::function<std::string()> build);
// In the ledger writer's optimistic attempt (deferred_writes.hpp): a NOTIFY event whose payload
// `build` makes at the flush from the balance that guarded statement `slot` returns.
std::string record_late_event(soci::session& session, id_generator& ids, const clock& time,
                              const tenant& owner, const std::string& type, std::size_t slot,
                              std::function<std::string(long long balance)> build);

// Delivery is woken by commits, not found by polling: record_event marks the thread, and the
// outermost commit of a marked transaction (write_transaction::commit) calls the process's
// listener, the delivery worker's wake. On PostgreSQL that commit also sends NOTIFY on
// outbox_channel, which wakes the other processes that LISTEN on it.
inline constexpr const char* outbox_channel = "corridor_outbox";
inline constexpr const char* outbox_notify_sql = "NOTIFY corridor_outbox";
void set_outbox_listener(std::function<void()> listener);  // empty: none
bool outbox_events_pending_on_this_thread();
void outbox_committed_on_this_thread();    // calls the listener if events were recorded
void outbox_rolled_back_on_this_thread();  // forgets them

}  // namespace corridor
