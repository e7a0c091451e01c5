#include "ledger/webhooks/webhook_deliveries.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "ledger/base/assert.hpp"
#include "ledger/base/random.hpp"
#include "ledger/base/time_format.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/platforms/webhook_keys.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/deferred_writes.hpp"
#include "ledger/store/event_payloads.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/store/multi_row.hpp"
#include "ledger/store/native_connection.hpp"
#include "ledger/store/sqlite_rows.hpp"
#include "ledger/store/statement_cache.hpp"
#include "ledger/store/tenant_keys.hpp"
#include "ledger/webhooks/delivery_facts.hpp"

namespace corridor {
namespace {

long long int64_at(const soci::row& row, std::size_t index) {
    switch (row.get_properties(index).get_data_type()) {
        case soci::dt_integer: return row.get<int>(index);
        case soci::dt_long_long: return row.get<long long>(index);
        case soci::dt_unsigned_long_long:
            return static_cast<long long>(row.get<unsigned long long>(index));
        case soci::dt_double: return static_cast<long long>(row.get<double>(index));
        default: return std::stoll(row.get<std::string>(index));
    }
}

// Reads the due row set into claims; endpoint and key looked up once per tenant.
class claimer {
public:
    claimer(soci::session& session, const clock& time, random_source& random,
            const retry_policy& policy)
        : session_(session),
          time_(time),
          random_(random),
          policy_(policy),
          now_ms_(time.now_ms()),
          facts_(session, time) {}

    // `round_token`: the event was already claimed by the round's one statement with this token.
    void take(claimed_delivery claim, int attempts_before, std::vector<claimed_delivery>& out,
              const std::string* round_token = nullptr) {
        claim.claimed_at_ms = now_ms_;
        claim.attempt = attempts_before + 1;
        claim.interrupted = claim.purpose != event_purpose::notify && attempts_before > 0;
        const auto& facts = facts_.of(claim.owner);
        if (facts.url.empty() && claim.purpose == event_purpose::notify) {
            unsendable_.push_back(claim.id);  // closed together by close_unsendable
            return;
        }
        claim.url = facts.url;
        claim.private_key_pem = facts.private_key_pem;
        if (round_token) {
            claim.claim_token = *round_token;
            out.push_back(std::move(claim));
            return;
        }
        claim.claim_token = random_hex(random_, 16);
        long long lease_until = now_ms_ + policy_.lease_ms, now = now_ms_;
        // Prepared once per session: the hot statements of delivery run thousands of times a
        // second.
        run_prepared(session_,
                     "UPDATE outbox_events SET attempts = attempts + 1, next_attempt_at_ms = :l, "
                     "claim_token = :c, first_attempt_at_ms = COALESCE(first_attempt_at_ms, :n) "
                     "WHERE id = packed_id(:i)",
                     lease_until, claim.claim_token, now, claim.id);
        out.push_back(std::move(claim));
    }

