#pragma once
// Webhook delivery bookkeeping: the retry policy, claiming due events from the outbox so that any
// number of processes can deliver without sending one event twice at once, recording each attempt,
// and listing attempts for the platform. No I/O here: the server sends and reports back.
#include <soci/soci.h>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "ledger/base/clock.hpp"
#include "ledger/base/random.hpp"
#include "ledger/base/tenant.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/store/outbox.hpp"
#include "ledger/store/page.hpp"

namespace corridor {

struct retry_policy {
    std::int64_t initial_interval_ms = 5000;        // wait after the first failed attempt; doubles
    std::int64_t interval_max_ms = 30 * 60 * 1000;  // the doubling stops here
    std::int64_t max_age_ms = 7LL * 24 * 3600 * 1000;  // no attempt later than this after the event
    std::int64_t lease_ms = 60000;  // a claimed delivery is due again after this (a crashed sender)
};

// The wait before the next attempt after `attempts_done` (>= 1) failed attempts.
std::int64_t retry_delay_ms(const retry_policy& policy, int attempts_done);

struct delivery_verdict {
    std::string state;                    // the event's state now: PENDING, DELIVERED, FAILED
    std::string outcome;                  // the attempt's: SUCCEEDED, RETRY_SCHEDULED, GAVE_UP
    std::int64_t next_attempt_at_ms = 0;  // when state is PENDING
};

// What an attempt's answer means. response_status 0 = no answer (unreachable, timed out, refused).
// 2xx delivers; 409 (the receiver already has it), TEST and APPROVAL events are never retried;
// otherwise the next attempt waits retry_delay_ms, unless it would fall past max_age_ms.
delivery_verdict judge_attempt(const retry_policy& policy, event_purpose purpose, int attempts_done,
                               std::int64_t created_at_ms, std::int64_t now_ms,
                               int response_status);

struct claimed_delivery {
    std::string id;  // Webhook:<uuid>, the webhookId of every attempt
    tenant owner;
    std::string type, payload;
    event_purpose purpose = event_purpose::notify;
    int attempt = 0;  // this attempt's number, from 1
    std::int64_t created_at_ms = 0, claimed_at_ms = 0;
    std::string claim_token;      // empty: held in memory by the reader (read_due_deliveries)
    std::string url;              // the platform's webhook endpoint at claim time
    std::string private_key_pem;  // the tenant's signing key at claim time
    // A TEST or APPROVAL event whose one attempt was started by a process that died: it is not sent
    // again, only recorded as failed.
    bool interrupted = false;
};

// Claims up to `limit` due events (PENDING, next_attempt_at_ms <= now), oldest due first: each
// becomes due again only after the lease. Events of a tenant whose endpoint is gone are closed as
// NO_ENDPOINT (outbox_insert.hpp). Runs in the caller's transaction (FOR UPDATE SKIP LOCKED on PG).
std::vector<claimed_delivery> claim_due_deliveries(soci::session& session, const clock& time,
                                                   random_source& random,
                                                   const retry_policy& policy, int limit);
// A place in the order in which due events are read (read_due_deliveries): their due time, then
// their id (uuid v7: the order in which they were made).
struct due_position {
    std::int64_t next_attempt_at_ms = 0;
    std::string id;  // Webhook:<uuid>
    friend bool operator<(const due_position& a, const due_position& b) {
        return std::tie(a.next_attempt_at_ms, a.id) < std::tie(b.next_attempt_at_ms, b.id);
    }
};

struct due_read {
    std::vector<claimed_delivery> claimed;
    std::optional<due_position> last;  // the last event read; empty when none was
    bool reached_end = false;          // fewer due events were left than the read asked for
};

// Reads up to `limit` due events (PENDING, next_attempt_at_ms <= now) in the order of
// due_position, after `after` (from the first when empty), passing over those in `held`, and
// makes claims that only the caller holds: for a NOTIFY event no lease holds, nothing is written
// (claim_token empty), so the move that records its answer (finish_deliveries) is its one write and
// counts its attempt. TEST and APPROVAL events (sent once) and events whose lease ran out (their
// process died) are claimed in the database as claim_due_deliveries does. The caller must be the
// only one reading so (SQLite: the one process; PostgreSQL: the holder of the backlog's lock, see
// delivery_worker.hpp), must pass what it holds in `held` while any of it may lie after `after`,
// and must not hold an event past its attempt: once recorded or given back, it is due again.
due_read read_due_deliveries(soci::session& session, const clock& time, random_source& random,
                             const retry_policy& policy, const std::optional<due_position>& after,
                             const std::unordered_set<std::string>& held, int limit);

// Claims one event by id whatever its due time (POST /webhooks/test sends its event at once).
std::optional<claimed_delivery> claim_delivery(soci::session& session, const clock& time,
                                               random_source& random, const retry_policy& policy,
                                               const std::string& event_id);

// Events handed over to this process at their commit (ledger/store/outbox_handover.hpp), read back
// for sending: those of `ids` that are PENDING and still leased under `token`, oldest first, each
// with its tenant's endpoint and key (attempt 1, claimed when it was written); and the tenants of
// those written closed for want of an endpoint. It writes nothing but a due next signing key's
// promotion (as a claim would): an event whose endpoint has been removed since is left to its
// lease, after which a claim closes it. (handed_over.cpp)
struct handed_over_events {
    std::vector<claimed_delivery> claimed;
    std::vector<tenant> without_endpoint;
};
handed_over_events read_handed_over(soci::session& session, const clock& time,
                                    const std::string& token, const std::vector<std::string>& ids);

// Gives back claims that were never sent (a process stopping with deliveries still queued, or
// held past their time): each event is due at once again, its attempt count and first attempt
// time as before the claim. Only while the claim still holds the event (its token matches).
// Returns how many events were given back.
std::int64_t release_deliveries(soci::session& session, const clock& time,
                                const std::vector<claimed_delivery>& unsent);

// The exact bytes sent: {"webhookId", "type", "timestamp" (this attempt's time), ...payload}.
std::string webhook_body(const claimed_delivery& delivery, std::int64_t now_ms);

struct attempt_report {
    std::int64_t attempted_at_ms = 0;
    std::int64_t latency_ms = 0;
    int response_status = 0;       // 0: no HTTP answer
    std::string error;             // why there was no answer, or what was wrong with it
    std::string response_excerpt;  // the start of the body, at most attempt_excerpt_bytes
};
constexpr std::size_t attempt_excerpt_bytes = 1024;

// A round's finished attempts: recorded in one statement, their events moved in another.
struct finished_attempt {
    const claimed_delivery* delivery = nullptr;
    const attempt_report* report = nullptr;
};
std::vector<delivery_verdict> finish_deliveries(soci::session& session, id_generator& ids,
                                                const clock& time, const retry_policy& policy,
                                                const std::vector<finished_attempt>& finished);
// Records the attempt and moves the event on per judge_attempt (finish_deliveries of one). The
// event row changes only while this claim still holds it (the claim token matches); the attempt is
// recorded either way.
delivery_verdict finish_delivery(soci::session& session, id_generator& ids, const clock& time,
                                 const retry_policy& policy, const claimed_delivery& delivery,
                                 const attempt_report& report);

struct delivery_attempt {
    std::string id;  // WebhookAttempt:<uuid>
    tenant owner;
    std::string event_id, event_type;
    int attempt = 0;
    std::string url;
    std::int64_t attempted_at_ms = 0, latency_ms = 0;
    int response_status = 0;
    std::string outcome, error, response_excerpt;
    std::int64_t next_attempt_at_ms = 0;  // 0 unless RETRY_SCHEDULED
};

struct delivery_attempt_filter {
    std::optional<std::string> event_id, event_type, outcome;
};
page<delivery_attempt> list_delivery_attempts(soci::session& session, const tenant& owner,
                                              const delivery_attempt_filter& filter,
                                              const page_request& request);

// Deletes up to `limit` finished events (DELIVERED, FAILED: given up or a TEST/APPROVAL sent once,
// NO_ENDPOINT) recorded before `recorded_before_ms`, oldest first, all tenants, with their
// delivery attempts; PENDING events are never touched. Returns the number of events deleted.
// Bounded so that the ledger writer running it is never held long; call again while it returns
// `limit`.
std::int64_t prune_finished_events(soci::session& session, std::int64_t recorded_before_ms,
                                   int limit);

// Queues a finished NOTIFY event of the tenant (delivered, given up, or closed for want of an
// endpoint) for one more attempt now; its attempts go on counting. False when the tenant has no
// such event, or it is still pending, or `event_id` is not a webhook id (Webhook:<uuid>).
bool resend_webhook_event(soci::session& session, const clock& time, const tenant& owner,
                          const std::string& event_id);

// Events waiting for an attempt (PENDING), all tenants: the queue depth.
std::int64_t pending_delivery_count(soci::session& session);

}  // namespace corridor
