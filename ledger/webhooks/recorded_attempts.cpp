// Recording a delivery round: the finished attempts with their events moved on, and claims
// given back unsent (on PostgreSQL each one statement whatever the round's size); and the delivery
// log they make, listed for the platform.
#include <optional>
#include <string>
#include <vector>

#include "ledger/base/utf8.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/store/multi_row.hpp"
#include "ledger/store/page.hpp"
#include "ledger/store/statement_cache.hpp"
#include "ledger/store/tenant_keys.hpp"
#include "ledger/webhooks/webhook_deliveries.hpp"

namespace corridor {
namespace {

// A response body or an error can hold anything: stored as a printable excerpt.
std::string excerpt_of(std::string_view body) {
    return printable_excerpt(body, attempt_excerpt_bytes);
}

}  // namespace

std::int64_t release_deliveries(soci::session& session, const clock& time,
                                const std::vector<claimed_delivery>& unsent) {
    long long now = time.now_ms();
    std::int64_t released = 0;
    // A claim held in memory (no token) wrote nothing: forgetting it gives it back.
    std::vector<const claimed_delivery*> leased;
    for (const auto& delivery : unsent) {
        if (!delivery.claim_token.empty()) leased.push_back(&delivery);
    }
    if (leased.empty()) return 0;
    if (backend_of(session) == database_backend::postgresql) {
        // One statement: a stopping process may hold thousands of claims in its queue, and a
        // round trip each would add up. The token's match implies PENDING (see the moves).
        std::vector<std::string> ids, tokens;
        for (const auto* delivery : leased) {
            ids.push_back(delivery->id);
            tokens.push_back(delivery->claim_token);
        }
        std::string i = postgres_array_literal(ids), c = postgres_array_literal(tokens);
        soci::statement statement =
            (session.prepare << "UPDATE outbox_events o SET attempts = o.attempts - 1, "
                                "next_attempt_at_ms = :n, claim_token = NULL, first_attempt_at_ms "
                                "= CASE WHEN o.attempts = 1 THEN NULL ELSE o.first_attempt_at_ms "
                                "END FROM unnest(CAST(:i AS text[]), CAST(:c AS text[])) AS r(i, "
                                "c) WHERE o.id = ANY(ARRAY(SELECT packed_id(a) FROM "
                                "unnest(CAST(:a AS text[])) a)) AND o.id = packed_id(r.i) AND "
                                "o.claim_token = r.c",
             soci::use(now), soci::use(i), soci::use(c), soci::use(i));
        statement.execute(true);
        return statement.get_affected_rows();
    }
    // SQLite, where a statement is a call into the library: the prepared statement per event.
    for (const auto* delivery : leased) {
        released += run_prepared(
            session,
            "UPDATE outbox_events SET attempts = attempts - 1, next_attempt_at_ms = :n, "
            "claim_token = NULL, first_attempt_at_ms = CASE WHEN attempts = 1 THEN NULL ELSE "
            "first_attempt_at_ms END WHERE id = packed_id(:i) AND claim_token = :c AND state = "
            "'PENDING'",
            now, delivery->id, delivery->claim_token);
    }
    return released;
}

namespace {

// A JSON string literal of `text`: the rows of one round go to the database as one JSON parameter.
void append_json_string(std::string& out, std::string_view text) {
    out += '"';
    for (char c : text) {
        unsigned char u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20) {
            static const char hex[] = "0123456789abcdef";
            out += "\\u00";
            out += hex[u >> 4];
            out += hex[u & 0xf];
        } else {
            out += c;
        }
    }
    out += '"';
}

void append_json_field(std::string& out, const char* key, std::string_view text) {
    out += out.back() == '{' ? "\"" : ",\"";
    out += key;
    out += "\":";
    append_json_string(out, text);
}

void append_json_field(std::string& out, const char* key, long long number) {
    out += out.back() == '{' ? "\"" : ",\"";
    out += key;
    out += "\":";
    out += std::to_string(number);
}

// PostgreSQL: one round's attempts and event moves, each in one statement (one round trip)
// whatever the round's size; the texts are fixed (the INSERT prepared once per session), the
// attempts travel as a JSON array. SQLite, where a statement is a call into the library, runs its
// prepared statements once per attempt: the same round as JSON cost its writer more CPU (3.76-3.86
// s against 3.34-3.46 s over webhook_bench's 55,000 deliveries), decoding more than the calls it
// saved.
// An attempt names its tenant by its key and its own and its event's ids by their 16 bytes
// (migration 52); the key is looked up by the tenant the attempt carries, so a tenant without a
// configuration fails the NOT NULL rather than losing the attempt. On PostgreSQL the ids travel as
// bare uuids (both made here or read back from the table, so well formed) and the tenant is
// joined once for the round: packed_id's parsing of two typed ids and a lookup per row cost 8.4
// against 6.0 ms for 1,000 attempts (the rows' own insert and three index entries are the rest).
const std::string insert_attempts_postgresql =
    "INSERT INTO webhook_attempts (id, tenant_key, event_id, event_type, attempt, url, "
    "attempted_at_ms, latency_ms, response_status, outcome, error, response_excerpt, "
    "next_attempt_at_ms) SELECT CAST(f.i AS uuid), c.tenant_key, CAST(f.v AS uuid), f.y, f.a, "
    "f.u, f.t, f.l, f.s, f.o, f.r, f.x, f.n FROM json_to_recordset(CAST(:j AS json)) AS f(i "
    "text, p text, e text, v text, y text, a integer, u text, t bigint, l bigint, s integer, o "
    "text, r text, x text, n bigint) LEFT JOIN platform_configs c ON c.platform_id = f.p AND "
    "c.environment = f.e";
const std::string insert_attempt_sqlite =
    "INSERT INTO webhook_attempts (id, tenant_key, event_id, event_type, attempt, url, "
    "attempted_at_ms, latency_ms, response_status, outcome, error, response_excerpt, "
    "next_attempt_at_ms) VALUES (packed_id(:i), " +
    tenant_key_of(":p", ":e") + ", packed_id(:v), :y, :a, :u, :t, :l, :s, :o, :r, :x, :n)";
// An event moves only while this claim still holds it: its token matches, or, for a claim held in
// memory (no token, read_due_deliveries), no lease holds it and its attempts are those it was read
// with, so an event that moved on meanwhile is left as it is (the attempt is recorded either way).
// That move is a claim in memory's only write: it counts the attempt and, for the first, its time.
// A rescheduled event keeps finished_at_ms (NULL while pending); a finished one gets its finishing
// time in both.
// The rows come as arrays, planned with their values each time (not prepared): the planner then
// knows how many the round moves and looks each up by id. A prepared statement's generic plan,
// made once from the table's size when the connection first ran it (a few rows at start-up), and
// a JSON parameter, which it counts as 100 rows whatever the round, had it join the round with
// the whole outbox (a sequential scan, 38 ms a round at 40,000 events). A claim token is only ever
// set on a PENDING event and every move out of PENDING clears it, so the token's match is the
// state's check too: a condition on state had let the planner, with statistics from before a
// backlog, read every pending event through outbox_events_due instead (14 ms at 25,000); the
// state is checked only for claims in memory, after the match by id. The ids also come as one
// array (= ANY), which only the primary key answers: joined with the unnested rows alone, the
// planner hashed them against a sequential scan of the whole outbox while it held fewer than some
// hundreds of thousands of events (12.5 against 3.4 ms a round of 476 at 40,000 events), the
// delivered ones kept for the retention included.
constexpr const char* move_events_postgresql =
    "UPDATE outbox_events o SET state = m.s, next_attempt_at_ms = m.n, finished_at_ms = "
    "COALESCE(m.f, o.finished_at_ms), claim_token = NULL, attempts = o.attempts + CASE WHEN m.c "
    "IS NULL THEN 1 ELSE 0 END, first_attempt_at_ms = COALESCE(o.first_attempt_at_ms, m.t) FROM "
    "unnest(CAST(:i AS text[]), CAST(:c AS text[]), CAST(:s AS text[]), CAST(:n AS bigint[]), "
    "CAST(:f AS bigint[]), CAST(:k AS integer[]), CAST(:t AS bigint[])) AS m(i, c, s, n, f, k, t) "
    "WHERE o.id = ANY(ARRAY(SELECT CAST(a AS uuid) FROM unnest(CAST(:a AS text[])) a)) AND o.id = "
    "CAST(m.i AS uuid) AND (o.claim_token = m.c OR (m.c IS NULL AND o.claim_token IS NULL AND "
    "o.state = 'PENDING' AND o.attempts = m.k))";

// A round's event moves, one array per column.
struct event_moves {
    std::vector<std::string> ids, states, next_ms, attempts_before, attempted_ms;
    std::vector<std::optional<std::string>> tokens, finished_ms;
    void add(const claimed_delivery& delivery, const delivery_verdict& verdict,
             const attempt_report& report, std::int64_t now_ms) {
        bool pending = verdict.state == "PENDING";
        ids.emplace_back(uuid_part(delivery.id));
        tokens.push_back(delivery.claim_token.empty() ? std::nullopt
                                                      : std::optional(delivery.claim_token));
        states.push_back(verdict.state);
        next_ms.push_back(std::to_string(pending ? verdict.next_attempt_at_ms : now_ms));
        finished_ms.push_back(pending ? std::nullopt : std::optional(std::to_string(now_ms)));
        attempts_before.push_back(std::to_string(delivery.attempt - 1));
        attempted_ms.push_back(std::to_string(report.attempted_at_ms));
    }
    void run(soci::session& session) const {
        std::string i = postgres_array_literal(ids), c = postgres_array_literal(tokens),
                    s = postgres_array_literal(states), n = postgres_array_literal(next_ms),
                    f = postgres_array_literal(finished_ms),
                    k = postgres_array_literal(attempts_before),
                    t = postgres_array_literal(attempted_ms);
        session << move_events_postgresql, soci::use(i), soci::use(c), soci::use(s), soci::use(n),
            soci::use(f), soci::use(k), soci::use(t), soci::use(i);
    }
};

// SQLite's moves, one statement per event, held as move_events_postgresql holds them: by the
// token, or for a claim in memory (no token) by no lease and the attempts it was read with, which
// the move then counts. The token goes in three times (`:c`, `:d`, `:e`): the parameters are
// bound by position.
const std::string move_held_sqlite =
    " WHERE id = packed_id(:i) AND state = 'PENDING' AND claim_token IS NULLIF(:d, '') AND (:e <> "
    "'' OR attempts = :k)";
const std::string reschedule_one_sqlite =
    "UPDATE outbox_events SET next_attempt_at_ms = :n, claim_token = NULL, attempts = attempts + "
    "(:c = ''), first_attempt_at_ms = COALESCE(first_attempt_at_ms, :t)" +
    move_held_sqlite;
const std::string finish_one_sqlite =
    "UPDATE outbox_events SET state = :s, finished_at_ms = :f, next_attempt_at_ms = :g, "
    "claim_token = NULL, attempts = attempts + (:c = ''), first_attempt_at_ms = "
    "COALESCE(first_attempt_at_ms, :t)" +
    move_held_sqlite;

void move_one_sqlite(soci::session& session, const claimed_delivery& delivery,
                     const attempt_report& report, const delivery_verdict& verdict, long long now) {
    long long next = verdict.next_attempt_at_ms, attempted = report.attempted_at_ms,
              before = delivery.attempt - 1;
    const std::string& token = delivery.claim_token;
    if (verdict.state == "PENDING") {
        run_prepared(session, reschedule_one_sqlite.c_str(), next, token, attempted, delivery.id,
                     token, token, before);
    } else {
        run_prepared(session, finish_one_sqlite.c_str(), verdict.state, now, now, token, attempted,
                     delivery.id, token, token, before);
    }
}

void record_one(soci::session& session, const std::string& attempt_id,
                const claimed_delivery& delivery, const attempt_report& report,
                const delivery_verdict& verdict, long long now) {
    std::string env_name(delivery.owner.env_name());
    std::string excerpt = excerpt_of(report.response_excerpt);
    std::string error = excerpt_of(report.error);
    long long attempted = report.attempted_at_ms, latency = report.latency_ms,
              next = verdict.next_attempt_at_ms;
    int status = report.response_status, attempt = delivery.attempt;
    run_prepared(session, insert_attempt_sqlite.c_str(), attempt_id, delivery.owner.platform_id,
                 env_name, delivery.id, delivery.type, attempt, delivery.url, attempted, latency,
                 status, verdict.outcome, error, excerpt, next);
    move_one_sqlite(session, delivery, report, verdict, now);
}

}  // namespace

