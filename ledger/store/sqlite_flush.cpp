#include "ledger/store/sqlite_flush.hpp"

#include <string>

#include "ledger/base/assert.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/store/sqlite_rows.hpp"
#include "ledger/store/statement_cache.hpp"

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
// Parameters of a row: id, debit and credit account keys, amount, currency, code, transaction,
// created time; the ids bound as their 16 bytes (migration 46).
const sqlite_rows_statement transfers_insert{transfers_sql, 8};
std::string transfers_sql(std::size_t rows) {
    return "INSERT INTO ledger_transfers (id, debit_account_key, credit_account_key, amount, "
           "currency, code, transaction_id, created_at_ms) " +
           values_rows(transfers_insert, rows);
}

std::string events_sql(std::size_t rows);
// Parameters of a row: id, tenant key, type, stored payload (bytes), state, attempts, next
// attempt time, created time, purpose, finished time, claim token and first attempt time.
const sqlite_rows_statement events_insert{events_sql, 12};
std::string events_sql(std::size_t rows) {
    return "INSERT INTO outbox_events (id, tenant_key, type, payload, state, attempts, "
           "next_attempt_at_ms, created_at_ms, purpose, finished_at_ms, claim_token, "
           "first_attempt_at_ms) " +
           values_rows(events_insert, rows);
}

// A typed id as the 16 bytes packed_id() makes of it; NULL for an empty one.
void bind_packed_id(sqlite_row_binder& bind, int at, const std::string& id) {
    if (id.empty()) return bind.null(at);
    unsigned char bytes[16];
    bool packed = pack_id(id, bytes);
    CORRIDOR_ASSERT(packed);
    bind.blob_copy(at, bytes, sizeof bytes);
}

struct flag_row {
    int value = 0;
    void bind(soci::statement& statement) { statement.exchange(soci::into(value)); }
};

// Whether the tenants' events are sendable: their stored webhook endpoints, read once per tenant
// in the flush's transaction (outbox_event_insert_sql reads it in each row's statement).
class endpoint_lookup {
public:
    explicit endpoint_lookup(soci::session& session) : session_(session) {}
    bool has_endpoint(long long tenant_key) {
        for (const auto& known : known_) {
            if (known.tenant_key == tenant_key) return known.has_endpoint;
        }
        flag_row row;
        bool found = fetch_prepared(session_,
                                    "SELECT 1 FROM platform_configs WHERE tenant_key = :k AND "
                                    "webhook_endpoint <> ''",
                                    row, tenant_key);
        known_.push_back({tenant_key, found});
        return found;
    }

private:
    struct tenant_endpoint {
        long long tenant_key;
        bool has_endpoint;
    };
    soci::session& session_;
    std::vector<tenant_endpoint> known_;
};

}  // namespace

void insert_transfers_sqlite(soci::session& session, const std::vector<deferred_transfer>& rows) {
    sqlite_rows_runner(session, transfers_insert)
        .run(rows.size(), [&](std::size_t r, sqlite_row_binder& bind, int first) {
            const deferred_transfer& t = rows[r];
            bind_packed_id(bind, first, t.id);
            bind.integer(first + 1, t.debit_account_key);
            bind.integer(first + 2, t.credit_account_key);
            bind.integer(first + 3, t.amount);
            bind.text(first + 4, t.currency);
            bind.text(first + 5, t.code);
            bind_packed_id(bind, first + 6, t.transaction_id);
            bind.integer(first + 7, t.created_at_ms);
        });
}

// Each row as outbox_event_insert_sql writes it: a NOTIFY event of a tenant without a webhook
// endpoint is written closed (NO_ENDPOINT, finished and due at its creation); a sendable one with
// a claim token is written leased to this process's delivery (outbox_handover.hpp). Decided here
// rather than by an INSERT ... SELECT over the rows, whose per-row subquery and layers cost the
// writer about 2.5 times a plain row.
void insert_events_sqlite(soci::session& session, const std::vector<deferred_event>& rows,
                          const std::vector<outbox_lease>& leases) {
    CORRIDOR_ASSERT(leases.size() == rows.size());
    static const std::string pending = "PENDING", no_endpoint = "NO_ENDPOINT";
    endpoint_lookup endpoints(session);
    std::vector<char> sendable(rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r) {
        sendable[r] = rows[r].purpose != "NOTIFY" || endpoints.has_endpoint(rows[r].tenant_key);
    }
    sqlite_rows_runner(session, events_insert)
        .run(rows.size(), [&](std::size_t r, sqlite_row_binder& bind, int first) {
            const deferred_event& e = rows[r];
            bool leased = sendable[r] && !leases[r].token.empty();
            bind_packed_id(bind, first, e.id);  // 16 bytes (migration 47)
            bind.integer(first + 1, e.tenant_key);
            bind.text(first + 2, e.type);
            bind.blob(first + 3, e.payload);
            bind.text(first + 4, sendable[r] ? pending : no_endpoint);
            bind.integer(first + 5, leased ? 1 : 0);
            bind.integer(first + 6, leased ? leases[r].until_ms : e.created_at_ms);
            bind.integer(first + 7, e.created_at_ms);
            bind.text(first + 8, e.purpose);
            if (sendable[r]) {
                bind.null(first + 9);  // not finished
            } else {
                bind.integer(first + 9, e.created_at_ms);
            }
            if (leased) {  // its claim token and first attempt
                bind.text(first + 10, leases[r].token);
                bind.integer(first + 11, e.created_at_ms);
            } else {
                bind.null(first + 10);
                bind.null(first + 11);
            }
        });
}

}  // namespace corridor
