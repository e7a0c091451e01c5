#include "ledger/store/sqlite_flush.hpp"

#include <string>

#include "ledger/base/assert.hpp"
#include "ledger/store/sqlite_rows.hpp"

namespace corridor {
namespace {

// "(?a, ?b, ...)" for row `row`: its parameters in order, each once.
std::string values_row(const sqlite_rows_statement& statement, std::size_t row) {
    std::string out = "(";
    for (int p = 1; p <= statement.params_per_row; ++p) {
        if (p > 1) out += ", ";
        out += sqlite_row_param(statement, row, p);
    }
    return out + ")";
}

std::string values_rows(const sqlite_rows_statement& statement, std::size_t rows) {
    std::string out = "VALUES ";
    for (std::size_t r = 0; r < rows; ++r) {
        if (r) out += ", ";
        out += values_row(statement, r);
    }
    return out;
}

std::string transfers_sql(std::size_t rows);
// Parameters of a row: id, debit, credit, amount, currency, code, transaction, created time.
const sqlite_rows_statement transfers_insert{transfers_sql, 8};
std::string transfers_sql(std::size_t rows) {
    return "INSERT INTO ledger_transfers (id, debit_account_id, credit_account_id, amount, "
           "currency, code, transaction_id, created_at_ms) " +
           values_rows(transfers_insert, rows);
}

std::string events_sql(std::size_t rows);
// Parameters of a row: id, platform, environment, type, stored payload (bytes), created time,
// purpose, claim token ('' for none) and the lease's end.
const sqlite_rows_statement events_insert{events_sql, 9};
// As outbox_event_insert_sql (outbox_insert.hpp) for each row: a NOTIFY event of a tenant without
// a webhook endpoint is written closed (NO_ENDPOINT, finished and due at its creation); a sendable
// one with a claim token is written leased to this process's delivery (outbox_handover.hpp).
std::string events_sql(std::size_t rows) {
    return "INSERT INTO outbox_events (id, platform_id, environment, type, payload, state, "
           "attempts, next_attempt_at_ms, created_at_ms, purpose, finished_at_ms, claim_token, "
           "first_attempt_at_ms) SELECT i, p, e, y, b, CASE WHEN sendable THEN 'PENDING' ELSE "
           "'NO_ENDPOINT' END, CASE WHEN leased THEN 1 ELSE 0 END, CASE WHEN leased THEN l ELSE n "
           "END, n, u, CASE WHEN sendable THEN NULL ELSE CAST(n AS BIGINT) END, CASE WHEN leased "
           "THEN k END, CASE WHEN leased THEN n END FROM (SELECT *, sendable AND k <> '' AS leased "
           "FROM (SELECT v.column1 AS i, v.column2 AS p, v.column3 AS e, v.column4 AS y, v.column5 "
           "AS b, v.column6 AS n, v.column7 AS u, v.column8 AS k, v.column9 AS l, v.column7 <> "
           "'NOTIFY' OR EXISTS (SELECT 1 FROM platform_configs c WHERE c.platform_id = v.column2 "
           "AND c.environment = v.column3 AND c.webhook_endpoint <> '') AS sendable FROM (" +
           values_rows(events_insert, rows) + ") AS v))";
}

}  // namespace

void insert_transfers_sqlite(soci::session& session, const std::vector<deferred_transfer>& rows) {
    sqlite_rows_runner(session, transfers_insert)
        .run(rows.size(), [&](std::size_t r, sqlite_row_binder& bind, int first) {
            const deferred_transfer& t = rows[r];
            bind.text(first, t.id);
            bind.text(first + 1, t.debit_account_id);
            bind.text(first + 2, t.credit_account_id);
            bind.integer(first + 3, t.amount);
            bind.text(first + 4, t.currency);
            bind.text(first + 5, t.code);
            bind.text(first + 6, t.transaction_id);
            bind.integer(first + 7, t.created_at_ms);
        });
}

void insert_events_sqlite(soci::session& session, const std::vector<deferred_event>& rows,
                          const std::vector<outbox_lease>& leases) {
    CORRIDOR_ASSERT(leases.size() == rows.size());
    sqlite_rows_runner(session, events_insert)
        .run(rows.size(), [&](std::size_t r, sqlite_row_binder& bind, int first) {
            const deferred_event& e = rows[r];
            bind.text(first, e.id);
            bind.text(first + 1, e.platform_id);
            bind.text(first + 2, e.environment);
            bind.text(first + 3, e.type);
            bind.blob(first + 4, e.payload);
            bind.integer(first + 5, e.created_at_ms);
            bind.text(first + 6, e.purpose);
            bind.text(first + 7, leases[r].token);
            bind.integer(first + 8, leases[r].until_ms);
        });
}

}  // namespace corridor