    // Closes the events taken whose tenant has no endpoint: the endpoint was removed after they
    // were written, or they were resent without one (written without one, they are closed already,
    // see outbox_insert.hpp, and never come here).
    // On PostgreSQL all of them in one statement, which in the ledger writer's batch waits for
    // its flush (nothing reads them before the commit: the rows are locked, and one claim runs per
    // batch); on SQLite the prepared statement once per event.
    // `claimed`: the round's statement already counted an attempt and set a lease for them; both
    // are taken back (an event's first attempt time is set with its first counted attempt, and a
    // finished event is due at its finishing time, as every finished event is).
    void close_unsendable(bool claimed = false) {
        if (unsendable_.empty()) return;
        long long now = now_ms_;
        if (backend_of(session_) == database_backend::sqlite) {
            for (const auto& id : unsendable_) {
                if (claimed) {
                    run_prepared(session_,
                                 "UPDATE outbox_events SET state = 'NO_ENDPOINT', finished_at_ms = "
                                 ":f, next_attempt_at_ms = :g, claim_token = NULL, attempts = "
                                 "attempts - 1, first_attempt_at_ms = CASE WHEN attempts = 1 "
                                 "THEN NULL ELSE first_attempt_at_ms END WHERE id = packed_id(:i)",
                                 now, now, id);
                } else {
                    run_prepared(session_,
                                 "UPDATE outbox_events SET state = 'NO_ENDPOINT', finished_at_ms = "
                                 ":f, claim_token = NULL WHERE id = packed_id(:i)",
                                 now, id);
                }
            }
        } else if (deferred_writes* deferred = deferred_writes_of(session_)) {
            deferred->add_statement(
                {claimed ? "UPDATE outbox_events SET state = 'NO_ENDPOINT', finished_at_ms = $1, "
                           "next_attempt_at_ms = $1, claim_token = NULL, attempts = attempts - 1, "
                           "first_attempt_at_ms = "
                           "CASE WHEN attempts = 1 THEN NULL ELSE first_attempt_at_ms END WHERE "
                           "id = ANY(ARRAY(SELECT packed_id(i) FROM unnest($2::text[]) i))"
                         : "UPDATE outbox_events SET state = 'NO_ENDPOINT', "
                           "finished_at_ms = $1, claim_token = NULL WHERE id = ANY(ARRAY(SELECT "
                           "packed_id(i) FROM unnest($2::text[]) i))",
                 {std::to_string(now), postgres_array_literal(unsendable_)}});
        } else if (claimed) {
            run_prepared(session_,
                         "UPDATE outbox_events SET state = 'NO_ENDPOINT', finished_at_ms = :f, "
                         "next_attempt_at_ms = :g, claim_token = NULL, attempts = attempts - 1, "
                         "first_attempt_at_ms = CASE WHEN attempts = 1 THEN NULL ELSE "
                         "first_attempt_at_ms END WHERE id = ANY(ARRAY(SELECT packed_id(i) FROM "
                         "unnest(CAST(:i AS text[])) i))",
                         now, now, postgres_array_literal(unsendable_));
        } else {
            run_prepared(session_,
                         "UPDATE outbox_events SET state = 'NO_ENDPOINT', finished_at_ms = :f, "
                         "claim_token = NULL WHERE id = ANY(ARRAY(SELECT packed_id(i) FROM "
                         "unnest(CAST(:i AS text[])) i))",
                         now, postgres_array_literal(unsendable_));
        }
        unsendable_.clear();
    }

private:
    soci::session& session_;
    const clock& time_;
    random_source& random_;
    const retry_policy& policy_;
    std::int64_t now_ms_;
    tenant_delivery_facts_cache facts_;
    std::vector<std::string> unsendable_;
};

// An event's tenant is its key's (migration 44): platform_configs joined on it. Its id is stored
// as 16 bytes (migration 47): typed_id gives it back as text, packed_id packs a bound one.
constexpr const char* due_columns =
    "SELECT typed_id('Webhook', o.id), c.platform_id, c.environment, o.type, o.payload, o.purpose, "
    "o.attempts, "
    "o.created_at_ms FROM outbox_events o JOIN platform_configs c ON c.tenant_key = o.tenant_key ";

}  // namespace

std::int64_t retry_delay_ms(const retry_policy& policy, int attempts_done) {
    CORRIDOR_ASSERT(attempts_done >= 1);
    std::int64_t delay = policy.initial_interval_ms;
    for (int i = 1; i < attempts_done && delay < policy.interval_max_ms; ++i) delay *= 2;
    return std::min(delay, policy.interval_max_ms);
}

delivery_verdict judge_attempt(const retry_policy& policy, event_purpose purpose, int attempts_done,
                               std::int64_t created_at_ms, std::int64_t now_ms,
                               int response_status) {
    if (response_status >= 200 && response_status < 300) return {"DELIVERED", "SUCCEEDED", 0};
    if (purpose != event_purpose::notify || response_status == 409) return {"FAILED", "GAVE_UP", 0};
    std::int64_t next_ms = now_ms + retry_delay_ms(policy, attempts_done);
    if (next_ms - created_at_ms > policy.max_age_ms) return {"FAILED", "GAVE_UP", 0};
    return {"PENDING", "RETRY_SCHEDULED", next_ms};
}

namespace {

std::pair<claimed_delivery, int> due_from_row(const soci::row& row) {
    claimed_delivery claim;
    claim.id = row.get<std::string>(0);
    claim.owner = tenant_of_row(row.get<std::string>(1), row.get<std::string>(2));
    claim.type = row.get<std::string>(3);
    claim.payload = unpack_event_payload(row.get<std::string>(4));
    claim.purpose = purpose_from(row.get<std::string>(5));
    int attempts_before = static_cast<int>(int64_at(row, 6));
    claim.created_at_ms = int64_at(row, 7);
    return {std::move(claim), attempts_before};
}

// SQLite: the round's claim statement, kept prepared for the session. Rounds run on the ledger
// writer there, one per commit that recorded events under load; parsing and planning the UPDATE
// each time cost about 2% of the writer's time. Read through the library, as soci's rowset would.
// SQLite's RETURNING cannot name an UPDATE's FROM table: the tenant by its key in subqueries.
const std::string claim_due_sqlite_sql =
    "UPDATE outbox_events SET attempts = attempts + 1, next_attempt_at_ms = ?1, claim_token = ?2, "
    "first_attempt_at_ms = COALESCE(first_attempt_at_ms, ?3) WHERE id IN (SELECT id FROM "
    "outbox_events WHERE state = 'PENDING' AND next_attempt_at_ms <= ?3 ORDER BY "
    "next_attempt_at_ms LIMIT ?4) RETURNING typed_id('Webhook', id), (SELECT c.platform_id FROM "
    "platform_configs c "
    "WHERE c.tenant_key = outbox_events.tenant_key), (SELECT c.environment FROM platform_configs "
    "c WHERE c.tenant_key = outbox_events.tenant_key), type, payload, purpose, attempts, "
    "created_at_ms";

std::string column_bytes(sqlite_api::sqlite3_stmt* handle, int column) {
    // The bytes of a TEXT or a BLOB value alike (a stored payload is either, see event_payloads).
    const void* data = sqlite_api::sqlite3_column_blob(handle, column);
    int size = sqlite_api::sqlite3_column_bytes(handle, column);
    return data ? std::string(static_cast<const char*>(data), static_cast<std::size_t>(size))
                : std::string();
}

std::pair<claimed_delivery, int> due_from_sqlite(sqlite_api::sqlite3_stmt* handle) {
    claimed_delivery claim;
    claim.id = column_bytes(handle, 0);
    claim.owner = tenant_of_row(column_bytes(handle, 1), column_bytes(handle, 2));
    claim.type = column_bytes(handle, 3);
    claim.payload = unpack_event_payload(column_bytes(handle, 4));
    claim.purpose = purpose_from(column_bytes(handle, 5));
    int attempts_before = static_cast<int>(sqlite_api::sqlite3_column_int64(handle, 6));
    claim.created_at_ms = sqlite_api::sqlite3_column_int64(handle, 7);
    return {std::move(claim), attempts_before};
}

// Steps a kept statement whose parameters are bound to its end, passing each row to `take`, then
// resets it and clears its bindings (they belong to the caller). When `take` throws (a payload
// that does not unpack) the statement still runs to its end (an UPDATE's claims are the
// transaction's, which the caller's failure rolls back) and is kept; a failing step forgets it.
template <class Take>
void step_to_end(soci::session& session, kept_sqlite_statement& kept, const char* what, Take take) {
    auto* handle = static_cast<sqlite_api::sqlite3_stmt*>(kept.handle());
    count_round_trip();
    int rc = SQLITE_ROW;
    try {
        while ((rc = sqlite_api::sqlite3_step(handle)) == SQLITE_ROW) take(handle);
    } catch (...) {
        while (sqlite_api::sqlite3_step(handle) == SQLITE_ROW) {
        }
        sqlite_api::sqlite3_reset(handle);
        sqlite_api::sqlite3_clear_bindings(handle);
        throw;
    }
    if (rc == SQLITE_DONE) {
        sqlite_api::sqlite3_reset(handle);
        sqlite_api::sqlite3_clear_bindings(handle);
        return;
    }
    soci::sqlite3_soci_error error = sqlite_failure(sqlite_connection(session), what);
    kept.forget();
    throw error;
}

void claim_due_sqlite(soci::session& session, long long lease_until, const std::string& token,
                      long long now, int limit,
                      std::vector<std::pair<claimed_delivery, int>>& due) {
    kept_sqlite_statement kept(session, claim_due_sqlite_sql);
    auto* handle = static_cast<sqlite_api::sqlite3_stmt*>(kept.handle());
    sqlite_api::sqlite3_bind_int64(handle, 1, lease_until);
    sqlite_api::sqlite3_bind_text(handle, 2, token.data(), static_cast<int>(token.size()),
                                  SQLITE_STATIC);
    sqlite_api::sqlite3_bind_int64(handle, 3, now);
    sqlite_api::sqlite3_bind_int64(handle, 4, limit);
    step_to_end(session, kept, "claiming due deliveries",
                [&due](sqlite_api::sqlite3_stmt* row) { due.push_back(due_from_sqlite(row)); });
}

// The rows the round's statement claimed under `token`, as claims.
std::vector<claimed_delivery> claim_due(soci::session& session, const clock& time,
                                        random_source& random, const retry_policy& policy,
                                        const std::string& token,
                                        std::vector<std::pair<claimed_delivery, int>>& due) {
    // Oldest first, as they were recorded (RETURNING has no order). Events of one change share
    // their millisecond; their ids (uuid v7, monotonic within the process that made them) keep
    // the order in which they were recorded, so PENDING goes out before COMPLETED.
    std::sort(due.begin(), due.end(), [](const auto& a, const auto& b) {
        return std::tie(a.first.created_at_ms, a.first.id) <
               std::tie(b.first.created_at_ms, b.first.id);
    });
    std::vector<claimed_delivery> claimed;
    claimer claims(session, time, random, policy);
    for (auto& [claim, attempts_now] : due)
        claims.take(std::move(claim), attempts_now - 1, claimed, &token);
    claims.close_unsendable(true);
    return claimed;
}

}  // namespace

std::vector<claimed_delivery> claim_due_deliveries(soci::session& session, const clock& time,
                                                   random_source& random,
                                                   const retry_policy& policy, int limit) {
    CORRIDOR_ASSERT(limit > 0);
    long long now = time.now_ms(), lease_until = now + policy.lease_ms;
    // The round's due events are claimed by one statement, under one token: SQLite builds the
    // subquery's id list before it updates a row (so moving next_attempt_at_ms cannot bring a row
    // round again), and PostgreSQL skips rows another process holds instead of waiting for them;
    // SQLite has one writer at a time, so the write transaction around this is exclusive there.
    std::string token = random_hex(random, 16);
    std::vector<std::pair<claimed_delivery, int>> due;
    if (backend_of(session) == database_backend::sqlite) {
        claim_due_sqlite(session, lease_until, token, now, limit, due);
        return claim_due(session, time, random, policy, token, due);
    }
    std::string sql =
        "UPDATE outbox_events o SET attempts = o.attempts + 1, next_attempt_at_ms = :l, "
        "claim_token = :c, first_attempt_at_ms = COALESCE(o.first_attempt_at_ms, :n) FROM "
        "platform_configs t WHERE t.tenant_key = o.tenant_key AND o.id = ANY(ARRAY(SELECT id FROM "
        "outbox_events WHERE state = 'PENDING' AND next_attempt_at_ms <= :d ORDER BY "
        "next_attempt_at_ms LIMIT :m FOR UPDATE SKIP LOCKED)) RETURNING typed_id('Webhook', o.id), "
        "t.platform_id, "
        "t.environment, o.type, o.payload, o.purpose, o.attempts, o.created_at_ms";
    // PostgreSQL plans this from statistics taken before a backlog (autovacuum analyses after the
    // fact), which count few PENDING rows: it then reads every due row by a bitmap scan and sorts
    // them all for the LIMIT (11 ms a round at 25,000 due, against 0.3 ms for the walk of
    // outbox_events_due in its order, which stops at the LIMIT). Delivery's own connection, where
    // the rounds run, has bitmap scans off (server/workers/delivery_connection.cpp), which leaves
    // that walk as the plan; setting it here for each claim cost two more round trips a round. (A
    // round on the ledger writer, one with an approval answer, keeps the planner's choice.)
    // The claimed ids come as an array (= ANY of the subquery's ARRAY), so the rows are fetched by
    // their primary key: as `IN (subquery)` the planner joined the round's few hundred ids with a
    // sequential scan of the whole outbox, delivered events included (13.6 against 3.3 ms a round
    // of 476 at 40,000 events, growing with the retention).
    {
        soci::rowset<soci::row> rows =
            (session.prepare << sql, soci::use(lease_until), soci::use(token), soci::use(now),
             soci::use(now), soci::use(limit));
        for (const auto& row : rows) due.push_back(due_from_row(row));
    }
    return claim_due(session, time, random, policy, token, due);
}

namespace {

// A due event as read_due_deliveries reads it: the claim's columns, its place, whether a lease
// holds it.
struct due_row {
    std::pair<claimed_delivery, int> claim;
    due_position position;
    bool leased = false;
};

// The due events from a place in their order: outbox_events_due (migration 53) is that order, so
// the inner scan starts at the place and stops at the LIMIT; the tenant is joined to the rows it
// returned, by its key as in due_columns. Joined in one query, the planner, with statistics from
// before a backlog (a few PENDING events), hashed the join and sorted every due event for the
// LIMIT: 22-50 ms a round at 80,000 due against under 1 ms for the walk that stops at the LIMIT.
constexpr const char* due_in_order_sql =
    "SELECT typed_id('Webhook', o.id), c.platform_id, c.environment, o.type, o.payload, "
    "o.purpose, o.attempts, o.created_at_ms, o.next_attempt_at_ms, CASE WHEN o.claim_token IS "
    "NULL THEN 0 ELSE 1 END FROM (SELECT * FROM outbox_events WHERE state = 'PENDING' AND "
    "next_attempt_at_ms <= ";
constexpr const char* after_place_sql = "AND (next_attempt_at_ms, id) > ";
constexpr const char* in_order_sql = "ORDER BY next_attempt_at_ms, id LIMIT ";
constexpr const char* tenant_join_sql =
    ") o JOIN platform_configs c ON c.tenant_key = o.tenant_key ORDER BY o.next_attempt_at_ms, "
    "o.id";
const std::string due_from_first_sql =
    std::string(due_in_order_sql) + ":n " + in_order_sql + ":l" + tenant_join_sql;
const std::string due_after_sql = std::string(due_in_order_sql) + ":n " + after_place_sql +
                                  "(:m, packed_id(:i)) " + in_order_sql + ":l" + tenant_join_sql;
// SQLite: the same, kept prepared (the reads run on its ledger writer), numbered parameters.
const std::string due_from_first_sqlite_sql =
    std::string(due_in_order_sql) + "?1 " + in_order_sql + "?4" + tenant_join_sql;
const std::string due_after_sqlite_sql = std::string(due_in_order_sql) + "?1 " + after_place_sql +
                                         "(?2, packed_id(?3)) " + in_order_sql + "?4" +
                                         tenant_join_sql;

void read_due_sqlite(soci::session& session, long long now,
                     const std::optional<due_position>& after, long long limit,
                     std::vector<due_row>& rows) {
    kept_sqlite_statement kept(session, after ? due_after_sqlite_sql : due_from_first_sqlite_sql);
    auto* handle = static_cast<sqlite_api::sqlite3_stmt*>(kept.handle());
    sqlite_api::sqlite3_bind_int64(handle, 1, now);
    if (after) {
        sqlite_api::sqlite3_bind_int64(handle, 2, after->next_attempt_at_ms);
        sqlite_api::sqlite3_bind_text(handle, 3, after->id.data(),
                                      static_cast<int>(after->id.size()), SQLITE_STATIC);
    }
    sqlite_api::sqlite3_bind_int64(handle, 4, limit);
    step_to_end(session, kept, "reading due deliveries", [&rows](sqlite_api::sqlite3_stmt* row) {
        auto claim = due_from_sqlite(row);
        due_position position{sqlite_api::sqlite3_column_int64(row, 8), claim.first.id};
        rows.push_back(
            {std::move(claim), std::move(position), sqlite_api::sqlite3_column_int64(row, 9) != 0});
    });
}

void read_due_postgresql(soci::session& session, long long now,
                         const std::optional<due_position>& after, long long limit,
                         std::vector<due_row>& rows) {
    auto take = [&rows](const soci::rowset<soci::row>& set) {
        for (const auto& row : set) {
            auto claim = due_from_row(row);
            due_position position{int64_at(row, 8), claim.first.id};
            rows.push_back({std::move(claim), std::move(position), int64_at(row, 9) != 0});
        }
    };
    if (!after) {
        take((session.prepare << due_from_first_sql, soci::use(now), soci::use(limit)));
        return;
    }
    long long after_ms = after->next_attempt_at_ms;
    take((session.prepare << due_after_sql, soci::use(now), soci::use(after_ms),
          soci::use(after->id), soci::use(limit)));
}

}  // namespace

due_read read_due_deliveries(soci::session& session, const clock& time, random_source& random,
                             const retry_policy& policy, const std::optional<due_position>& after,
                             const std::unordered_set<std::string>& held, int limit) {
    CORRIDOR_ASSERT(limit > 0);
    // The held ones among the rows read count against the LIMIT but are not taken.
    long long asked = limit + static_cast<long long>(held.size());
    std::vector<due_row> rows;
    if (backend_of(session) == database_backend::sqlite)
        read_due_sqlite(session, time.now_ms(), after, asked, rows);
    else
        read_due_postgresql(session, time.now_ms(), after, asked, rows);
    due_read read;
    read.reached_end = static_cast<long long>(rows.size()) < asked;
    claimer claims(session, time, random, policy);
    static const std::string in_memory;  // no token: held by the reader alone
    int taken = 0;
    for (auto& row : rows) {
        if (taken == limit) {
            read.reached_end = false;  // rows after this one were read, not taken
            break;
        }
        read.last = row.position;
        if (held.contains(row.position.id)) continue;
        ++taken;
        auto& [claim, attempts] = row.claim;
        // Sent once, or leased by a process that died: claimed in the database as before.
        bool in_database = claim.purpose != event_purpose::notify || row.leased;
        claims.take(std::move(claim), attempts, read.claimed, in_database ? nullptr : &in_memory);
    }
    claims.close_unsendable();
    return read;
}

std::optional<claimed_delivery> claim_delivery(soci::session& session, const clock& time,
                                               random_source& random, const retry_policy& policy,
                                               const std::string& event_id) {
    std::string sql =
        std::string(due_columns) + "WHERE o.id = packed_id(:i) AND o.state = 'PENDING'" +
        (backend_of(session) == database_backend::postgresql ? " FOR UPDATE OF o" : "");
    std::vector<std::pair<claimed_delivery, int>> due;
    {
        soci::rowset<soci::row> rows = (session.prepare << sql, soci::use(event_id));
        for (const auto& row : rows) due.push_back(due_from_row(row));
    }
    std::vector<claimed_delivery> claimed;
    claimer claims(session, time, random, policy);
    for (auto& [claim, attempts_before] : due)
        claims.take(std::move(claim), attempts_before, claimed);
    claims.close_unsendable();
    if (claimed.empty()) return std::nullopt;
    return std::move(claimed.front());
}

std::string webhook_body(const claimed_delivery& delivery, std::int64_t now_ms) {
    CORRIDOR_ASSERT(!delivery.payload.empty() && delivery.payload.front() == '{');
    // Ids, type names and timestamps never need JSON escaping.
    std::string body = R"({"webhookId":")" + delivery.id + R"(","type":")" + delivery.type +
                       R"(","timestamp":")" + format_timestamp_ms(now_ms) + "\"";
    std::string_view rest(delivery.payload);
    rest.remove_prefix(1);
    if (rest.find_first_not_of(" \t\r\n") != std::string_view::npos && rest.front() != '}')
        body += ",";
    body += rest;
    return body;
}

