#include "ledger/payments/payments.hpp"

#include <array>
#include <boost/json.hpp>
#include <boost/json/monotonic_resource.hpp>
#include <cstddef>

#include "ledger/base/assert.hpp"
#include "ledger/payments/counterparty_fields.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/deferred_writes.hpp"
#include "ledger/customers/kyc.hpp"
#include "ledger/store/outbox.hpp"
#include "ledger/store/statement_cache.hpp"
#include "ledger/base/time_format.hpp"
#include "ledger/payments/uma_payments.hpp"
#include "ledger/payments/uma_post_transactions.hpp"
#include "ledger/payments/payment_json.hpp"
#include "ledger/payments/payment_rows.hpp"

namespace corridor {
namespace json = boost::json;

namespace {

std::string upper_reference(random_source& random, std::size_t chars) {
    std::string reference = random_base32(random, chars);
    for (auto& c : reference) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return reference;
}

const std::string quote_by_id_sql = std::string("SELECT ") + quote_columns +
                                    " FROM quotes WHERE platform_id = :p AND environment = :e AND id = :i";
const std::string transaction_by_id_sql =
    transaction_select + " WHERE platform_id = :p AND environment = :e AND id = :i";

}  // namespace

namespace {

// Event payloads live only until serialized: they are built in an arena on the stack instead of
// allocating every node.
constexpr std::size_t event_arena_bytes = 8192;

// What a payment needs to know of an account's owner, read in one query.
struct owner_facts {
    int is_deleted = 0;
    std::string platform_customer_id;
    std::string kyc_status = "APPROVED";  // the platform itself is never gated
    void bind(soci::statement& statement) {
        statement.exchange(soci::into(is_deleted));
        statement.exchange(soci::into(platform_customer_id));
        statement.exchange(soci::into(kyc_status));
    }
    bool deleted() const { return is_deleted != 0; }
    bool ready() const { return kyc_allows_money_movement(kyc_status); }
};

// The owning customer's facts; the platform's own accounts (no customer) are never deleted and
// carry no platformCustomerId.
owner_facts facts_of_owner(soci::session& session, const tenant& owner, const std::string& customer_id) {
    owner_facts facts;
    if (customer_id.empty()) return facts;
    std::string env_name(owner.env_name());
    bool found = fetch_prepared(session,
                                "SELECT is_deleted, platform_customer_id, kyc_status FROM customers WHERE id = :i "
                                "AND platform_id = :p AND environment = :e",
                                facts, customer_id, owner.platform_id, env_name);
    CORRIDOR_ASSERT(found);  // an account's owner is never removed, only marked deleted
    return facts;
}

std::string platform_customer_id_of(soci::session& session, const tenant& owner,
                                    const std::string& customer_id) {
    return facts_of_owner(session, owner, customer_id).platform_customer_id;
}

payment_failure failure(payment_error code, std::string message, std::string field = "") {
    return payment_failure{code, std::move(message), std::move(field)};
}

// KYC gating: a customer who is not APPROVED or MANUALLY_APPROVED moves no money.
payment_failure not_ready(const std::string& customer_id, const std::string& kyc_status) {
    return failure(payment_error::user_not_ready,
                   "customer " + customer_id + " cannot move money while its KYC status is " +
                       kyc_status + "; complete the hosted KYC flow first");
}

// What a payout leaves the book with: the receiving amount for an external account, the bitcoin
// held for the invoice of an UMA receiver.
struct payout_leg {
    std::string currency;
    std::int64_t amount = 0;
};

std::string invoice_account_json(const std::string& invoice) {
    return json::serialize(json::object{{"accountType", "LIGHTNING"}, {"invoice", invoice}});
}

// A rail that refuses an UMA receiver's invoice refuses what the receiver answered.
payment_failure uma_payout_failure(payment_failure refused) {
    if (refused.code == payment_error::destination_not_payable) {
        refused.code = payment_error::invoice_not_payable;
        refused.message = "the receiver's invoice cannot be paid: " + refused.message;
    }
    return refused;
}

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
// (`outgoing_in_hand` set): no other command can know those rows before the batch commits, so on
// PostgreSQL the writer sends the updates with its flush instead of waiting for each. Null when
// they must be sent at once.
deferred_writes* deferred_for_new_rows(soci::session& session,
                                       const transaction_record* outgoing_in_hand) {
    if (!outgoing_in_hand || backend_of(session) != database_backend::postgresql) return nullptr;
    return deferred_writes_of(session);
}

void set_quote_status(soci::session& session, const quote_record& quote, const std::string& status,
                      std::int64_t now_ms, const transaction_record* outgoing_in_hand) {
    if (deferred_writes* deferred = deferred_for_new_rows(session, outgoing_in_hand)) {
        deferred->add_statement({"UPDATE quotes SET status = $1, updated_at_ms = $2 WHERE id = $3",
                                 {status, std::to_string(now_ms), quote.id}});
        return;
    }
    update_quote_status(session, quote, status, now_ms);
}

void set_transaction_outcome(soci::session& session, const transaction_record& t,
                             const transaction_record* outgoing_in_hand) {
    if (deferred_writes* deferred = deferred_for_new_rows(session, outgoing_in_hand)) {
        deferred->add_statement(
            {"UPDATE transactions SET status = $1, failure_reason = $2, refund = $3, "
             "settled_at_ms = $4, updated_at_ms = $5 WHERE id = $6",
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
    if (funding_is_internal) {
        record_funding_balance(session, services, quote, funding_account_id,
                               outgoing.platform_customer_id);
    }
    return outgoing;
}

// Moves a priced quote's money: `funding_account` pays total_sending into the sending liquidity
// account (the one step that can be refused: insufficient funds), fees move to the fee account, and
// the receiving liquidity account pays the destination. Then marks quote and transaction COMPLETED,
// records the receiver's INCOMING transaction, and writes the events.
//
// Nothing is read back that the quote already says: accounts are immutable apart from their
// balances and are never deleted, so the destination (checked when the quote was made) still exists
// with the owner and currency the quote recorded. The balances for the events are read after the
// transfers, from rows this transaction now holds, so they are exactly what the transfers left. `outgoing` is the quote's OUTGOING transaction when the caller has
// it in hand (it was written in this same command); otherwise it is read.
result<transaction_record, payment_failure> settle(soci::session& session,
                                                   const payment_services& services,
                                                   const quote_record& quote,
                                                   const std::string& funding_account_id,
                                                   const std::string& funding_code,
                                                   bool funding_is_internal,
                                                   const transaction_record* outgoing_in_hand) {
    book_services book{services.ids, services.random, services.time};
    const tenant& owner = quote.owner;
    auto payout = payout_of(session, services, quote);
    if (!payout) return payout.error();
    std::string liquidity_sending =
        ensure_account(session, book, owner, account_kind::liquidity, "", quote.sending_currency);
    auto debit = post_transfer(session, book, owner,
                               {funding_account_id, liquidity_sending, quote.priced.total_sending,
                                quote.sending_currency, funding_code, quote.transaction_id});
    if (!debit) {
        if (debit.error() == transfer_error::insufficient_funds) {
            return failure(payment_error::insufficient_balance,
                           "the source account's balance does not cover " +
                               std::to_string(quote.priced.total_sending) + " " + quote.sending_currency);
        }
        return failure(payment_error::source_account_not_found, "the source account cannot pay this quote");
    }
    if (quote.priced.fees_included > 0) {
        std::string fees = ensure_account(session, book, owner, account_kind::fees, "", quote.sending_currency);
        auto fee = post_transfer(session, book, owner,
                                 {liquidity_sending, fees, quote.priced.fees_included,
                                  quote.sending_currency, "fee", quote.transaction_id});
        CORRIDOR_ASSERT(fee.ok());  // service accounts have no overdraft guard
    }
    if (const auto& leg = payout.value()) {
        return start_quote_payout(session, services, quote, leg->first, leg->second,
                                  funding_account_id, funding_is_internal, outgoing_in_hand);
    }
    std::string liquidity_receiving =
        ensure_account(session, book, owner, account_kind::liquidity, "", quote.receiving_currency);
    auto credit = post_transfer(session, book, owner,
                                {liquidity_receiving, quote.destination_account_id, quote.priced.total_receiving,
                                 quote.receiving_currency, "receive", quote.transaction_id});
    CORRIDOR_ASSERT(credit.ok());

    std::int64_t now_ms = services.time.now_ms();
    set_quote_status(session, quote, "COMPLETED", now_ms, outgoing_in_hand);
    transaction_record outgoing = outgoing_of(session, quote, outgoing_in_hand);
    outgoing.status = "COMPLETED";
    outgoing.settled_at_ms = now_ms;
    outgoing.updated_at_ms = now_ms;
    set_transaction_outcome(session, outgoing, outgoing_in_hand);

    transaction_record incoming;
    incoming.id = services.ids.next("Transaction");
    incoming.owner = owner;
    incoming.type = "INCOMING";
    incoming.status = "COMPLETED";
    incoming.quote_id = quote.id;
    incoming.customer_id = quote.destination_customer_id;
    // A customer's platformCustomerId never changes: the sender's, just looked up, serves when the
    // receiver is the same customer.
    incoming.platform_customer_id =
        !incoming.customer_id.empty() && incoming.customer_id == outgoing.customer_id
            ? outgoing.platform_customer_id
            : platform_customer_id_of(session, owner, incoming.customer_id);
    incoming.source_type = quote.source_type;
    incoming.source_account_id = quote.source_account_id;
    incoming.source_currency = quote.sending_currency;
    incoming.destination_type = "ACCOUNT";
    incoming.destination_account_id = quote.destination_account_id;
    incoming.destination_currency = quote.receiving_currency;
    incoming.received_amount = quote.priced.total_receiving;
    incoming.rate_details = outgoing.rate_details;
    incoming.description = quote.description;
    incoming.reference = outgoing.reference;
    incoming.settled_at_ms = incoming.created_at_ms = incoming.updated_at_ms = now_ms;
    if (deferred_writes* deferred = deferred_for_new_rows(session, outgoing_in_hand)) {
        deferred->add_statement(transaction_insert_statement(incoming));
    } else {
        store_new_transaction(session, incoming);
    }

    record_payment_event(session, services.ids, services.time, services.currencies, outgoing);
    record_payment_event(session, services.ids, services.time, services.currencies, incoming);
    if (funding_is_internal) {
        record_funding_balance(session, services, quote, funding_account_id,
                               outgoing.platform_customer_id);
    }
    auto destination_after = account_balance(session, quote.destination_account_id);
    CORRIDOR_ASSERT(destination_after.has_value());
    record_balance_event(session, services.ids, services.time, services.currencies, owner,
                         quote.destination_account_id, quote.destination_customer_id,
                         quote.receiving_currency,
                         *destination_after - quote.priced.total_receiving, *destination_after,
                         incoming.platform_customer_id);
    return outgoing;
}

// Executes a quote as found (or as just created), after the checks of execute_quote.
result<quote_record, payment_failure> execute_found_quote(soci::session& session,
                                                          const payment_services& services,
                                                          const quote_record& quote,
                                                          const transaction_record* outgoing_in_hand) {
    const std::string& quote_id = quote.id;
    // Expired is expired whether or not the sweeper has marked it yet.
    if (quote.status == "EXPIRED") {
        return failure(payment_error::quote_expired, "quote " + quote_id + " expired at " +
                                                         format_timestamp_ms(quote.expires_at_ms));
    }
    if (quote.status != "PENDING") {
        return failure(payment_error::quote_not_pending, "quote " + quote_id + " is " + quote.status +
                                                             "; only PENDING quotes can be executed");
    }
    if (services.time.now_ms() >= quote.expires_at_ms) {
        return failure(payment_error::quote_expired, "quote " + quote_id + " expired at " +
                                                         format_timestamp_ms(quote.expires_at_ms));
    }
    if (quote.source_type != "ACCOUNT") {
        return failure(payment_error::quote_not_executable,
                       "quote " + quote_id + " is funded by its payment instructions, not executed");
    }
    auto settled = settle(session, services, quote, quote.source_account_id, "send", true, outgoing_in_hand);
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

}  // namespace

// ---------------------------------------------------------------------------------------------
// Quotes

namespace {

// The external account a quote pays out to, checked by the payment engine's gateway. A customer's
// money goes only to that customer's own external accounts or the platform's, as with transfer-out.
result<external_destination, payment_failure> external_destination_for(
    soci::session& session, const payment_services& services, const tenant& owner,
    const quote_request& request, const std::string& source_customer_id) {
    if (services.payouts == nullptr) {
        return failure(payment_error::external_payouts_unavailable,
                       "destination.accountId: payouts to external accounts are not available in "
                       "this process",
                       "destination.accountId");
    }
    auto destination = services.payouts->check(session, owner, request.destination_account_id);
    if (!destination) return destination.error();
    if (!destination->customer_id.empty() && !source_customer_id.empty() &&
        destination->customer_id != source_customer_id) {
        return failure(payment_error::customer_account_mismatch,
                       "destination.accountId: external account " + destination->account_id +
                           " belongs to another customer",
                       "destination.accountId");
    }
    return destination;
}

// Creates a quote and its OUTGOING transaction; hands the transaction to the caller when asked.
result<quote_record, payment_failure> create_quote_records(soci::session& session,
                                                           const payment_services& services,
                                                           const platform_config& config,
                                                           const quote_request& request,
                                                           transaction_record* outgoing_out) {
    CORRIDOR_ASSERT(request.locked_amount > 0 && request.locked_amount <= amount_max);
    const tenant& owner = config.owner;
    quote_record quote;
    quote.owner = owner;
    quote.source_type = request.source_type;
    std::string sending_currency;
    std::string source_platform_customer_id;  // read once with the source's checks
    std::optional<owner_facts> source_facts;  // the source account's owner, when read
    if (request.source_type == "ACCOUNT") {
        auto source = find_account(session, owner, request.source_account_id);
        if (!source || (source->kind != account_kind::customer && source->kind != account_kind::platform)) {
            return failure(payment_error::source_account_not_found,
                           "source.accountId: no internal account " + request.source_account_id,
                           "source.accountId");
        }
        if (!request.source_customer_id.empty() && request.source_customer_id != source->owner_id) {
            return failure(payment_error::customer_account_mismatch,
                           "source.customerId: the source account does not belong to this customer",
                           "source.customerId");
        }
        auto source_owner = facts_of_owner(session, owner, source->owner_id);
        if (source_owner.deleted()) {
            return failure(payment_error::customer_deleted,
                           "source.accountId: the account's customer is deleted", "source.accountId");
        }
        if (!source_owner.ready()) return not_ready(source->owner_id, source_owner.kyc_status);
        source_platform_customer_id = source_owner.platform_customer_id;
        source_facts = source_owner;
        quote.source_account_id = source->id;
        quote.source_customer_id = source->owner_id;
        sending_currency = source->currency;
    } else {
        CORRIDOR_ASSERT(request.source_type == "REALTIME_FUNDING");
        if (!request.source_customer_id.empty()) {
            auto customer = find_customer(session, owner, request.source_customer_id);
            if (!customer || customer->is_deleted) {
                return failure(payment_error::customer_not_found,
                               "source.customerId: no customer " + request.source_customer_id,
                               "source.customerId");
            }
            if (!kyc_allows_money_movement(customer->kyc_status)) {
                return not_ready(customer->id, customer->kyc_status);
            }
            source_platform_customer_id = customer->platform_customer_id;
        }
        quote.source_customer_id = request.source_customer_id;
        sending_currency = request.source_currency;
    }
    quote.destination_type = "ACCOUNT";
    if (request.uma) {
        // An UMA receiver, invoiced and priced before the writer ran; the rail that pays the
        // invoice must take it.
        const uma_quote_terms& uma = *request.uma;
        if (request.source_type != "ACCOUNT" || uma.sending_currency != sending_currency) {
            return failure(payment_error::quote_not_executable,
                           "source: a payment to an UMA address is paid from the internal "
                           "account it was priced for",
                           "source");
        }
        if (services.payouts == nullptr) {
            return failure(payment_error::external_payouts_unavailable,
                           "destination.umaAddress: payouts are not available in this process",
                           "destination.umaAddress");
        }
        auto payable = services.payouts->check_details(session, owner, "LIGHTNING", "BTC",
                                                       invoice_account_json(uma.payment.invoice),
                                                       "destination.umaAddress");
        if (!payable) return uma_payout_failure(payable.error());
        quote.destination_type = "UMA_ADDRESS";
        quote.destination_account_id = uma.payment.receiver_uma_address;
        quote.receiving_currency = uma.receiving_currency;
    } else if (is_external_account_id(request.destination_account_id)) {
        auto destination = external_destination_for(session, services, owner, request,
                                                    quote.source_customer_id);
        if (!destination) return destination.error();
        quote.destination_account_id = destination->account_id;
        quote.destination_customer_id = destination->customer_id;
        quote.receiving_currency = destination->currency;
    } else {
        auto destination = find_account(session, owner, request.destination_account_id);
        if (!destination || (destination->kind != account_kind::customer &&
                             destination->kind != account_kind::platform)) {
            return failure(payment_error::destination_account_not_found,
                           "destination.accountId: no account " + request.destination_account_id,
                           "destination.accountId");
        }
        quote.destination_account_id = destination->id;
        quote.destination_customer_id = destination->owner_id;
        quote.receiving_currency = destination->currency;
    }
    // A customer paying between its own accounts was just read as the source's owner.
    bool destination_deleted =
        source_facts && quote.destination_customer_id == quote.source_customer_id
            ? source_facts->deleted()
            : facts_of_owner(session, owner, quote.destination_customer_id).deleted();
    if (destination_deleted) {
        return failure(payment_error::customer_deleted,
                       "destination.accountId: the account's customer is deleted",
                       "destination.accountId");
    }
    quote.sending_currency = sending_currency;
    // An UMA payment crosses providers (and Lightning) whatever its two currencies.
    if (!request.uma && quote.sending_currency == quote.receiving_currency) {
        return failure(payment_error::same_currency,
                       "sending and receiving currency are both " + quote.sending_currency +
                           "; use transfer-in or transfer-out for same-currency transfers");
    }
    const currency* sending = services.currencies.find(quote.sending_currency);
    const currency* receiving = services.currencies.find(quote.receiving_currency);
    const supported_currency* sending_terms = find_supported_currency(config, quote.sending_currency);
    const supported_currency* receiving_terms = find_supported_currency(config, quote.receiving_currency);
    if (!sending || !sending_terms) {
        return failure(payment_error::currency_not_supported,
                       quote.sending_currency + " is not a supported currency of this platform", "source");
    }
    // The platform's receiving terms are about its own customers: an UMA receiver is another
    // provider's, whose range the pay request already respected.
    if (!request.uma && (!receiving || !receiving_terms)) {
        return failure(payment_error::currency_not_supported,
                       quote.receiving_currency + " is not a supported currency of this platform", "destination");
    }
    if (!enabled_for(*sending_terms, "OUTGOING")) {
        return failure(payment_error::currency_not_enabled,
                       quote.sending_currency + " is not enabled for OUTGOING transactions", "source");
    }
    if (!request.uma && !enabled_for(*receiving_terms, "INCOMING")) {
        return failure(payment_error::currency_not_enabled,
                       quote.receiving_currency + " is not enabled for INCOMING transactions", "destination");
    }
    std::optional<price> priced_here;
    if (!request.uma) {
        const rate_source& rates = services.rates_for(owner.env);
        auto terms = rates.terms(*sending, *receiving);
        if (!terms) {
            return failure(payment_error::currency_not_supported,
                           rates.configured() ? "no exchange rate for " + quote.sending_currency + " to " +
                                                    quote.receiving_currency
                                              : "the operator has not configured exchange rates for " +
                                                    std::string(to_string(owner.env)));
        }
        auto priced =
            price_transfer(*sending, *receiving, *terms, request.side, request.locked_amount);
        if (!priced) {
            return failure(payment_error::amount_out_of_range,
                           priced.error() == pricing_error::amount_too_small
                               ? "lockedCurrencyAmount is too small to cover fees and convert to "
                                 "one minor unit"
                               : "lockedCurrencyAmount is too large",
                           "lockedCurrencyAmount");
        }
        priced_here = priced.value();
    }
    const price& p = request.uma ? request.uma->priced : *priced_here;
    if (p.total_sending < sending_terms->min_amount || p.total_sending > sending_terms->max_amount) {
        return failure(payment_error::amount_out_of_range,
                       "totalSendingAmount " + std::to_string(p.total_sending) + " is outside " +
                           quote.sending_currency + " limits " + std::to_string(sending_terms->min_amount) +
                           " to " + std::to_string(sending_terms->max_amount),
                       "lockedCurrencyAmount");
    }
    if (!request.uma && (p.total_receiving < receiving_terms->min_amount ||
                         p.total_receiving > receiving_terms->max_amount)) {
        return failure(payment_error::amount_out_of_range,
                       "totalReceivingAmount " + std::to_string(p.total_receiving) + " is outside " +
                           quote.receiving_currency + " limits " + std::to_string(receiving_terms->min_amount) +
                           " to " + std::to_string(receiving_terms->max_amount),
                       "lockedCurrencyAmount");
    }
    std::int64_t now_ms = services.time.now_ms();
    quote.id = services.ids.next("Quote");
    quote.status = "PENDING";
    quote.locked_side = request.side == locked_side::sending ? "SENDING" : "RECEIVING";
    quote.locked_amount = request.locked_amount;
    quote.priced = p;
    quote.purpose_of_payment = request.purpose_of_payment;
    quote.description = request.description;
    quote.transaction_id = services.ids.next("Transaction");
    quote.funding_reference = "Q" + upper_reference(services.random, 15);
    quote.created_at_ms = quote.updated_at_ms = now_ms;
    quote.expires_at_ms = now_ms + services.quote_ttl_ms;
    // An UMA quote lives no longer than the receiver's invoice.
    if (request.uma) {
        quote.expires_at_ms =
            std::min(quote.expires_at_ms, request.uma->payment.invoice_expires_at_ms);
    }
    if (quote.source_type == "REALTIME_FUNDING") {
        std::string notes = "Send exactly " + std::to_string(p.total_sending) + " " + quote.sending_currency +
                            " (minor units) with reference " + quote.funding_reference +
                            " before " + format_timestamp_ms(quote.expires_at_ms);
        // Stored with the quote: a rail may give fresh details per call (a Lightning invoice), and
        // the quote must show the same ones on every read.
        auto found = select_funding_instructions(
            services.funding_rails, services.funding_for(owner.env),
            funding_instruction_request{owner, quote.id, quote.sending_currency, quote.funding_reference,
                                        p.total_sending, now_ms},
            notes);
        if (found.instructions.empty()) {
            return failure(payment_error::no_funding_instructions, found.problem, "source.currency");
        }
        quote.payment_instructions = json::serialize(found.instructions);
    } else {
        quote.payment_instructions = "[]";
    }
    // Create-and-execute to an internal account on PostgreSQL: the quote and its transaction are
    // rows no other command can know before the commit, and nothing of this command reads them
    // back (it keeps them in hand), so their inserts wait for the flush with their updates. A
    // payout's rail operation refers to the transaction at once, so payouts insert now.
    deferred_writes* deferred_rows =
        outgoing_out && !request.uma && !is_external_account_id(quote.destination_account_id) &&
                backend_of(session) == database_backend::postgresql
            ? deferred_writes_of(session)
            : nullptr;
    if (deferred_rows) {
        deferred_rows->add_statement(quote_insert_statement(quote));
    } else {
        insert_quote(session, quote);
    }
    if (request.uma) {
        uma_payment_record payment = request.uma->payment;
        payment.quote_id = quote.id;
        payment.owner = owner;
        payment.created_at_ms = now_ms;
        insert_uma_payment(session, payment);
    }

    transaction_record outgoing;
    outgoing.id = quote.transaction_id;
    outgoing.owner = owner;
    outgoing.type = "OUTGOING";
    outgoing.status = "PENDING";
    outgoing.quote_id = quote.id;
    outgoing.customer_id = quote.source_customer_id;
    outgoing.platform_customer_id = source_platform_customer_id;
    outgoing.source_type = quote.source_type;
    outgoing.source_account_id = quote.source_account_id;
    outgoing.source_currency = quote.sending_currency;
    // A payout leaves the book, as a transfer-out does.
    outgoing.destination_type = quote.destination_type == "UMA_ADDRESS" ? "UMA_ADDRESS"
                                : is_external_account_id(quote.destination_account_id)
                                    ? "EXTERNAL_ACCOUNT"
                                    : "ACCOUNT";
    outgoing.destination_account_id = quote.destination_account_id;
    outgoing.destination_currency = quote.receiving_currency;
    outgoing.sent_amount = p.total_sending;
    outgoing.received_amount = p.total_receiving;
    outgoing.fees = p.fees_included;
    outgoing.exchange_rate = rational_text(p.exchange_rate);
    outgoing.rate_details = rate_details_json(p);
    outgoing.description = quote.description;
    outgoing.reference = quote.funding_reference;
    outgoing.payment_instructions = quote.payment_instructions;
    if (request.uma) outgoing.counterparty_data = request.uma->payment.payee_data;
    outgoing.created_at_ms = outgoing.updated_at_ms = now_ms;
    if (deferred_rows) {
        deferred_rows->add_statement(transaction_insert_statement(outgoing));
    } else {
        store_new_transaction(session, outgoing);
    }
    record_payment_event(session, services.ids, services.time, services.currencies, outgoing);
    if (outgoing_out) *outgoing_out = std::move(outgoing);
    return quote;
}

}  // namespace

result<quote_record, payment_failure> create_quote(soci::session& session,
                                                   const payment_services& services,
                                                   const platform_config& config,
                                                   const quote_request& request) {
    return create_quote_records(session, services, config, request, nullptr);
}

result<quote_record, payment_failure> create_and_execute_quote(soci::session& session,
                                                               const payment_services& services,
                                                               const platform_config& config,
                                                               const quote_request& request) {
    transaction_record outgoing;
    auto created = create_quote_records(session, services, config, request, &outgoing);
    if (!created) return created.error();
    return execute_found_quote(session, services, created.value(), &outgoing);
}

result<quote_record, payment_failure> execute_quote(soci::session& session,
                                                    const payment_services& services,
                                                    const tenant& owner, const std::string& quote_id) {
    auto quote = find_quote(session, owner, quote_id);
    if (!quote) return failure(payment_error::quote_not_found, "no quote " + quote_id);
    // The quote may predate the deletion of either customer, or a change of the sender's KYC.
    auto sender = facts_of_owner(session, owner, quote->source_customer_id);
    if (sender.deleted() || facts_of_owner(session, owner, quote->destination_customer_id).deleted()) {
        return failure(payment_error::customer_deleted,
                       "quote " + quote_id + " is between accounts of a deleted customer");
    }
    if (!sender.ready()) return not_ready(quote->source_customer_id, sender.kyc_status);
    return execute_found_quote(session, services, *quote, nullptr);
}

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

int expire_due_quotes(soci::session& session, const payment_services& services, int limit) {
    CORRIDOR_ASSERT(limit > 0);
    long long now_ms = services.time.now_ms();
    std::vector<quote_record> due;
    {
        // The oldest expiries first, in the order of quotes_pending_expiry (status,
        // expires_at_ms): the scan starts at the first PENDING quote and stops at the first one
        // still valid, whatever the plan. Ordered by id instead, a generic plan (which cannot know
        // that few quotes are PENDING) walks the whole primary key to find none.
        static const std::string sql = std::string("SELECT ") + quote_columns +
                                       " FROM quotes WHERE status = 'PENDING' AND expires_at_ms <= "
                                       ":n ORDER BY expires_at_ms LIMIT :l";
        quote_row row;
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

// ---------------------------------------------------------------------------------------------
// Reads

std::optional<quote_record> find_quote(soci::session& session, const tenant& owner, const std::string& id) {
    quote_row row;
    std::string env_name(owner.env_name());
    if (!fetch_prepared(session, quote_by_id_sql.c_str(), row, owner.platform_id, env_name, id)) {
        return std::nullopt;
    }
    return row.to_record();
}

page<quote_record> list_quotes(soci::session& session, const tenant& owner, const quote_filter& filter,
                               const page_request& request) {
    sql_filter where = tenant_filter(owner);
    if (filter.customer_id) where.equals("source_customer_id", *filter.customer_id);
    if (filter.sending_account_id) where.equals("source_account_id", *filter.sending_account_id);
    if (filter.receiving_account_id) where.equals("destination_account_id", *filter.receiving_account_id);
    if (filter.status) where.equals("status", *filter.status);
    if (filter.created_after_ms) where.at_least("created_at_ms", *filter.created_after_ms);
    if (filter.created_before_ms) where.at_most("created_at_ms", *filter.created_before_ms);
    if (filter.sending_uma_address) {
        where.clause("source_customer_id IN (SELECT id FROM customers WHERE uma_address = {})",
                     *filter.sending_uma_address);
    }
    if (filter.receiving_uma_address) {
        // A customer of this platform, or a receiver at another provider.
        where.clause(
            "(destination_customer_id IN (SELECT id FROM customers WHERE uma_address = {}) "
            "OR (destination_type = 'UMA_ADDRESS' AND destination_account_id = {}))",
            *filter.receiving_uma_address);
    }
    return list_page<quote_record, quote_row>(session, "quotes",
                                              std::string("SELECT ") + quote_columns + " FROM quotes",
                                              where, request, [](const quote_row& r) { return r.to_record(); });
}

std::optional<transaction_record> find_transaction(soci::session& session, const tenant& owner,
                                                   const std::string& id) {
    transaction_row row;
    std::string env_name(owner.env_name());
    if (!fetch_prepared(session, transaction_by_id_sql.c_str(), row, owner.platform_id, env_name, id)) {
        return std::nullopt;
    }
    return row.to_record();
}

page<transaction_record> list_transactions(soci::session& session, const tenant& owner,
                                           const transaction_filter& filter,
                                           const page_request& request) {
    sql_filter where = tenant_filter(owner);
    if (filter.customer_id) where.equals("customer_id", *filter.customer_id);
    if (filter.platform_customer_id) where.equals("platform_customer_id", *filter.platform_customer_id);
    if (filter.sender_account_id) where.equals("source_account_id", *filter.sender_account_id);
    if (filter.receiver_account_id) where.equals("destination_account_id", *filter.receiver_account_id);
    if (filter.status) where.equals("status", *filter.status);
    if (filter.type) where.equals("type", *filter.type);
    if (filter.reference) where.equals("reference", *filter.reference);
    if (filter.start_ms) where.at_least("created_at_ms", *filter.start_ms);
    if (filter.end_ms) where.at_most("created_at_ms", *filter.end_ms);
    return list_page<transaction_record, transaction_row>(
        session, "transactions", transaction_select, where, request,
        [](const transaction_row& r) { return r.to_record(); });
}

void record_payment_event(soci::session& session, id_generator& ids, const clock& time,
                          const currency_registry& currencies, const transaction_record& t) {
    alignas(std::max_align_t) unsigned char buffer[event_arena_bytes];
    json::monotonic_resource arena(buffer, sizeof buffer);
    json::storage_ptr storage(&arena);
    json::object payload(storage);
    payload.emplace("transaction", render_transaction(t, currencies, storage));
    record_event(session, ids, time, t.owner,
                 t.type == "INCOMING" ? "INCOMING_PAYMENT" : "OUTGOING_PAYMENT",
                 json::serialize(payload));
}

bool note_transaction_failure_reason(soci::session& session, id_generator& ids, const clock& time,
                                     const currency_registry& currencies, const tenant& owner,
                                     const std::string& transaction_id, const std::string& reason) {
    std::string env_name(owner.env_name());
    long long now_ms = time.now_ms();
    // Conditional, so a concurrent status change is never overwritten and the event is written once.
    soci::statement update =
        (session.prepare << "UPDATE transactions SET failure_reason = :f, updated_at_ms = :u "
                            "WHERE platform_id = :p AND environment = :e AND id = :i AND "
                            "failure_reason = ''",
         soci::use(reason), soci::use(now_ms), soci::use(owner.platform_id), soci::use(env_name),
         soci::use(transaction_id));
    update.execute(true);
    if (update.get_affected_rows() != 1) return false;
    auto transaction = find_transaction(session, owner, transaction_id);
    CORRIDOR_ASSERT(transaction.has_value());  // updated just now, in this transaction
    record_payment_event(session, ids, time, currencies, *transaction);
    return true;
}

void record_balance_event(soci::session& session, id_generator& ids, const clock& time,
                          const currency_registry& currencies, const tenant& owner,
                          const std::string& account_id, const std::string& customer_id,
                          const std::string& currency, std::int64_t old_balance,
                          std::int64_t new_balance, const std::string& platform_customer_id) {
    alignas(std::max_align_t) unsigned char buffer[event_arena_bytes];
    json::monotonic_resource arena(buffer, sizeof buffer);
    json::storage_ptr storage(&arena);
    json::object payload(
        {{"accountId", account_id},
         {"oldBalance", json::object({{"amount", old_balance},
                                      {"currency", render_currency(currencies, currency, storage)}},
                                     storage)},
         {"newBalance", json::object({{"amount", new_balance},
                                      {"currency", render_currency(currencies, currency, storage)}},
                                     storage)}},
        storage);
    if (!customer_id.empty()) payload["customerId"] = customer_id;
    if (!platform_customer_id.empty()) payload["platformCustomerId"] = platform_customer_id;
    record_event(session, ids, time, owner, "ACCOUNT_STATUS", json::serialize(payload));
}

}  // namespace corridor
