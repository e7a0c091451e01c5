// Funding: money arriving for a quote paid from outside (REALTIME_FUNDING), and sandbox deposits
// into internal accounts.
#include "ledger/payments/payments.hpp"

#include <boost/json.hpp>

#include "ledger/base/assert.hpp"
#include "ledger/base/time_format.hpp"
#include "ledger/payments/payment_checks.hpp"
#include "ledger/payments/payment_rows.hpp"
#include "ledger/payments/quote_execution.hpp"

namespace corridor {
namespace json = boost::json;

result<transaction_record, payment_failure> receive_quote_funding(
    soci::session& session, const payment_services& services, const tenant& owner,
    const std::string& quote_id, const std::string& currency, std::optional<std::int64_t> amount) {
    auto quote = find_quote(session, owner, quote_id);
    if (!quote) return failure(payment_error::quote_not_found, "no quote " + quote_id, "quoteId");
    if (quote->source_type != "REALTIME_FUNDING") {
        return failure(payment_error::quote_not_executable,
                       "quote " + quote_id + " is paid from an internal account; execute it instead", "quoteId");
    }
    if (quote->status == "EXPIRED") {
        return failure(payment_error::quote_expired, "quote " + quote_id + " has expired", "quoteId");
    }
    if (quote->status != "PENDING") {
        return failure(payment_error::quote_not_pending, "quote " + quote_id + " is " + quote->status, "quoteId");
    }
    if (services.time.now_ms() >= quote->expires_at_ms) {
        return failure(payment_error::quote_expired, "quote " + quote_id + " has expired", "quoteId");
    }
    if (currency != quote->sending_currency) {
        return failure(payment_error::funding_currency_mismatch,
                       "currencyCode: the quote is funded in " + quote->sending_currency, "currencyCode");
    }
    std::int64_t received = amount.value_or(quote->priced.total_sending);
    if (received == quote->priced.total_sending) {
        book_services book{services.ids, services.random, services.time};
        std::string settlement = ensure_account(session, book, owner, account_kind::settlement, "", currency);
        return settle(session, services, *quote, settlement, "deposit", false, nullptr);
    }
    // The wrong amount arrived: fail the payment and send the funds back where they came from.
    std::int64_t now_ms = services.time.now_ms();
    update_quote_status(session, *quote, "FAILED", now_ms);
    auto outgoing = find_transaction(session, owner, quote->transaction_id);
    CORRIDOR_ASSERT(outgoing.has_value());
    outgoing->status = "FAILED";
    outgoing->failure_reason = "FUNDING_AMOUNT_MISMATCH";
    outgoing->refund = json::serialize(json::object{{"reference", "R" + quote->funding_reference.substr(1)},
                                                    {"initiatedAt", format_timestamp_ms(now_ms)},
                                                    {"settledAt", format_timestamp_ms(now_ms)},
                                                    {"amount", received}});
    outgoing->updated_at_ms = now_ms;
    store_transaction_outcome(session, *outgoing);
    record_payment_event(session, services.ids, services.time, services.currencies, *outgoing);
    return std::move(*outgoing);
}

result<ledger_account, payment_failure> fund_internal_account(soci::session& session,
                                                              const payment_services& services,
                                                              const tenant& owner,
                                                              const std::string& account_id,
                                                              std::int64_t amount) {
    CORRIDOR_ASSERT(amount > 0);
    auto account = find_account(session, owner, account_id);
    if (!account || (account->kind != account_kind::customer && account->kind != account_kind::platform)) {
        return failure(payment_error::account_not_found, "no internal account " + account_id, "accountId");
    }
    book_services book{services.ids, services.random, services.time};
    std::string settlement = ensure_account(session, book, owner, account_kind::settlement, "", account->currency);
    std::string transaction_id = services.ids.next("Transaction");
    auto posted = post_transfer(session, book, owner,
                                {settlement, account->id, amount, account->currency, "fund", transaction_id});
    if (!posted) {
        return failure(payment_error::amount_out_of_range, "amount would overflow the account's balance", "amount");
    }
    std::int64_t now_ms = services.time.now_ms();
    transaction_record deposit;
    deposit.id = transaction_id;
    deposit.owner = owner;
    deposit.type = "INCOMING";
    deposit.status = "COMPLETED";
    deposit.customer_id = account->owner_id;
    deposit.platform_customer_id = platform_customer_id_of(session, owner, account->owner_id);
    deposit.source_type = "REALTIME_FUNDING";
    deposit.source_currency = account->currency;
    deposit.destination_type = "ACCOUNT";
    deposit.destination_account_id = account->id;
    deposit.destination_currency = account->currency;
    deposit.received_amount = amount;
    deposit.rate_details = "{}";
    deposit.description = "Sandbox funding";
    deposit.reference = account->reference;
    deposit.settled_at_ms = deposit.created_at_ms = deposit.updated_at_ms = now_ms;
    store_new_transaction(session, deposit);
    record_payment_event(session, services.ids, services.time, services.currencies, deposit);
    // The balance read before the deposit may be stale: another process can fund the same account
    // meanwhile (PostgreSQL, READ COMMITTED). The row as this transaction's update left it is exact,
    // and stays so until the commit (the update holds its lock).
    auto after = find_account(session, owner, account_id);
    CORRIDOR_ASSERT(after.has_value() && after->balance() >= amount);
    record_balance_event(session, services.ids, services.time, services.currencies, owner,
                         account->id, account->owner_id, account->currency,
                         after->balance() - amount, after->balance(), deposit.platform_customer_id);
    return std::move(*after);
}

}  // namespace corridor
