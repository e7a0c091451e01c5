#include "ledger/payments/payment_rows.hpp"

#include <algorithm>
#include <sstream>

#include "ledger/base/assert.hpp"
#include "ledger/payments/payment_json.hpp"
#include "ledger/store/statement_cache.hpp"
#include "ledger/store/tenant_keys.hpp"

namespace corridor {

std::string rational_text(const rational& value) {
    return value.numerator().str() + "/" + value.denominator().str();
}

rational parse_rational_text(const std::string& text) {
    auto slash = text.find('/');
    CORRIDOR_ASSERT(slash != std::string::npos);
    return rational(big_int(text.substr(0, slash)), big_int(text.substr(slash + 1)));
}

std::string rate_details_of_quote_columns(const std::string& columns) {
    std::istringstream in(columns);
    std::string cm, sm, vr;
    long long cf = 0, sf = 0, va = 0;
    in >> cm >> cf >> sm >> sf >> vr >> va;
    CORRIDOR_ASSERT(!in.fail());
    return rate_details_text(parse_rational_text(cm), cf, parse_rational_text(sm), sf,
                             parse_rational_text(vr), va);
}

namespace {

// What transactions.rate_details stores: nothing when the quote's columns give it back.
const std::string& stored_rate_details(const transaction_record& t) {
    static const std::string none;
    return t.rate_details_from_quote && !t.quote_id.empty() ? none : t.rate_details;
}

// What transactions.reference stores: nothing when it is the quote's funding reference.
const std::string& stored_reference(const transaction_record& t) {
    static const std::string none;
    return t.reference_from_quote && !t.quote_id.empty() ? none : t.reference;
}

// The columns that hold an id as its uuid's 16 bytes, with the id's type: a quote's customers
// and transaction (migration 48) and its own id (migration 50); a transaction's own id, its quote
// and its customer (migration 49).
struct packed_column {
    std::string_view name, type;
};
constexpr packed_column packed_quote_columns[] = {{"id", "Quote"},
                                                  {"source_customer_id", "Customer"},
                                                  {"destination_customer_id", "Customer"},
                                                  {"transaction_id", "Transaction"}};
constexpr packed_column packed_transaction_columns[] = {
    {"id", "Transaction"}, {"quote_id", "Quote"}, {"customer_id", "Customer"}};

template <std::size_t N>
const packed_column* packed_column_of(const packed_column (&packed)[N], std::string_view name) {
    for (const auto& column : packed) {
        if (column.name == name) return &column;
    }
    return nullptr;
}

// Calls each(name, position from 1) for every column of `columns` (a list as quote_columns), in
// order.
template <class Each>
void for_each_column(std::string_view columns, Each each) {
    int position = 1;
    for (std::size_t at = 0; at < columns.size(); ++position) {
        std::size_t comma = std::min(columns.find(", ", at), columns.size());
        each(columns.substr(at, comma - at), position);
        at = comma + 2;
    }
}

// The VALUES of an INSERT of `columns`: `placeholder` of each position, through packed_id() where
// the column holds 16 bytes.
template <std::size_t N, class Placeholder>
std::string values_of(std::string_view columns, const packed_column (&packed)[N],
                      Placeholder placeholder) {
    std::string out;
    for_each_column(columns, [&](std::string_view name, int position) {
        if (position > 1) out += ", ";
        out += packed_column_of(packed, name) ? "packed_id(" + placeholder(position) + ")"
                                              : placeholder(position);
    });
    return out;
}

// What a read of `columns` selects: the ids stored as 16 bytes back as their text, '' for none.
template <std::size_t N>
std::string select_columns_of(std::string_view columns, const packed_column (&packed)[N],
                              std::string_view alias) {
    std::string prefix = alias.empty() ? std::string() : std::string(alias) + ".";
    std::string out;
    for_each_column(columns, [&](std::string_view name, int position) {
        if (position > 1) out += ", ";
        std::string column = prefix + std::string(name);
        const packed_column* packed_column = packed_column_of(packed, name);
        out += packed_column ? "COALESCE(typed_id('" + std::string(packed_column->type) + "', " +
                                   column + "), '')"
                             : column;
    });
    return out;
}

std::string named_parameter(int position) {
    return ":c" + std::to_string(position);
}
std::string numbered_parameter(int position) {
    return "$" + std::to_string(position);
}

const std::string quote_insert_sql =
    std::string("INSERT INTO quotes (") + quote_columns + ") VALUES (" +
    values_of(quote_columns, packed_quote_columns, named_parameter) + ")";
// With the tenant's key known (a record from a quote or a read row), or looked up by the owner: the
// writes outside the ledger writer's payments (deposits, rail arrivals, approvals), one row each.
const std::string transaction_insert_sql =
    std::string("INSERT INTO transactions (") + transaction_columns + ") VALUES (" +
    values_of(transaction_columns, packed_transaction_columns, named_parameter) + ")";
const std::string transaction_insert_by_owner_sql =
    std::string("INSERT INTO transactions (") + transaction_columns + ") VALUES (" +
    values_of(transaction_columns, packed_transaction_columns,
              [](int position) {
                  return position == 2 ? tenant_key_of(":p", ":e") : named_parameter(position);
              }) +
    ")";

}  // namespace

std::string quote_select_columns(std::string_view alias) {
    return select_columns_of(quote_columns, packed_quote_columns, alias);
}

std::string transaction_select_columns(std::string_view alias) {
    return select_columns_of(transaction_columns, packed_transaction_columns, alias);
}

const std::string& transaction_select() {
    // The quote's columns by its id, which both store as 16 bytes (migrations 49 and 50), and
    // uma_payments as text.
    static const std::string sql =
        "SELECT " + transaction_select_columns() +
        ", COALESCE((SELECT q.payment_instructions FROM quotes q WHERE q.id = "
        "transactions.quote_id AND q.tenant_key = transactions.tenant_key), ''), "
        "COALESCE((SELECT u.payee_data FROM uma_payments u WHERE u.quote_id = typed_id('Quote', "
        "transactions.quote_id) AND transactions.type = 'OUTGOING' AND u.platform_id = (SELECT "
        "c.platform_id FROM platform_configs c WHERE c.tenant_key = transactions.tenant_key)), "
        "''), COALESCE((SELECT q.counterparty_multiplier || ' ' || q.counterparty_fixed_fee || ' ' "
        "|| q.service_multiplier || ' ' || q.service_fixed_fee || ' ' || q.variable_fee_rate || ' "
        "' || q.variable_fee_amount FROM quotes q WHERE transactions.rate_details = '' AND q.id = "
        "transactions.quote_id AND q.tenant_key = transactions.tenant_key), ''), "
        "COALESCE((SELECT q.funding_reference FROM quotes q WHERE transactions.reference = '' AND "
        "q.id = transactions.quote_id AND q.tenant_key = transactions.tenant_key), '') "
        "FROM transactions";
    return sql;
}

void insert_quote(soci::session& session, const quote_record& q) {
    CORRIDOR_ASSERT(q.tenant_key > 0);  // made under its configuration, which has the key
    std::string exchange = rational_text(q.priced.exchange_rate);
    std::string counterparty = rational_text(q.priced.counterparty_multiplier);
    std::string service = rational_text(q.priced.service_multiplier);
    std::string variable = rational_text(q.priced.variable_fee_rate);
    long long locked = q.locked_amount, total_sending = q.priced.total_sending,
              net = q.priced.net_sending, total_receiving = q.priced.total_receiving,
              fees = q.priced.fees_included, counterparty_fee = q.priced.counterparty_fixed_fee,
              service_fee = q.priced.service_fixed_fee, variable_fee = q.priced.variable_fee_amount,
              created = q.created_at_ms, expires = q.expires_at_ms, updated = q.updated_at_ms,
              tenant_key = q.tenant_key;
    run_prepared(session, quote_insert_sql.c_str(), q.id, tenant_key, q.status, q.source_type,
                 q.source_account_id, q.source_customer_id, q.destination_type,
                 q.destination_account_id, q.destination_customer_id, q.sending_currency,
                 q.receiving_currency, q.locked_side, locked, total_sending, net, total_receiving,
                 fees, exchange, counterparty, service, variable, counterparty_fee, service_fee,
                 variable_fee, q.purpose_of_payment, q.description, q.transaction_id,
                 q.funding_reference, q.payment_instructions, created, expires, updated);
}

void update_quote_status(soci::session& session, const quote_record& q, const std::string& status,
                         std::int64_t now_ms) {
    long long now = now_ms;
    run_prepared(session,
                 "UPDATE quotes SET status = :s, updated_at_ms = :t WHERE id = packed_id(:i)",
                 status, now, q.id);
}

// The INSERT of a new quote as a statement for the ledger writer's flush (text parameters).
pipelined_statement quote_insert_statement(const quote_record& q) {
    static const std::string sql =
        std::string("INSERT INTO quotes (") + quote_columns + ") VALUES (" +
        values_of(quote_columns, packed_quote_columns, numbered_parameter) + ")";
    // The writer's rows carry the key of the configuration it holds: no lookup per row.
    CORRIDOR_ASSERT(q.tenant_key > 0);
    auto n = [](std::int64_t value) { return std::to_string(value); };
    return {sql,
            {q.id,
             n(q.tenant_key),
             q.status,
             q.source_type,
             q.source_account_id,
             q.source_customer_id,
             q.destination_type,
             q.destination_account_id,
             q.destination_customer_id,
             q.sending_currency,
             q.receiving_currency,
             q.locked_side,
             n(q.locked_amount),
             n(q.priced.total_sending),
             n(q.priced.net_sending),
             n(q.priced.total_receiving),
             n(q.priced.fees_included),
             rational_text(q.priced.exchange_rate),
             rational_text(q.priced.counterparty_multiplier),
             rational_text(q.priced.service_multiplier),
             rational_text(q.priced.variable_fee_rate),
             n(q.priced.counterparty_fixed_fee),
             n(q.priced.service_fixed_fee),
             n(q.priced.variable_fee_amount),
             q.purpose_of_payment,
             q.description,
             q.transaction_id,
             q.funding_reference,
             q.payment_instructions,
             n(q.created_at_ms),
             n(q.expires_at_ms),
             n(q.updated_at_ms)}};
}

// The INSERT of a new transaction, likewise.
pipelined_statement transaction_insert_statement(const transaction_record& t) {
    static const std::string sql =
        std::string("INSERT INTO transactions (") + transaction_columns + ") VALUES (" +
        values_of(transaction_columns, packed_transaction_columns, numbered_parameter) + ")";
    CORRIDOR_ASSERT(t.tenant_key > 0);  // as a quote's
    auto n = [](std::int64_t value) { return std::to_string(value); };
    return {sql,
            {t.id,
             n(t.tenant_key),
             t.type,
             t.status,
             t.quote_id,
             t.customer_id,
             t.platform_customer_id,
             t.source_type,
             t.source_account_id,
             t.source_currency,
             t.destination_type,
             t.destination_account_id,
             t.destination_currency,
             n(t.sent_amount),
             n(t.received_amount),
             n(t.fees),
             t.exchange_rate,
             stored_rate_details(t),
             t.description,
             t.failure_reason,
             stored_reference(t),
             t.refund,
             n(t.settled_at_ms),
             n(t.created_at_ms),
             n(t.updated_at_ms)}};
}

void store_new_transaction(soci::session& session, const transaction_record& t) {
    long long sent = t.sent_amount, received = t.received_amount, fees = t.fees,
              settled = t.settled_at_ms, created = t.created_at_ms, updated = t.updated_at_ms;
    auto run = [&](const std::string& sql, const auto&... tenant) {
        run_prepared(session, sql.c_str(), t.id, tenant..., t.type, t.status, t.quote_id,
                     t.customer_id, t.platform_customer_id, t.source_type, t.source_account_id,
                     t.source_currency, t.destination_type, t.destination_account_id,
                     t.destination_currency, sent, received, fees, t.exchange_rate,
                     stored_rate_details(t), t.description, t.failure_reason, stored_reference(t),
                     t.refund, settled, created, updated);
    };
    if (t.tenant_key > 0) {
        long long tenant_key = t.tenant_key;
        run(transaction_insert_sql, tenant_key);
    } else {
        run(transaction_insert_by_owner_sql, t.owner.platform_id, std::string(t.owner.env_name()));
    }
}

void store_transaction_outcome(soci::session& session, const transaction_record& t) {
    long long settled = t.settled_at_ms, updated = t.updated_at_ms;
    run_prepared(session,
                 "UPDATE transactions SET status = :s, failure_reason = :f, refund = :r, "
                 "settled_at_ms = :a, updated_at_ms = :u WHERE id = packed_id(:i)",
                 t.status, t.failure_reason, t.refund, settled, updated, t.id);
}

}  // namespace corridor