namespace {

// The oldest finished events recorded before a time: a range of the primary key, whose ids
// (uuid v7) sort by the time they were made, so the scan starts at the oldest and stops at the
// limit without a sort, and no index of finished events is needed (outbox_events_due holds only
// PENDING ones, migration 40); a uuid's 16 bytes (migration 47) sort as its text does. It passes
// over the PENDING events older than the cut-off, which exist only when the retention is shorter
// than the retry age or an old event was resent.
constexpr const char* finished_ids =
    "SELECT id FROM outbox_events WHERE id < packed_id(:b) AND state <> 'PENDING' ORDER BY id "
    "LIMIT :l";

}  // namespace

std::int64_t prune_finished_events(soci::session& session, std::int64_t recorded_before_ms,
                                   int limit) {
    CORRIDOR_ASSERT(limit > 0);
    std::string bound = first_id_at("Webhook", recorded_before_ms);
    long long count = 0;
    if (backend_of(session) == database_backend::postgresql) {
        // One statement, so another process pruning at once cannot make the two deletes pick
        // different events (read committed takes a new snapshot per statement). The ids as an
        // array: a generic plan of `id IN (subquery)` guesses a tenth of the table for the LIMIT
        // and hash-joins it with a sequential scan; `= ANY` of the array probes the primary key.
        static const std::string sql =
            std::string("WITH gone AS (DELETE FROM outbox_events WHERE id = ANY(ARRAY(") +
            finished_ids +
            " FOR UPDATE SKIP LOCKED)) RETURNING id), attempts AS (DELETE "
            "FROM webhook_attempts WHERE event_id IN (SELECT id FROM gone)) "
            "SELECT COUNT(*) FROM gone";
        session << sql, soci::use(bound), soci::use(limit), soci::into(count);
        return count;
    }
    // SQLite has one writer: nothing changes these rows between the two statements, which pick the
    // same events.
    static const std::string attempts_sql =
        std::string("DELETE FROM webhook_attempts WHERE event_id IN (") + finished_ids + ")";
    static const std::string events_sql =
        std::string("DELETE FROM outbox_events WHERE id IN (") + finished_ids + ")";
    session << attempts_sql, soci::use(bound), soci::use(limit);
    soci::statement events = (session.prepare << events_sql, soci::use(bound), soci::use(limit));
    events.execute(true);
    return events.get_affected_rows();
}

