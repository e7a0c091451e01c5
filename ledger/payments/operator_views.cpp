#include "ledger/payments/operator_views.hpp"

#include <algorithm>
#include <utility>

#include "ledger/base/assert.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/event_payloads.hpp"
#include "ledger/store/ids.hpp"

namespace corridor {
namespace {

struct column {
    const char* expression;  // SQL
    const char* name;        // the field's name
    bool integer;
};

// Runs SELECT <columns> <rest> with text parameters. Every column is read as text (CAST to TEXT)
// so that one code path serves both backends and any column type.
std::string select_sql(const std::vector<column>& columns, const std::string& rest) {
    std::string sql = "SELECT ";
    bool first = true;
    for (const auto& c : columns) {
        sql += std::string(first ? "" : ", ") + "CAST(" + c.expression + " AS TEXT)";
        first = false;
    }
    return sql + " " + rest;
}

std::vector<view_row> select_rows(soci::session& session, const std::vector<column>& columns,
                                  const std::string& rest, const std::vector<std::string>& params) {
    std::string sql = select_sql(columns, rest);
    std::vector<std::string> values(columns.size());
    std::vector<soci::indicator> indicators(columns.size(), soci::i_null);
    std::vector<std::string> bound(params);
    soci::statement statement(session);
    for (std::size_t i = 0; i < values.size(); ++i)
        statement.exchange(soci::into(values[i], indicators[i]));
    for (auto& param : bound) statement.exchange(soci::use(param));
    statement.alloc();
    statement.prepare(sql);
    statement.define_and_bind();
    statement.execute(false);
    std::vector<view_row> rows;
    while (statement.fetch()) {
        view_row row;
        std::size_t i = 0;
        for (const auto& c : columns) {
            std::optional<std::string> value;
            if (indicators[i] == soci::i_ok) value = values[i];
            row.push_back({c.name, c.integer, std::move(value)});
            ++i;
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

constexpr bool text = false;
constexpr bool integer = true;

}  // namespace

std::string field_text(const view_row& row, const std::string& name) {
    for (const auto& field : row) {
        if (field.name == name) return field.value.value_or("");
    }
    return "";
}

std::vector<view_row> platforms_view(soci::session& session) {
    return select_rows(
        session,
        {{"p.id", "id", text},
         {"p.name", "name", text},
         {"p.is_regulated", "is_regulated", integer},
         {"(SELECT c.uma_domain FROM platform_configs c WHERE c.platform_id = p.id AND "
          "c.environment = 'production')",
          "uma_domain", text},
         {"(SELECT COUNT(*) FROM tokens t WHERE t.platform_id = p.id AND t.is_deleted = 0)",
          "live_tokens", integer},
         {"(SELECT COUNT(*) FROM customers c WHERE c.platform_id = p.id AND c.is_deleted = 0)",
          "customers", integer},
         {"p.created_at_ms", "created_at_ms", integer}},
        "FROM platforms p ORDER BY p.created_at_ms, p.id", {});
}

std::vector<view_row> tokens_view(soci::session& session, const std::string& platform_id) {
    // Never the secret's hash: only what names and scopes the token.
    return select_rows(session,
                       {{"id", "id", text},
                        {"environment", "environment", text},
                        {"name", "name", text},
                        {"permissions", "permissions", integer},
                        {"client_id", "client_id", text},
                        {"is_deleted", "is_deleted", integer},
                        {"created_at_ms", "created_at_ms", integer},
                        {"updated_at_ms", "updated_at_ms", integer}},
                       "FROM tokens WHERE platform_id = :p ORDER BY created_at_ms, id",
                       {platform_id});
}

revoke_outcome revoke_token_any_tenant(soci::session& session, const clock& time,
                                       const std::string& token_id) {
    write_transaction transaction(session);
    int deleted = 0;
    soci::statement select = (session.prepare << "SELECT is_deleted FROM tokens WHERE id = :i",
                              soci::use(token_id), soci::into(deleted));
    if (!select.execute(true)) return revoke_outcome::not_found;
    if (deleted != 0) return revoke_outcome::already_revoked;
    long long now_ms = time.now_ms();
    soci::statement statement =
        (session.prepare << "UPDATE tokens SET is_deleted = 1, updated_at_ms = :t WHERE id = :i "
                            "AND is_deleted = 0",
         soci::use(now_ms), soci::use(token_id));
    statement.execute(true);
    auto affected = statement.get_affected_rows();
    transaction.commit();
    return affected == 1 ? revoke_outcome::revoked : revoke_outcome::already_revoked;
}

namespace {

// A payment's transactions store no reference: theirs is their quote's funding reference.
constexpr const char* reference_of_transaction =
    "COALESCE(NULLIF(t.reference, ''), (SELECT q.funding_reference FROM quotes q WHERE q.id = "
    "t.quote_id), '')";

std::optional<view_row> transaction_row(soci::session& session, const std::string& transaction_id) {
    // Its ids are stored as 16 bytes (migration 49): what is no transaction's id finds nothing,
    // without reaching packed_id() (find_transaction).
    if (!is_made_id("Transaction", transaction_id)) return std::nullopt;
    auto rows =
        select_rows(session,
                    {{"typed_id('Transaction', t.id)", "id", text},
                     {"c.platform_id", "platform_id", text},
                     {"c.environment", "environment", text},
                     {"t.type", "type", text},
                     {"t.status", "status", text},
                     {"COALESCE(typed_id('Quote', t.quote_id), '')", "quote_id", text},
                     {"COALESCE(typed_id('Customer', t.customer_id), '')", "customer_id", text},
                     {"t.source_type", "source_type", text},
                     {"t.source_account_id", "source_account_id", text},
                     {"t.source_currency", "source_currency", text},
                     {"t.destination_type", "destination_type", text},
                     {"t.destination_account_id", "destination_account_id", text},
                     {"t.destination_currency", "destination_currency", text},
                     {"t.sent_amount", "sent_amount", integer},
                     {"t.received_amount", "received_amount", integer},
                     {"t.fees", "fees", integer},
                     {"t.exchange_rate", "exchange_rate", text},
                     {"t.failure_reason", "failure_reason", text},
                     {reference_of_transaction, "reference", text},
                     {"t.settled_at_ms", "settled_at_ms", integer},
                     {"t.created_at_ms", "created_at_ms", integer},
                     {"t.updated_at_ms", "updated_at_ms", integer}},
                    "FROM transactions t JOIN platform_configs c ON c.tenant_key = t.tenant_key "
                    "WHERE t.id = packed_id(:i)",
                    {transaction_id});
    if (rows.empty()) return std::nullopt;
    return std::move(rows.front());
}

// What is recorded about a transaction (its transfers, its webhook events) is recorded with a
// change of it, so made between its creation and its last change. Leeway: up to a minute either
// side, for the clocks of several processes sharing a database (a process whose clock runs behind
// may record a row that sorts before the transaction it belongs to) and for rows made a moment
// before the transaction's own time is read (a deposit posts its transfer, then stamps the
// transaction).
constexpr std::int64_t lifetime_leeway_ms = 60000;

// The ids of `type` made in the transaction's lifetime: [first, last) as text. Ids are uuid v7,
// sorted by the time they were made, so the range is one of the primary key: these reads cost the
// rows of the transaction's lifetime, not the table (ledger_transfers has no index on
// transaction_id, migration 17; outbox_events none on a time or a transaction).
std::pair<std::string, std::string> lifetime_ids(std::string_view type,
                                                 const view_row& transaction) {
    std::int64_t created_ms = std::stoll(field_text(transaction, "created_at_ms"));
    std::int64_t updated_ms = std::stoll(field_text(transaction, "updated_at_ms"));
    std::int64_t since_ms = std::max<std::int64_t>(0, created_ms - lifetime_leeway_ms);
    std::int64_t until_ms = std::max(created_ms, updated_ms) + lifetime_leeway_ms;
    return {first_id_at(type, since_ms), first_id_at(type, until_ms + 1)};
}

// A posting stores its ids as 16 bytes and its accounts by key (migration 46): read back as the
// ids they are.
const std::vector<column> posting_columns = {{"typed_id('Transfer', t.id)", "id", text},
                                             {"t.code", "code", text},
                                             {"d.id", "debit_account_id", text},
                                             {"c.id", "credit_account_id", text},
                                             {"t.amount", "amount", integer},
                                             {"t.currency", "currency", text},
                                             {"t.created_at_ms", "created_at_ms", integer}};
const std::string postings_rest =
    "FROM ledger_transfers t JOIN ledger_accounts d ON d.account_key = t.debit_account_key JOIN "
    "ledger_accounts c ON c.account_key = t.credit_account_key WHERE t.id >= packed_id(:f) AND "
    "t.id < packed_id(:l) AND t.transaction_id = packed_id(:x) ORDER BY t.created_at_ms, t.id";

// The transaction's transfers: the parameters of postings_rest.
std::vector<std::string> postings_params(const view_row& transaction,
                                         const std::string& transaction_id) {
    auto [first, last] = lifetime_ids("Transfer", transaction);
    return {first, last, transaction_id};
}

std::vector<view_row> posting_rows(soci::session& session, const view_row& transaction,
                                   const std::string& transaction_id) {
    return select_rows(session, posting_columns, postings_rest,
                       postings_params(transaction, transaction_id));
}

// Not account_json: it holds the full account number.
std::vector<view_row> rail_operation_rows(soci::session& session,
                                          const std::string& transaction_id) {
    return select_rows(session,
                       {{"id", "id", text},
                        {"rail", "rail", text},
                        {"direction", "direction", text},
                        {"status", "status", text},
                        {"account_type", "account_type", text},
                        {"external_account_id", "external_account_id", text},
                        {"currency", "currency", text},
                        {"amount", "amount", integer},
                        {"rail_reference", "rail_reference", text},
                        {"rail_reason_code", "rail_reason_code", text},
                        {"failure_class", "failure_class", text},
                        {"failure_reason", "failure_reason", text},
                        {"attempts", "attempts", integer},
                        {"deadline_at_ms", "deadline_at_ms", integer},
                        {"created_at_ms", "created_at_ms", integer},
                        {"updated_at_ms", "updated_at_ms", integer}},
                       "FROM rail_operations WHERE transaction_id = :x ORDER BY "
                       "created_at_ms, id",
                       {transaction_id});
}

const std::vector<column> event_columns = {{"typed_id('Webhook', id)", "id", text},
                                           {"type", "type", text},
                                           {"purpose", "purpose", text},
                                           {"state", "state", text},
                                           {"attempts", "attempts", integer},
                                           {"next_attempt_at_ms", "next_attempt_at_ms", integer},
                                           {"finished_at_ms", "finished_at_ms", integer},
                                           {"created_at_ms", "created_at_ms", integer},
                                           {"payload", "payload", text}};
const std::string events_rest =
    "FROM outbox_events WHERE id >= packed_id(:f) AND id < packed_id(:l) AND tenant_key = (SELECT "
    "c.tenant_key FROM "
    "platform_configs c WHERE c.platform_id = :p AND c.environment = :e) AND (payload NOT LIKE "
    "'{%' OR payload LIKE :j) ORDER BY created_at_ms, id";

// The candidate events of the transaction: the parameters of events_rest.
std::vector<std::string> events_params(const view_row& transaction,
                                       const std::string& transaction_id) {
    auto [first, last] = lifetime_ids("Webhook", transaction);
    return {first, last, field_text(transaction, "platform_id"),
            field_text(transaction, "environment"), "%\"" + transaction_id + "\"%"};
}

// Events carry the transaction in their payload; ids hold no LIKE wildcard (the caller checks),
// so the quoted id matches only itself. Compressed payloads (event_payloads.hpp) are matched once
// unpacked; rows stored as JSON are narrowed by the database. A resend reuses the row: only the
// events of the transaction's lifetime (lifetime_ids) are read and unpacked.
std::vector<view_row> webhook_event_rows(soci::session& session, const view_row& transaction,
                                         const std::string& transaction_id) {
    std::string quoted = "\"" + transaction_id + "\"";
    auto candidates = select_rows(session, event_columns, events_rest,
                                  events_params(transaction, transaction_id));
    std::vector<view_row> events;
    for (auto& event : candidates) {
        bool about =
            unpack_event_payload(field_text(event, "payload")).find(quoted) != std::string::npos;
        event.pop_back();  // the payload is not part of the view
        if (about) events.push_back(std::move(event));
    }
    return events;
}

std::vector<view_row> webhook_attempt_rows(soci::session& session,
                                           const std::vector<view_row>& events) {
    std::vector<view_row> out;
    for (const auto& event : events) {
        auto attempts = select_rows(session,
                                    {{"typed_id('Webhook', event_id)", "event_id", text},
                                     {"attempt", "attempt", integer},
                                     {"url", "url", text},
                                     {"attempted_at_ms", "attempted_at_ms", integer},
                                     {"latency_ms", "latency_ms", integer},
                                     {"response_status", "response_status", integer},
                                     {"outcome", "outcome", text},
                                     {"error", "error", text}},
                                    "FROM webhook_attempts WHERE event_id = packed_id(:v) ORDER BY "
                                    "attempt, id",
                                    {field_text(event, "id")});
        for (auto& attempt : attempts) out.push_back(std::move(attempt));
    }
    return out;
}

}  // namespace

std::optional<payment_view> find_payment_view(soci::session& session,
                                              const std::string& transaction_id) {
    auto transaction = transaction_row(session, transaction_id);
    if (!transaction) return std::nullopt;
    payment_view view;
    view.transaction = std::move(*transaction);
    view.postings = posting_rows(session, view.transaction, transaction_id);
    view.rail_operations = rail_operation_rows(session, transaction_id);
    view.webhook_events = webhook_event_rows(session, view.transaction, transaction_id);
    view.webhook_attempts = webhook_attempt_rows(session, view.webhook_events);
    return view;
}

std::vector<view_statement> payment_view_range_reads(soci::session& session,
                                                     const std::string& transaction_id) {
    auto transaction = transaction_row(session, transaction_id);
    if (!transaction) return {};
    return {
        {select_sql(posting_columns, postings_rest), postings_params(*transaction, transaction_id)},
        {select_sql(event_columns, events_rest), events_params(*transaction, transaction_id)}};
}

std::vector<view_row> rail_operations_view(soci::session& session, bool stuck_only,
                                           std::int64_t now_ms, std::int64_t call_timeout_ms,
                                           int limit) {
    CORRIDOR_ASSERT(limit > 0);
    std::string now = std::to_string(now_ms);
    std::string quiet_since = std::to_string(now_ms - call_timeout_ms);
    // Integers of our own, not input: written into the text so both backends compare numbers.
    std::string overdue = "(status IN ('INITIATING', 'PENDING') AND deadline_at_ms <= " + now + ")";
    std::string no_answer = "(status = 'INITIATING' AND updated_at_ms <= " + quiet_since + ")";
    std::string reason = "CASE WHEN " + overdue + " THEN 'OVERDUE' WHEN " + no_answer +
                         " THEN 'NO_RAIL_ANSWER' ELSE '' END";
    std::string where = stuck_only ? "WHERE " + overdue + " OR " + no_answer + " " : "";
    return select_rows(session,
                       {{"id", "id", text},
                        {"platform_id", "platform_id", text},
                        {"environment", "environment", text},
                        {"rail", "rail", text},
                        {"direction", "direction", text},
                        {"status", "status", text},
                        {"transaction_id", "transaction_id", text},
                        {"currency", "currency", text},
                        {"amount", "amount", integer},
                        {"rail_reference", "rail_reference", text},
                        {"failure_reason", "failure_reason", text},
                        {"attempts", "attempts", integer},
                        {"rail_node", "rail_node", text},
                        {reason.c_str(), "stuck_reason", text},
                        {"deadline_at_ms", "deadline_at_ms", integer},
                        {"created_at_ms", "created_at_ms", integer},
                        {"updated_at_ms", "updated_at_ms", integer}},
                       "FROM rail_operations " + where +
                           "ORDER BY created_at_ms DESC, id DESC LIMIT " + std::to_string(limit),
                       {});
}

std::vector<view_row> webhook_backlog_view(soci::session& session,
                                           const std::optional<std::string>& platform_id) {
    // An event's tenant is its key's (migration 44).
    std::string where = "WHERE o.state = 'PENDING'";
    std::vector<std::string> params;
    if (platform_id) {
        where += " AND c.platform_id = :p";
        params.push_back(*platform_id);
    }
    return select_rows(
        session,
        {{"c.platform_id", "platform_id", text},
         {"c.environment", "environment", text},
         {"COUNT(*)", "pending", integer},
         {"MIN(o.created_at_ms)", "oldest_created_at_ms", integer},
         {"SUM(CASE WHEN o.attempts > 0 THEN 1 ELSE 0 END)", "failing", integer},
         {"SUM(o.attempts)", "failed_attempts", integer}},
        "FROM outbox_events o JOIN platform_configs c ON c.tenant_key = o.tenant_key " + where +
            " GROUP BY c.platform_id, c.environment ORDER BY c.platform_id, c.environment",
        params);
}

}  // namespace corridor