std::vector<delivery_verdict> finish_deliveries(soci::session& session, id_generator& ids,
                                                const clock& time, const retry_policy& policy,
                                                const std::vector<finished_attempt>& finished) {
    std::vector<delivery_verdict> verdicts;
    if (finished.empty()) return verdicts;
    verdicts.reserve(finished.size());
    std::int64_t now_ms = time.now_ms();
    bool sqlite = backend_of(session) == database_backend::sqlite;
    std::string attempts = "[";
    event_moves moves;
    for (const auto& [delivery, report] : finished) {
        auto verdict = judge_attempt(policy, delivery->purpose, delivery->attempt,
                                     delivery->created_at_ms, now_ms, report->response_status);
        if (sqlite) {
            record_one(session, ids.next("WebhookAttempt"), *delivery, *report, verdict, now_ms);
            verdicts.push_back(std::move(verdict));
            continue;
        }
        if (attempts.size() > 1) attempts += ',';
        attempts += '{';
        append_json_field(attempts, "i", ids.next_uuid());
        append_json_field(attempts, "p", delivery->owner.platform_id);
        append_json_field(attempts, "e", delivery->owner.env_name());
        append_json_field(attempts, "v", uuid_part(delivery->id));
        append_json_field(attempts, "y", delivery->type);
        append_json_field(attempts, "a", delivery->attempt);
        append_json_field(attempts, "u", delivery->url);
        append_json_field(attempts, "t", report->attempted_at_ms);
        append_json_field(attempts, "l", report->latency_ms);
        append_json_field(attempts, "s", report->response_status);
        append_json_field(attempts, "o", verdict.outcome);
        append_json_field(attempts, "r", excerpt_of(report->error));
        append_json_field(attempts, "x", excerpt_of(report->response_excerpt));
        append_json_field(attempts, "n", verdict.next_attempt_at_ms);
        attempts += '}';
        moves.add(*delivery, verdict, *report, now_ms);
        verdicts.push_back(std::move(verdict));
    }
    attempts += ']';
    if (sqlite) return verdicts;
    run_prepared(session, insert_attempts_postgresql.c_str(), attempts);
    moves.run(session);
    return verdicts;
}

