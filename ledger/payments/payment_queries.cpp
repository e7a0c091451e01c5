// Finding and listing quotes and transactions, and expiring the quotes whose time has passed.
#include "ledger/base/assert.hpp"
#include "ledger/payments/payment_rows.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/store/page.hpp"
#include "ledger/store/statement_cache.hpp"
#include "ledger/store/tenant_keys.hpp"

namespace corridor {

namespace {

// The caller's tenant by its key, looked up once per statement (tenant_key_filter's clause).
// Transactions and quotes store their ids as 16 bytes (migrations 49 and 50).
const std::string by_tenant_and_packed_id =
    " WHERE tenant_key = " + tenant_key_of(":p", ":e") + " AND id = packed_id(:i)";
const std::string quote_by_id_sql =
    "SELECT " + quote_select_columns() + " FROM quotes" + by_tenant_and_packed_id;
const std::string transaction_by_id_sql = transaction_select() + by_tenant_and_packed_id;

// A quote with its owner's name (from platform_configs), for reads not made for one tenant.
struct owned_quote_row {
    std::string platform_id, environment;
    quote_row quote;

    void bind(soci::statement& s) {
        s.exchange(soci::into(platform_id));
        s.exchange(soci::into(environment));
        quote.bind(s);
    }
    quote_record to_record() const {
        return quote.to_record(tenant_of_row(platform_id, environment));
    }
};

}  // namespace

int expire_due_quotes(soci::session& session, const payment_services& services, int limit) {
    CORRIDOR_ASSERT(limit > 0);
    long long now_ms = services.time.now_ms();
    std::vector<quote_record> due;
    {
        // The oldest expiries first, in the order of quotes_pending_expiry (expires_at_ms of
        // PENDING quotes only, a partial index this literal status matches): the scan starts at
        // the first PENDING quote and stops at the first one still valid, whatever the plan.
        // Ordered by id instead, a generic plan (which cannot know that few quotes are PENDING)
        // walks the whole primary key to find none.
        static const std::string sql =
            "SELECT c.platform_id, c.environment, " + quote_select_columns("q") +
            " FROM quotes q JOIN platform_configs c ON c.tenant_key = q.tenant_key WHERE q.status "
            "= 'PENDING' AND q.expires_at_ms <= :n ORDER BY q.expires_at_ms LIMIT :l";
        owned_quote_row row;
        int rows_max = limit;
        soci::statement statement(session);
        row.bind(statement);
        statement.exchange(soci::use(now_ms));
        statement.exchange(soci::use(rows_max));
        statement.alloc();
        statement.prepare(sql);
        statement.define_and_bind();
        statement.execute(false);
        while (statement.fetch()) due.push_back(row.to_record());
    }
    for (const auto& quote : due) {
        update_quote_status(session, quote, "EXPIRED", now_ms);
        auto outgoing = find_transaction(session, quote.owner, quote.transaction_id);
        CORRIDOR_ASSERT(outgoing.has_value());
        outgoing->status = "EXPIRED";
        outgoing->failure_reason = "QUOTE_EXPIRED";
        outgoing->updated_at_ms = now_ms;
        store_transaction_outcome(session, *outgoing);
        record_payment_event(session, services.ids, services.time, services.currencies, *outgoing);
    }
    return static_cast<int>(due.size());
}

std::optional<quote_record> find_quote(soci::session& session, const tenant& owner,
                                       const std::string& id) {
    if (!is_made_id("Quote", id)) return std::nullopt;  // as find_transaction
    quote_row row;
    std::string env_name(owner.env_name());
    if (!fetch_prepared(session, quote_by_id_sql.c_str(), row, owner.platform_id, env_name, id)) {
        return std::nullopt;
    }
    return row.to_record(owner);
}

page<quote_record> list_quotes(soci::session& session, const tenant& owner,
                               const quote_filter& filter, const page_request& request) {
    sql_filter where = tenant_key_filter(owner);
    if (filter.customer_id)
        where.packed_id_equals("source_customer_id", "Customer", *filter.customer_id);
    if (filter.sending_account_id) where.equals("source_account_id", *filter.sending_account_id);
    if (filter.receiving_account_id)
        where.equals("destination_account_id", *filter.receiving_account_id);
    if (filter.status) where.equals("status", *filter.status);
    if (filter.created_after_ms) where.at_least("created_at_ms", *filter.created_after_ms);
    if (filter.created_before_ms) where.at_most("created_at_ms", *filter.created_before_ms);
    if (filter.sending_uma_address) {
        where.clause(
            "source_customer_id IN (SELECT packed_id(id) FROM customers WHERE uma_address = {})",
            *filter.sending_uma_address);
    }
    if (filter.receiving_uma_address) {
        // A customer of this platform, or a receiver at another provider.
        where.clause(
            "(destination_customer_id IN (SELECT packed_id(id) FROM customers WHERE uma_address = "
            "{}) "
            "OR (destination_type = 'UMA_ADDRESS' AND destination_account_id = {}))",
            *filter.receiving_uma_address);
    }
    return list_page<quote_record, quote_row>(
        session, "quotes", "SELECT " + quote_select_columns() + " FROM quotes", where, request,
        [&](const quote_row& r) { return r.to_record(owner); }, stored_ids::packed);
}

std::optional<transaction_record> find_transaction(soci::session& session, const tenant& owner,
                                                   const std::string& id) {
    // What packed_id() could not take, or would take for another id's text (an upper-case uuid),
    // is no transaction's id: not found, as an unknown one, without reaching the database.
    if (!is_made_id("Transaction", id)) return std::nullopt;
    transaction_row row;
    std::string env_name(owner.env_name());
    if (!fetch_prepared(session, transaction_by_id_sql.c_str(), row, owner.platform_id, env_name,
                        id)) {
        return std::nullopt;
    }
    return row.to_record(owner);
}

page<transaction_record> list_transactions(soci::session& session, const tenant& owner,
                                           const transaction_filter& filter,
                                           const page_request& request) {
    sql_filter where = tenant_key_filter(owner);
    if (filter.customer_id) where.packed_id_equals("customer_id", "Customer", *filter.customer_id);
    if (filter.platform_customer_id)
        where.equals("platform_customer_id", *filter.platform_customer_id);
    if (filter.sender_account_id) where.equals("source_account_id", *filter.sender_account_id);
    if (filter.receiver_account_id)
        where.equals("destination_account_id", *filter.receiver_account_id);
    if (filter.status) where.equals("status", *filter.status);
    if (filter.type) where.equals("type", *filter.type);
    if (filter.reference) {
        // A payment's transactions find their reference in their quote (stored_reference).
        where.clause(
            "(reference = {} OR (reference = '' AND quote_id = (SELECT q.id FROM quotes q "
            "WHERE q.funding_reference = {})))",
            std::vector<std::string>{*filter.reference, *filter.reference});
    }
    if (filter.start_ms) where.at_least("created_at_ms", *filter.start_ms);
    if (filter.end_ms) where.at_most("created_at_ms", *filter.end_ms);
    return list_page<transaction_record, transaction_row>(
        session, "transactions", transaction_select(), where, request,
        [&](const transaction_row& r) { return r.to_record(owner); }, stored_ids::packed);
}

}  // namespace corridor
