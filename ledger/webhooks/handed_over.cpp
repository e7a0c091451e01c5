// Reading back the events handed over to this process's delivery at their commit
// (ledger/store/outbox_handover.hpp), on delivery's own connection.
#include <algorithm>
#include <set>
#include <tuple>

#include "ledger/store/database.hpp"
#include "ledger/store/event_payloads.hpp"
#include "ledger/store/multi_row.hpp"
#include "ledger/store/statement_cache.hpp"
#include "ledger/webhooks/delivery_facts.hpp"
#include "ledger/webhooks/webhook_deliveries.hpp"

namespace corridor {
namespace {

// Whatever became of them: leased and pending (to send), or written closed (NO_ENDPOINT). The
// tenant is the one of the event's key; the id is stored as 16 bytes (migration 47).
constexpr const char* handed_by_id_sql =
    "SELECT typed_id('Webhook', o.id), c.platform_id, c.environment, o.type, o.payload, o.purpose, "
    "o.attempts, "
    "o.created_at_ms, o.state, COALESCE(o.claim_token, '') FROM outbox_events o JOIN "
    "platform_configs c ON c.tenant_key = o.tenant_key WHERE o.id = packed_id(:i)";
constexpr const char* handed_by_ids_sql =
    "SELECT typed_id('Webhook', o.id), c.platform_id, c.environment, o.type, o.payload, o.purpose, "
    "o.attempts, "
    "o.created_at_ms, o.state, COALESCE(o.claim_token, '') FROM outbox_events o JOIN "
    "platform_configs c ON c.tenant_key = o.tenant_key WHERE o.id = ANY(ARRAY(SELECT packed_id(i) "
    "FROM unnest(CAST(:i AS text[])) i))";

struct handed_row {
    std::string id, platform_id, environment, type, payload, purpose;
    int attempts = 0;
    long long created_at_ms = 0;
    std::string state, claim_token;
    void bind(soci::statement& statement) {
        statement.exchange(soci::into(id));
        statement.exchange(soci::into(platform_id));
        statement.exchange(soci::into(environment));
        statement.exchange(soci::into(type));
        statement.exchange(soci::into(payload));
        statement.exchange(soci::into(purpose));
        statement.exchange(soci::into(attempts));
        statement.exchange(soci::into(created_at_ms));
        statement.exchange(soci::into(state));
        statement.exchange(soci::into(claim_token));
    }
    claimed_delivery to_claim() const {
        claimed_delivery claim;
        claim.id = id;
        claim.owner = tenant_of_row(platform_id, environment);
        claim.type = type;
        if (state == "PENDING") claim.payload = unpack_event_payload(payload);
        claim.purpose = purpose_from(purpose);
        claim.attempt = attempts;
        claim.claim_token = claim_token;
        // Marks one written closed (never sent: see read_handed_over).
        claim.interrupted = state == "NO_ENDPOINT";
        claim.created_at_ms = created_at_ms;
        return claim;
    }
};

// PostgreSQL: all of them in one round trip, the ids as one array parameter.
std::vector<claimed_delivery> read_many(soci::session& session,
                                        const std::vector<std::string>& ids) {
    std::string array = postgres_array_literal(ids);
    std::vector<claimed_delivery> out;
    handed_row row;
    soci::statement statement(session);
    row.bind(statement);
    statement.exchange(soci::use(array));
    statement.alloc();
    statement.prepare(handed_by_ids_sql);
    statement.define_and_bind();
    for (bool got = statement.execute(true); got; got = statement.fetch())
        out.push_back(row.to_claim());
    return out;
}

}  // namespace

handed_over_events read_handed_over(soci::session& session, const clock& time,
                                    const std::string& token, const std::vector<std::string>& ids) {
    std::vector<claimed_delivery> due;
    if (backend_of(session) == database_backend::postgresql) {
        due = read_many(session, ids);
    } else {
        // No round trips to save: one prepared lookup per id.
        handed_row row;
        for (const auto& id : ids) {
            if (fetch_prepared(session, handed_by_id_sql, row, id)) due.push_back(row.to_claim());
        }
    }
    std::sort(due.begin(), due.end(), [](const auto& a, const auto& b) {
        return std::tie(a.created_at_ms, a.id) < std::tie(b.created_at_ms, b.id);
    });
    tenant_delivery_facts_cache facts(session, time);
    std::set<std::string> closed;
    handed_over_events out;
    for (auto& claim : due) {
        if (claim.interrupted) {  // written closed: the tenant had no endpoint
            std::string key = claim.owner.platform_id + "|" + std::string(claim.owner.env_name());
            if (closed.insert(key).second) out.without_endpoint.push_back(claim.owner);
            continue;
        }
        // Gone (a rolled-back savepoint), or no longer this process's: nothing to send.
        if (claim.claim_token != token) continue;
        // As a claim does (on SQLite a due next key's write can fail against a busy writer, and
        // then these events wait for their lease).
        const tenant_delivery_facts& tenant_facts = facts.of(claim.owner);
        // The endpoint went away since the insert: the event keeps its lease, and the claim round
        // after it closes the event (this connection only reads).
        if (tenant_facts.url.empty() && claim.purpose == event_purpose::notify) continue;
        claim.claimed_at_ms = claim.created_at_ms;  // the lease began at the insert
        claim.url = tenant_facts.url;
        claim.private_key_pem = tenant_facts.private_key_pem;
        out.claimed.push_back(std::move(claim));
    }
    return out;
}

}  // namespace corridor
