#pragma once
// A webhook backlog for the plan tests of delivery's reads: many due events written at once, and
// how many outbox rows PostgreSQL read to answer a statement.
#include <soci/soci.h>

#include <string>

namespace corridor::testing {

// The id of the i-th event (from 0) that insert_due_backlog writes: they sort in their due order.
inline std::string backlog_event_id(int i) {
    return "Webhook:00000000-0000-7000-8000-000000" + std::to_string(100000 + i + 1);
}

// Writes `count` copies of the outbox's latest event but for their ids and times: PENDING, never
// attempted, due one millisecond apart from `first_ms`, each row about as wide as a real event.
inline void insert_due_backlog(soci::session& session, int count, long long first_ms) {
    std::string pad(1000, ' ');
    session << "INSERT INTO outbox_events (id, tenant_key, type, payload, state, attempts, "
               "next_attempt_at_ms, created_at_ms, purpose) WITH RECURSIVE n(i) AS "
               "(SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :c) SELECT "
               "packed_id('Webhook:00000000-0000-7000-8000-000000' || CAST(100000 + i AS TEXT)), "
               "e.tenant_key, e.type || :w, e.payload, 'PENDING', 0, CAST(:f AS BIGINT) + i, "
               "CAST(:g AS BIGINT) + i, 'NOTIFY' FROM n CROSS JOIN (SELECT * FROM outbox_events "
               "ORDER BY created_at_ms DESC, id DESC LIMIT 1) e",
        soci::use(count), soci::use(pad), soci::use(first_ms), soci::use(first_ms);
}

// Rows of outbox_events read so far in this transaction (PostgreSQL's counters: by sequential
// scans, and fetched through indexes, bitmap scans included).
inline long long outbox_rows_read(soci::session& session) {
    long long read = 0;
    session << "SELECT COALESCE(seq_tup_read, 0) + COALESCE(idx_tup_fetch, 0) FROM "
               "pg_stat_xact_user_tables WHERE relname = 'outbox_events'",
        soci::into(read);
    return read;
}

}  // namespace corridor::testing
