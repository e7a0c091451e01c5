#include "ledger/payments/incoming_payments.hpp"

#include "ledger/book/book.hpp"
#include "ledger/store/database.hpp"

namespace corridor {
namespace {

constexpr const char* columns =
    "rail, rail_reference, environment, match_key, reference, currency, amount_minor, "
    "amount_milli_minor, received_at_ms, rail_message, status, platform_id, routed_to, "
    "transaction_id, outcome, created_at_ms, routed_at_ms";

incoming_payment from_row(const soci::row& row) {
    incoming_payment out;
    out.rail = row.get<std::string>(0);
    out.rail_reference = row.get<std::string>(1);
    out.env = parse_environment(row.get<std::string>(2)).value_or(environment::sandbox);
    out.match_key = row.get<std::string>(3);
    out.reference = row.get<std::string>(4);
    out.currency = row.get<std::string>(5);
    out.amount_minor = row.get<long long>(6);
    out.amount_milli_minor = row.get<long long>(7);
    out.received_at_ms = row.get<long long>(8);
    out.rail_message = row.get<std::string>(9);
    out.status = row.get<std::string>(10);
    out.platform_id = row.get<std::string>(11);
    out.routed_to = row.get<std::string>(12);
    out.transaction_id = row.get<std::string>(13);
    out.outcome = row.get<std::string>(14);
    out.created_at_ms = row.get<long long>(15);
    out.routed_at_ms = row.get<long long>(16);
    return out;
}

// Inserts the arrival as RECEIVED unless its (rail, rail_reference) is there already. Another
// process inserting the same one at the same moment waits on the key (PostgreSQL) or the write
// lock (SQLite) and then finds it: exactly one of them routes it.
bool insert_if_new(soci::session& session, const incoming_payment& p) {
    std::string env(to_string(p.env));
    long long amount = p.amount_minor, milli = p.amount_milli_minor, received = p.received_at_ms,
              created = p.created_at_ms;
    soci::statement insert =
        (session.prepare << "INSERT INTO rail_incoming_payments (" << columns
                         << ") VALUES (:r, :rr, :e, :k, :f, :c, :a, :m, :t, :msg, 'RECEIVED', '', "
                            "'', '', '', :cr, 0) ON CONFLICT (rail, rail_reference) DO NOTHING",
         soci::use(p.rail), soci::use(p.rail_reference), soci::use(env), soci::use(p.match_key),
         soci::use(p.reference), soci::use(p.currency), soci::use(amount), soci::use(milli),
         soci::use(received), soci::use(p.rail_message), soci::use(created));
    insert.execute(true);
    return insert.get_affected_rows() == 1;
}

void store_outcome(soci::session& session, const incoming_payment& p) {
    long long routed = p.routed_at_ms;
    session << "UPDATE rail_incoming_payments SET status = :s, platform_id = :p, routed_to = :t, "
               "transaction_id = :x, outcome = :o, routed_at_ms = :at WHERE rail = :r AND "
               "rail_reference = :rr",
        soci::use(p.status), soci::use(p.platform_id), soci::use(p.routed_to),
        soci::use(p.transaction_id), soci::use(p.outcome), soci::use(routed), soci::use(p.rail),
        soci::use(p.rail_reference);
}

std::string platform_customer_id_of(soci::session& session, const std::string& customer_id) {
    if (customer_id.empty()) return "";
    std::string out;
    soci::indicator indicator = soci::i_null;
    session << "SELECT platform_customer_id FROM customers WHERE id = :i", soci::use(customer_id),
        soci::into(out, indicator);
    return indicator == soci::i_ok ? out : "";
}

// The internal account (customer or platform) of the arrival's environment with this reference.
std::optional<ledger_account> account_by_reference(soci::session& session,
                                                   const incoming_payment& p) {
    std::string env(to_string(p.env)), id, platform_id;
    soci::indicator found = soci::i_null;
    session << "SELECT id, platform_id FROM ledger_accounts WHERE reference = :r AND environment "
               "= :e AND kind IN ('CUSTOMER', 'PLATFORM')",
        soci::use(p.reference), soci::use(env), soci::into(id, found), soci::into(platform_id);
    if (found != soci::i_ok) return std::nullopt;
    return find_account(session, tenant{platform_id, p.env}, id);
}

std::optional<quote_record> quote_by_reference(soci::session& session, const incoming_payment& p) {
    std::string env(to_string(p.env)), id, platform_id;
    soci::indicator found = soci::i_null;
    session << "SELECT typed_id('Quote', q.id), c.platform_id FROM quotes q JOIN platform_configs "
               "c ON c.tenant_key = "
               "q.tenant_key WHERE q.funding_reference = :r AND c.environment = :e",
        soci::use(p.reference), soci::use(env), soci::into(id, found), soci::into(platform_id);
    if (found != soci::i_ok) return std::nullopt;
    return find_quote(session, tenant{platform_id, p.env}, id);
}

void refuse(incoming_payment& p, const tenant& owner, const std::string& target, std::string why) {
    p.status = "REFUSED";
    p.platform_id = owner.platform_id;
    p.routed_to = target;
    p.outcome = std::move(why);
}

// A deposit into the account: from the currency's settlement account, as a COMPLETED INCOMING
// transaction with its events, like the sandbox funding of an account.
void credit_account(soci::session& session, const payment_services& services,
                    const ledger_account& account, incoming_payment& p) {
    if (account.currency != p.currency) {
        refuse(p, account.owner, account.id,
               "the account holds " + account.currency + ", the payment is in " + p.currency);
        return;
    }
    book_services book{services.ids, services.random, services.time};
    std::string settlement = ensure_account(session, book, account.owner, account_kind::settlement,
                                            "", account.currency);
    std::string transaction_id = services.ids.next("Transaction");
    auto posted = post_transfer(
        session, book, account.owner,
        {settlement, account.id, p.amount_minor, account.currency, "receive", transaction_id});
    if (!posted) {
        refuse(p, account.owner, account.id, "crediting it would overflow the account's balance");
        return;
    }
    std::int64_t now_ms = services.time.now_ms();
    transaction_record t;
    t.id = transaction_id;
    t.owner = account.owner;
    t.type = "INCOMING";
    t.status = "COMPLETED";
    t.customer_id = account.owner_id;
    t.platform_customer_id = platform_customer_id_of(session, account.owner_id);
    t.source_type = "REALTIME_FUNDING";
    t.source_currency = account.currency;
    t.destination_type = "ACCOUNT";
    t.destination_account_id = account.id;
    t.destination_currency = account.currency;
    t.received_amount = p.amount_minor;
    t.rate_details = "{}";
    t.description = "Received through the " + p.rail + " rail (" + p.rail_reference + ")";
    t.reference = account.reference;
    t.settled_at_ms = t.created_at_ms = t.updated_at_ms = now_ms;
    store_new_transaction(session, t);
    record_payment_event(session, services.ids, services.time, services.currencies, t);
    // The balance as this transaction's own posting left it (see fund_internal_account).
    std::int64_t balance = account_balance(session, account.id).value_or(0);
    record_balance_event(session, services.ids, services.time, services.currencies, account.owner,
                         account.id, account.owner_id, account.currency, balance - p.amount_minor,
                         balance, t.platform_customer_id);
    p.status = "CREDITED";
    p.platform_id = account.owner.platform_id;
    p.routed_to = account.id;
    p.transaction_id = transaction_id;
    p.outcome = "credited " + std::to_string(p.amount_minor) + " " + p.currency;
}

// Funds a REALTIME_FUNDING quote exactly as its sandbox funding does: the right amount completes
// the payment, another amount fails it with FUNDING_AMOUNT_MISMATCH.
void fund_quote(soci::session& session, const payment_services& services, const quote_record& quote,
                incoming_payment& p) {
    auto funded =
        receive_quote_funding(session, services, quote.owner, quote.id, p.currency, p.amount_minor);
    if (!funded) {
        refuse(p, quote.owner, quote.id, funded.error().message);
        return;
    }
    const transaction_record& t = funded.value();
    p.platform_id = quote.owner.platform_id;
    p.routed_to = quote.id;
    p.transaction_id = t.id;
    if (t.status == "FAILED") {
        p.status = "REFUSED";
        p.outcome = "the quote failed: " + t.failure_reason;
        return;
    }
    p.status = "CREDITED";
    p.outcome = "funded the quote (transaction " + t.status + ")";
}

}  // namespace

void incoming_payment_router::add_sink(std::string name, incoming_payment_sink& sink) {
    sinks_.push_back({std::move(name), &sink});
}

std::optional<incoming_payment> incoming_payment_router::receive(soci::session& session,
                                                                 const payment_services& services,
                                                                 incoming_payment arrival) const {
    CORRIDOR_ASSERT(arrival.amount_minor > 0);
    arrival.created_at_ms = services.time.now_ms();
    if (!insert_if_new(session, arrival)) return std::nullopt;
    arrival.routed_at_ms = arrival.created_at_ms;
    bool routed = false;
    if (!arrival.reference.empty()) {
        if (auto account = account_by_reference(session, arrival)) {
            credit_account(session, services, *account, arrival);
            routed = true;
        } else if (auto quote = quote_by_reference(session, arrival)) {
            fund_quote(session, services, *quote, arrival);
            routed = true;
        }
    }
    for (std::size_t i = 0; !routed && !arrival.match_key.empty() && i < sinks_.size(); ++i) {
        incoming_claim claim = sinks_[i].sink->claim(session, services, arrival);
        if (claim.decision == incoming_claim::verdict::not_ours) continue;
        routed = true;
        arrival.status = claim.decision == incoming_claim::verdict::taken ? "CREDITED" : "REFUSED";
        arrival.platform_id = claim.owner ? claim.owner->platform_id : "";
        arrival.routed_to = "sink:" + sinks_[i].name;
        arrival.transaction_id = claim.transaction_id;
        arrival.outcome = claim.outcome;
    }
    if (!routed) {
        arrival.status = "UNMATCHED";
        arrival.outcome = arrival.reference.empty() ? "nothing is registered for this match key"
                                                    : "no account or quote carries this reference";
    }
    store_outcome(session, arrival);
    return arrival;
}

std::optional<incoming_payment> find_incoming_payment(soci::session& session,
                                                      const std::string& rail,
                                                      const std::string& rail_reference) {
    soci::row row;
    session << "SELECT " << columns
            << " FROM rail_incoming_payments WHERE rail = :r AND rail_reference = :rr",
        soci::use(rail), soci::use(rail_reference), soci::into(row);
    if (!session.got_data()) return std::nullopt;
    return from_row(row);
}

std::vector<incoming_payment> list_incoming_payments(soci::session& session,
                                                     const std::string& status, int limit) {
    soci::rowset<soci::row> rows =
        (session.prepare << "SELECT " << columns
                         << " FROM rail_incoming_payments WHERE status = :s ORDER BY "
                            "created_at_ms, rail, rail_reference LIMIT :n",
         soci::use(status), soci::use(limit));
    std::vector<incoming_payment> out;
    for (const auto& row : rows) out.push_back(from_row(row));
    return out;
}

}  // namespace corridor
