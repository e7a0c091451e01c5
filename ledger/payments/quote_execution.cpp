#include "ledger/payments/quote_execution.hpp"

#include "ledger/base/assert.hpp"
#include "ledger/base/time_format.hpp"
#include "ledger/payments/payment_checks.hpp"
#include "ledger/payments/payment_rows.hpp"
#include "ledger/payments/quote_payouts.hpp"
#include "ledger/payments/uma_payments.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/deferred_writes.hpp"
#include "ledger/store/statement_cache.hpp"

namespace corridor {

namespace {

// The payout a quote makes, checked again by the gateway before anything moves (an external
// account or its rail may have changed since the quote; an UMA invoice is checked by the rail).
// nullopt for a quote that credits an internal account.
result<std::optional<std::pair<external_destination, payout_leg>>, payment_failure> payout_of(
    soci::session& session, const payment_services& services, const quote_record& quote) {
    bool uma = quote.destination_type == "UMA_ADDRESS";
    if (!uma && !is_external_account_id(quote.destination_account_id)) {
        return std::optional<std::pair<external_destination, payout_leg>>{};
    }
    if (services.payouts == nullptr) {
        return failure(payment_error::external_payouts_unavailable,
                       "payouts are not available in this process", "destination");
    }
    if (!uma) {
        auto checked = services.payouts->check(session, quote.owner, quote.destination_account_id);
        if (!checked) return checked.error();
        return std::optional{
            std::pair{std::move(checked.value()),
                      payout_leg{quote.receiving_currency, quote.priced.total_receiving}}};
    }
    auto payment = find_uma_payment(session, quote.owner, quote.id);
    CORRIDOR_ASSERT(payment.has_value());  // written with the quote
    auto checked = services.payouts->check_details(session, quote.owner, "LIGHTNING", "BTC",
                                                   invoice_account_json(payment->invoice),
                                                   "destination.umaAddress");
    if (!checked) return uma_payout_failure(checked.error());
    return std::optional{
        std::pair{std::move(checked.value()), payout_leg{"BTC", payment->payout_sats}}};
}

// The quote's OUTGOING transaction: the caller's copy when it has one (written in this same
// command), otherwise read.
transaction_record outgoing_of(soci::session& session, const quote_record& quote,
                               const transaction_record* outgoing_in_hand) {
    if (outgoing_in_hand) {
        CORRIDOR_ASSERT(outgoing_in_hand->id == quote.transaction_id);
        return *outgoing_in_hand;
    }
    auto outgoing = find_transaction(session, quote.owner, quote.transaction_id);
    CORRIDOR_ASSERT(outgoing.has_value());
    return std::move(*outgoing);
}

// Updates of the quote and OUTGOING transaction that create-and-execute made in this same command
// (`outgoing_in_hand` set): no other command can know those rows before the batch commits, so
// the writer sends the updates with its flush instead of waiting for each (on SQLite, instead of
// an insert and then its update). Null when they must be sent at once.
deferred_writes* deferred_for_new_rows(soci::session& session,
                                       const transaction_record* outgoing_in_hand) {
    if (!outgoing_in_hand) return nullptr;
    return deferred_writes_of(session);
}

void set_quote_status(soci::session& session, const quote_record& quote, const std::string& status,
                      std::int64_t now_ms, const transaction_record* outgoing_in_hand) {
    if (deferred_writes* deferred = deferred_for_new_rows(session, outgoing_in_hand)) {
        // Its INSERT, still kept, becomes the final row: one row version, not two.
        quote_record updated = quote;
        updated.status = status;
        updated.updated_at_ms = now_ms;
        if (deferred->restate_row(quote.id, quote_insert_statement(updated))) return;
        deferred->add_statement(
            {"UPDATE quotes SET status = $1, updated_at_ms = $2 WHERE id = packed_id($3)",
             {status, std::to_string(now_ms), quote.id}});
        return;
    }
    update_quote_status(session, quote, status, now_ms);
}

void set_transaction_outcome(soci::session& session, const transaction_record& t,
                             const transaction_record* outgoing_in_hand) {
    if (deferred_writes* deferred = deferred_for_new_rows(session, outgoing_in_hand)) {
        if (deferred->restate_row(t.id, transaction_insert_statement(t))) return;
        deferred->add_statement(
            {"UPDATE transactions SET status = $1, failure_reason = $2, refund = $3, "
             "settled_at_ms = $4, updated_at_ms = $5 WHERE id = packed_id($6)",
             {t.status, t.failure_reason, t.refund, std::to_string(t.settled_at_ms),
              std::to_string(t.updated_at_ms), t.id}});
        return;
    }
    store_transaction_outcome(session, t);
}

// The ACCOUNT_STATUS event of the internal account that paid the quote, read after its debit.
void record_funding_balance(soci::session& session, const payment_services& services,
                            const quote_record& quote, const std::string& funding_account_id,
                            const std::string& platform_customer_id) {
    if (record_balance_event_late(session, services.ids, services.time, services.currencies,
                                  quote.owner, funding_account_id, quote.source_customer_id,
                                  quote.sending_currency, -quote.priced.total_sending,
                                  platform_customer_id)) {
        return;
    }
    auto source_after = account_balance(session, funding_account_id);
    CORRIDOR_ASSERT(source_after.has_value());
    record_balance_event(session, services.ids, services.time, services.currencies, quote.owner,
                         funding_account_id, quote.source_customer_id, quote.sending_currency,
                         *source_after + quote.priced.total_sending, *source_after,
                         platform_customer_id);
}

// The payout half of settle() for an external destination: the payout is held in its currency's
// settlement account and the payment engine takes it from there. The quote is PROCESSING and its
// OUTGOING transaction PENDING until the rail reports.
result<transaction_record, payment_failure> start_quote_payout(
    soci::session& session, const payment_services& services, const quote_record& quote,
    const external_destination& destination, const payout_leg& leg,
    const std::string& funding_account_id, bool funding_is_internal,
    const transaction_record* outgoing_in_hand) {
    book_services book{services.ids, services.random, services.time};
    const tenant& owner = quote.owner;
    std::string liquidity =
        ensure_account(session, book, owner, account_kind::liquidity, "", leg.currency);
    std::string settlement =
        ensure_account(session, book, owner, account_kind::settlement, "", leg.currency);
    auto held = post_transfer(
        session, book, owner,
        {liquidity, settlement, leg.amount, leg.currency, "payout", quote.transaction_id});
    CORRIDOR_ASSERT(held.ok());  // service accounts have no overdraft guard
    std::int64_t now_ms = services.time.now_ms();
    update_quote_status(session, quote, "PROCESSING", now_ms);
    services.payouts->start(session, owner, destination, quote.transaction_id,
                            funding_is_internal ? funding_account_id : std::string(), leg.amount,
                            quote.description);
    transaction_record outgoing = outgoing_of(session, quote, outgoing_in_hand);
    if (!outgoing_in_hand) {
        // Made by an earlier command (a quote executed or funded after it was made): its money
        // moved now, so it changed now, though it stays PENDING until the rail reports. The
        // operator's view finds its transfers by the time of its last change (operator_views.cpp).
        outgoing.updated_at_ms = now_ms;
        long long updated_ms = now_ms;
        run_prepared(session, "UPDATE transactions SET updated_at_ms = :u WHERE id = packed_id(:i)",
                     updated_ms, outgoing.id);
    }
    if (funding_is_internal) {
        record_funding_balance(session, services, quote, funding_account_id,
                               outgoing.platform_customer_id);
    }
    return outgoing;
}

// The transfers that pay a quote: the funding debit into the sending liquidity account (the one
// that can be refused: insufficient funds), the fee, and, to an internal destination
// (`credits_destination`), its credit from the receiving liquidity account. Posted together: in
// the writer's batch on PostgreSQL one round trip for their updates.
std::optional<payment_failure> post_quote_transfers(soci::session& session,
                                                    const payment_services& services,
                                                    const quote_record& quote,
                                                    const std::string& funding_account_id,
                                                    const std::string& funding_code,
                                                    bool credits_destination) {
    book_services book{services.ids, services.random, services.time};
    const tenant& owner = quote.owner;
    std::string liquidity_sending =
        ensure_account(session, book, owner, account_kind::liquidity, "", quote.sending_currency);
    std::vector<transfer_request> moves = {{funding_account_id, liquidity_sending,
                                            quote.priced.total_sending, quote.sending_currency,
                                            funding_code, quote.transaction_id}};
    if (quote.priced.fees_included > 0) {
        std::string fees =
            ensure_account(session, book, owner, account_kind::fees, "", quote.sending_currency);
        moves.push_back({liquidity_sending, fees, quote.priced.fees_included,
                         quote.sending_currency, "fee", quote.transaction_id});
    }
    if (credits_destination) {
        std::string liquidity_receiving = ensure_account(
            session, book, owner, account_kind::liquidity, "", quote.receiving_currency);
        moves.push_back({liquidity_receiving, quote.destination_account_id,
                         quote.priced.total_receiving, quote.receiving_currency, "receive",
                         quote.transaction_id});
    }
    auto posted = post_transfers(session, book, owner, moves);
    if (!posted) {
        // Service accounts have no overdraft guard, and the destination was checked with the quote:
        // only the funding debit can be refused.
        CORRIDOR_ASSERT(posted.error().index == 0);
        if (posted.error().error == transfer_error::insufficient_funds) {
            return failure(payment_error::insufficient_balance,
                           "the source account's balance does not cover " +
                               std::to_string(quote.priced.total_sending) + " " +
                               quote.sending_currency);
        }
        return failure(payment_error::source_account_not_found,
                       "the source account cannot pay this quote");
    }
    return std::nullopt;
}

// Marks the quote and its OUTGOING transaction COMPLETED; returns the transaction as written.
transaction_record complete_outgoing(soci::session& session, const quote_record& quote,
                                     std::int64_t now_ms,
                                     const transaction_record* outgoing_in_hand) {
    set_quote_status(session, quote, "COMPLETED", now_ms, outgoing_in_hand);
    transaction_record outgoing = outgoing_of(session, quote, outgoing_in_hand);
    outgoing.status = "COMPLETED";
    outgoing.settled_at_ms = now_ms;
    outgoing.updated_at_ms = now_ms;
    set_transaction_outcome(session, outgoing, outgoing_in_hand);
    return outgoing;
}

// The receiver's INCOMING transaction of a settled quote, COMPLETED, not yet written.
transaction_record incoming_transaction_of(soci::session& session, const payment_services& services,
                                           const quote_record& quote,
                                           const transaction_record& outgoing,
                                           std::int64_t now_ms) {
    transaction_record incoming;
    incoming.id = services.ids.next("Transaction");
    incoming.owner = quote.owner;
    incoming.tenant_key = quote.tenant_key;
    incoming.type = "INCOMING";
    incoming.status = "COMPLETED";
    incoming.quote_id = quote.id;
    incoming.customer_id = quote.destination_customer_id;
    // A customer's platformCustomerId never changes: the sender's, just looked up, serves when the
    // receiver is the same customer.
    incoming.platform_customer_id =
        !incoming.customer_id.empty() && incoming.customer_id == outgoing.customer_id
            ? outgoing.platform_customer_id
            : platform_customer_id_of(session, quote.owner, incoming.customer_id);
    incoming.source_type = quote.source_type;
    incoming.source_account_id = quote.source_account_id;
    incoming.source_currency = quote.sending_currency;
    incoming.destination_type = "ACCOUNT";
    incoming.destination_account_id = quote.destination_account_id;
    incoming.destination_currency = quote.receiving_currency;
    incoming.received_amount = quote.priced.total_receiving;
    incoming.rate_details = outgoing.rate_details;
    incoming.rate_details_from_quote = outgoing.rate_details_from_quote;
    incoming.description = quote.description;
    incoming.reference = outgoing.reference;
    incoming.reference_from_quote = outgoing.reference_from_quote;
    incoming.settled_at_ms = incoming.created_at_ms = incoming.updated_at_ms = now_ms;
    return incoming;
}

// The events of a settled quote: both payments, then the balances of the internal account that
// paid (if one did) and of the destination.
void record_settlement_events(soci::session& session, const payment_services& services,
                              const quote_record& quote, const transaction_record& outgoing,
                              const transaction_record& incoming,
                              const std::string& funding_account_id, bool funding_is_internal) {
    record_payment_event(session, services.ids, services.time, services.currencies, outgoing);
    record_payment_event(session, services.ids, services.time, services.currencies, incoming);
    if (funding_is_internal) {
        record_funding_balance(session, services, quote, funding_account_id,
                               outgoing.platform_customer_id);
    }
    if (record_balance_event_late(session, services.ids, services.time, services.currencies,
                                  quote.owner, quote.destination_account_id,
                                  quote.destination_customer_id, quote.receiving_currency,
                                  quote.priced.total_receiving, incoming.platform_customer_id)) {
        return;
    }
    auto destination_after = account_balance(session, quote.destination_account_id);
    CORRIDOR_ASSERT(destination_after.has_value());
    record_balance_event(session, services.ids, services.time, services.currencies, quote.owner,
                         quote.destination_account_id, quote.destination_customer_id,
                         quote.receiving_currency,
                         *destination_after - quote.priced.total_receiving, *destination_after,
                         incoming.platform_customer_id);
}

}  // namespace

// Moves a priced quote's money: `funding_account` pays total_sending into the sending liquidity
// account (the one step that can be refused: insufficient funds), fees move to the fee account, and
// the receiving liquidity account pays the destination. Then marks quote and transaction COMPLETED,
// records the receiver's INCOMING transaction, and writes the events.
//
// Nothing is read back that the quote already says: accounts are immutable apart from their
// balances and are never deleted, so the destination (checked when the quote was made) still exists
// with the owner and currency the quote recorded. The balances for the events are read after the
// transfers, from rows this transaction now holds, so they are exactly what the transfers left.
// `outgoing` is the quote's OUTGOING transaction when the caller has it in hand (it was written in
// this same command); otherwise it is read.
result<transaction_record, payment_failure> settle(
    soci::session& session, const payment_services& services, const quote_record& quote,
    const std::string& funding_account_id, const std::string& funding_code,
    bool funding_is_internal, const transaction_record* outgoing_in_hand) {
    auto payout = payout_of(session, services, quote);
    if (!payout) return payout.error();
    const auto& leg = payout.value();
    if (auto refused = post_quote_transfers(session, services, quote, funding_account_id,
                                            funding_code, !leg)) {
        return *refused;
    }
    if (leg) {
        return start_quote_payout(session, services, quote, leg->first, leg->second,
                                  funding_account_id, funding_is_internal, outgoing_in_hand);
    }
    std::int64_t now_ms = services.time.now_ms();
    transaction_record outgoing = complete_outgoing(session, quote, now_ms, outgoing_in_hand);
    transaction_record incoming =
        incoming_transaction_of(session, services, quote, outgoing, now_ms);
    if (deferred_writes* deferred = deferred_for_new_rows(session, outgoing_in_hand)) {
        deferred->add_statement(transaction_insert_statement(incoming));
    } else {
        store_new_transaction(session, incoming);
    }
    record_settlement_events(session, services, quote, outgoing, incoming, funding_account_id,
                             funding_is_internal);
    return outgoing;
}

// Executes a quote as found (or as just created), after the checks of execute_quote.
result<quote_record, payment_failure> execute_found_quote(
    soci::session& session, const payment_services& services, const quote_record& quote,
    const transaction_record* outgoing_in_hand) {
    const std::string& quote_id = quote.id;
    // Expired is expired whether or not the sweeper has marked it yet.
    if (quote.status == "EXPIRED") {
        return failure(payment_error::quote_expired, "quote " + quote_id + " expired at " +
                                                         format_timestamp_ms(quote.expires_at_ms));
    }
    if (quote.status != "PENDING") {
        return failure(
            payment_error::quote_not_pending,
            "quote " + quote_id + " is " + quote.status + "; only PENDING quotes can be executed");
    }
    if (services.time.now_ms() >= quote.expires_at_ms) {
        return failure(payment_error::quote_expired, "quote " + quote_id + " expired at " +
                                                         format_timestamp_ms(quote.expires_at_ms));
    }
    if (quote.source_type != "ACCOUNT") {
        return failure(
            payment_error::quote_not_executable,
            "quote " + quote_id + " is funded by its payment instructions, not executed");
    }
    auto settled =
        settle(session, services, quote, quote.source_account_id, "send", true, outgoing_in_hand);
    if (!settled) return settled.error();
    // What update_quote_status wrote.
    quote_record completed = quote;
    completed.status = is_external_account_id(quote.destination_account_id) ||
                               quote.destination_type == "UMA_ADDRESS"
                           ? "PROCESSING"
                           : "COMPLETED";
    completed.updated_at_ms = settled->updated_at_ms;
    return completed;
}

result<quote_record, payment_failure> execute_quote(soci::session& session,
                                                    const payment_services& services,
                                                    const tenant& owner,
                                                    const std::string& quote_id) {
    auto quote = find_quote(session, owner, quote_id);
    if (!quote) return failure(payment_error::quote_not_found, "no quote " + quote_id);
    // The quote may predate the deletion of either customer, or a change of the sender's KYC.
    auto sender = facts_of_owner(session, owner, quote->source_customer_id);
    if (sender.deleted() ||
        facts_of_owner(session, owner, quote->destination_customer_id).deleted()) {
        return failure(payment_error::customer_deleted,
                       "quote " + quote_id + " is between accounts of a deleted customer");
    }
    if (!sender.ready()) return not_ready(quote->source_customer_id, sender.kyc_status);
    return execute_found_quote(session, services, *quote, nullptr);
}

}  // namespace corridor