std::int64_t pending_delivery_count(soci::session& session) {
    long long count = 0;
    session << "SELECT COUNT(*) FROM outbox_events WHERE state = 'PENDING'", soci::into(count);
    return count;
}

bool resend_webhook_event(soci::session& session, const clock& time, const tenant& owner,
                          const std::string& event_id) {
    // The id comes from a request: one that is not a webhook id names no event, and is never
    // compared with the table's ids (stored as 16 bytes, PostgreSQL's packed_id would raise).
    if (!is_typed_id("Webhook", event_id)) return false;
    long long now_ms = time.now_ms();
    std::string env_name(owner.env_name());
    static const std::string sql =
        "UPDATE outbox_events SET state = 'PENDING', next_attempt_at_ms = :n, finished_at_ms = "
        "NULL, claim_token = NULL WHERE id = packed_id(:i) AND tenant_key = " +
        tenant_key_of(":p", ":e") +
        " AND purpose = 'NOTIFY' AND state IN ('DELIVERED', 'FAILED', 'NO_ENDPOINT')";
    soci::statement statement = (session.prepare << sql, soci::use(now_ms), soci::use(event_id),
                                 soci::use(owner.platform_id), soci::use(env_name));
    statement.execute(true);
    return statement.get_affected_rows() == 1;
}

event_purpose purpose_from(const std::string& name) {
    if (name == "TEST") return event_purpose::test;
    if (name == "APPROVAL") return event_purpose::approval;
    return event_purpose::notify;
}

const tenant_delivery_facts& tenant_delivery_facts_cache::of(const tenant& owner) {
    std::string key = owner.platform_id + "|" + std::string(owner.env_name());
    auto found = facts_.find(key);
    if (found != facts_.end()) return found->second;
    tenant_delivery_facts facts;
    auto config = load_platform_config(session_, owner);
    if (config && config->webhook_endpoint && !config->webhook_endpoint->empty()) {
        facts.url = *config->webhook_endpoint;
        facts.private_key_pem = ensure_webhook_key(session_, time_, owner).private_key_pem;
    }
    return facts_.emplace(key, std::move(facts)).first->second;
}

}  // namespace corridor
