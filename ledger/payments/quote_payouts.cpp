#include "ledger/payments/quote_payouts.hpp"

#include <boost/json.hpp>

#include "ledger/base/assert.hpp"
#include "ledger/payments/payment_checks.hpp"
#include "ledger/payments/payment_rows.hpp"
#include "ledger/payments/uma_payments.hpp"
#include "ledger/payments/uma_post_transactions.hpp"

namespace corridor {
namespace json = boost::json;

std::string invoice_account_json(const std::string& invoice) {
    return json::serialize(json::object{{"accountType", "LIGHTNING"}, {"invoice", invoice}});
}

payment_failure uma_payout_failure(payment_failure refused) {
    if (refused.code == payment_error::destination_not_payable) {
        refused.code = payment_error::invoice_not_payable;
        refused.message = "the receiver's invoice cannot be paid: " + refused.message;
    }
    return refused;
}

bool is_external_account_id(const std::string& id) {
    return id.starts_with("ExternalAccount:");
}

void complete_quote_payout(soci::session& session, const clock& time, const tenant& owner,
                           const std::string& quote_id) {
    auto quote = find_quote(session, owner, quote_id);
    CORRIDOR_ASSERT(quote.has_value());
    std::int64_t now_ms = time.now_ms();
    update_quote_status(session, *quote, "COMPLETED", now_ms);
    if (quote->destination_type != "UMA_ADDRESS") return;
    // The receiver's provider asked to hear of the payment: the callback is owed from this commit.
    auto payment = find_uma_payment(session, owner, quote_id);
    CORRIDOR_ASSERT(payment.has_value());
    if (payment->utxo_callback.empty()) return;
    uma_post_transaction callback;
    callback.transaction_id = quote->transaction_id;
    callback.owner = owner;
    callback.quote_id = quote_id;
    callback.url = payment->utxo_callback;
    callback.vasp_domain = payment->vasp_domain;
    callback.amount_msats = payment->amount_msats;
    callback.next_attempt_at_ms = callback.created_at_ms = callback.updated_at_ms = now_ms;
    enqueue_uma_post_transaction(session, callback);
}

void refund_quote_payout(soci::session& session, id_generator& ids, random_source& random,
                         const clock& time, const currency_registry& currencies,
                         const tenant& owner, const std::string& quote_id) {
    auto quote = find_quote(session, owner, quote_id);
    // PROCESSING, or COMPLETED when the payout comes back after it settled (an ACH return).
    CORRIDOR_ASSERT(quote.has_value() &&
                    (quote->status == "PROCESSING" || quote->status == "COMPLETED"));
    book_services book{ids, random, time};
    const price& p = quote->priced;
    payout_leg leg{quote->receiving_currency, p.total_receiving};
    if (quote->destination_type == "UMA_ADDRESS") {
        auto payment = find_uma_payment(session, owner, quote_id);
        CORRIDOR_ASSERT(payment.has_value());
        leg = payout_leg{"BTC", payment->payout_sats};
    }
    std::string payout_settlement =
        ensure_account(session, book, owner, account_kind::settlement, "", leg.currency);
    std::string payout_liquidity =
        ensure_account(session, book, owner, account_kind::liquidity, "", leg.currency);
    std::string liquidity_sending = ensure_account(session, book, owner, account_kind::liquidity,
                                                   "", quote->sending_currency);
    bool internal_source = quote->source_type == "ACCOUNT";
    std::string refunded_account =
        internal_source ? quote->source_account_id
                        : ensure_account(session, book, owner, account_kind::settlement, "",
                                         quote->sending_currency);
    // Service accounts have no overdraft guard, so only the last posting could be refused, and only
    // by a balance overflow of an account that held this money a moment ago.
    auto back = post_transfer(session, book, owner,
                              {payout_settlement, payout_liquidity, leg.amount, leg.currency,
                               "refund", quote->transaction_id});
    CORRIDOR_ASSERT(back.ok());
    if (p.fees_included > 0) {
        std::string fees =
            ensure_account(session, book, owner, account_kind::fees, "", quote->sending_currency);
        auto fee_back = post_transfer(session, book, owner,
                                      {fees, liquidity_sending, p.fees_included,
                                       quote->sending_currency, "refund", quote->transaction_id});
        CORRIDOR_ASSERT(fee_back.ok());
    }
    auto refunded = post_transfer(session, book, owner,
                                  {liquidity_sending, refunded_account, p.total_sending,
                                   quote->sending_currency, "refund", quote->transaction_id});
    CORRIDOR_ASSERT(refunded.ok());
    std::int64_t now_ms = time.now_ms();
    update_quote_status(session, *quote, "FAILED", now_ms);
    if (internal_source) {
        auto after = account_balance(session, refunded_account);
        CORRIDOR_ASSERT(after.has_value());
        record_balance_event(session, ids, time, currencies, owner, refunded_account,
                             quote->source_customer_id, quote->sending_currency,
                             *after - p.total_sending, *after,
                             platform_customer_id_of(session, owner, quote->source_customer_id));
    }
}

}  // namespace corridor