delivery_verdict finish_delivery(soci::session& session, id_generator& ids, const clock& time,
                                 const retry_policy& policy, const claimed_delivery& delivery,
                                 const attempt_report& report) {
    return finish_deliveries(session, ids, time, policy, {{&delivery, &report}}).front();
}

namespace {

// A row of one tenant's delivery log: the tenant is the caller's (the rows hold its key).
struct attempt_row {
    std::string id, event_id, event_type, url, outcome, error, excerpt;
    int attempt = 0, status = 0;
    long long attempted = 0, latency = 0, next = 0;
    void bind(soci::statement& statement) {
        statement.exchange(soci::into(id));
        statement.exchange(soci::into(event_id));
        statement.exchange(soci::into(event_type));
        statement.exchange(soci::into(attempt));
        statement.exchange(soci::into(url));
        statement.exchange(soci::into(attempted));
        statement.exchange(soci::into(latency));
        statement.exchange(soci::into(status));
        statement.exchange(soci::into(outcome));
        statement.exchange(soci::into(error));
        statement.exchange(soci::into(excerpt));
        statement.exchange(soci::into(next));
    }
    delivery_attempt to_record(const tenant& owner) const {
        return delivery_attempt{id,      owner,  event_id, event_type, attempt, url, attempted,
                                latency, status, outcome,  error,      excerpt, next};
    }
};

}  // namespace

page<delivery_attempt> list_delivery_attempts(soci::session& session, const tenant& owner,
                                              const delivery_attempt_filter& filter,
                                              const page_request& request) {
    // Its ids are stored as 16 bytes (migration 52).
    sql_filter where = tenant_key_filter(owner);
    if (filter.event_id) where.packed_id_equals("event_id", "Webhook", *filter.event_id);
    if (filter.event_type) where.equals("event_type", *filter.event_type);
    if (filter.outcome) where.equals("outcome", *filter.outcome);
    static const std::string select =
        "SELECT typed_id('WebhookAttempt', id), typed_id('Webhook', event_id), event_type, "
        "attempt, url, attempted_at_ms, latency_ms, response_status, outcome, error, "
        "response_excerpt, next_attempt_at_ms FROM webhook_attempts";
    return list_page<delivery_attempt, attempt_row>(
        session, "webhook_attempts", select, where, request,
        [&owner](const attempt_row& row) { return row.to_record(owner); }, stored_ids::packed);
}

}  // namespace corridor
