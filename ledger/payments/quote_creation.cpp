// Creating quotes: the checks of source and destination, the price, and the quote's rows.
#include <boost/json.hpp>

#include "ledger/base/assert.hpp"
#include "ledger/base/time_format.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/customers/kyc.hpp"
#include "ledger/payments/payment_checks.hpp"
#include "ledger/payments/payment_json.hpp"
#include "ledger/payments/payment_rows.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/payments/quote_execution.hpp"
#include "ledger/payments/quote_payouts.hpp"
#include "ledger/payments/uma_payments.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/deferred_writes.hpp"

namespace corridor {
namespace json = boost::json;

namespace {

std::string upper_reference(random_source& random, std::size_t chars) {
    std::string reference = random_base32(random, chars);
    for (auto& c : reference) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return reference;
}

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

// What quote creation learns of the sender while checking the source.
struct quote_sender {
    std::string platform_customer_id;  // read once with the source's checks
    std::optional<owner_facts> facts;  // the source account's owner, when read
};

// An internal account pays: it must be a customer's or the platform's, belong to the customer the
// request names, and its owner must not be deleted and may move money.
// `executes_internal`: created and executed at once to an internal account, whose customers'
// states may become conditions of its debit (facts_of_owner_for_payment).
std::optional<payment_failure> check_account_source(soci::session& session, const tenant& owner,
                                                    const quote_request& request,
                                                    quote_record& quote, quote_sender& sender,
                                                    bool executes_internal) {
    auto source = find_account_identity(session, owner, request.source_account_id);
    if (!source ||
        (source->kind != account_kind::customer && source->kind != account_kind::platform)) {
        return failure(payment_error::source_account_not_found,
                       "source.accountId: no internal account " + request.source_account_id,
                       "source.accountId");
    }
    if (!request.source_customer_id.empty() && request.source_customer_id != source->owner_id) {
        return failure(payment_error::customer_account_mismatch,
                       "source.customerId: the source account does not belong to this customer",
                       "source.customerId");
    }
    auto source_owner = executes_internal
                            ? facts_of_owner_for_payment(session, owner, source->owner_id, true)
                            : facts_of_owner(session, owner, source->owner_id);
    if (source_owner.deleted()) {
        return failure(payment_error::customer_deleted,
                       "source.accountId: the account's customer is deleted", "source.accountId");
    }
    if (!source_owner.ready()) return not_ready(source->owner_id, source_owner.kyc_status);
    sender.platform_customer_id = source_owner.platform_customer_id;
    sender.facts = source_owner;
    quote.source_account_id = source->id;
    quote.source_customer_id = source->owner_id;
    quote.sending_currency = source->currency;
    return std::nullopt;
}

// Funds from outside pay (REALTIME_FUNDING): the customer on whose behalf, when named, must exist
// and may move money.
std::optional<payment_failure> check_funded_source(soci::session& session, const tenant& owner,
                                                   const quote_request& request,
                                                   quote_record& quote, quote_sender& sender) {
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
        sender.platform_customer_id = customer->platform_customer_id;
    }
    quote.source_customer_id = request.source_customer_id;
    quote.sending_currency = request.source_currency;
    return std::nullopt;
}

// An UMA receiver, invoiced and priced before the writer ran; the rail that pays the invoice must
// take it.
std::optional<payment_failure> check_uma_destination(soci::session& session,
                                                     const payment_services& services,
                                                     const tenant& owner,
                                                     const quote_request& request,
                                                     quote_record& quote) {
    const uma_quote_terms& uma = *request.uma;
    if (request.source_type != "ACCOUNT" || uma.sending_currency != quote.sending_currency) {
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
    return std::nullopt;
}

// An external account, paid out through a rail.
std::optional<payment_failure> check_external_destination(soci::session& session,
                                                          const payment_services& services,
                                                          const tenant& owner,
                                                          const quote_request& request,
                                                          quote_record& quote) {
    auto destination =
        external_destination_for(session, services, owner, request, quote.source_customer_id);
    if (!destination) return destination.error();
    quote.destination_account_id = destination->account_id;
    quote.destination_customer_id = destination->customer_id;
    quote.receiving_currency = destination->currency;
    return std::nullopt;
}

// An internal account: a customer's or the platform's.
std::optional<payment_failure> check_internal_destination(soci::session& session,
                                                          const tenant& owner,
                                                          const quote_request& request,
                                                          quote_record& quote) {
    auto destination = find_account_identity(session, owner, request.destination_account_id);
    if (!destination || (destination->kind != account_kind::customer &&
                         destination->kind != account_kind::platform)) {
        return failure(payment_error::destination_account_not_found,
                       "destination.accountId: no account " + request.destination_account_id,
                       "destination.accountId");
    }
    quote.destination_account_id = destination->id;
    quote.destination_customer_id = destination->owner_id;
    quote.receiving_currency = destination->currency;
    return std::nullopt;
}

// The destination, of whichever kind, and never an account of a deleted customer.
std::optional<payment_failure> check_destination(soci::session& session,
                                                 const payment_services& services,
                                                 const tenant& owner, const quote_request& request,
                                                 quote_record& quote, const quote_sender& sender,
                                                 bool executes_internal) {
    quote.destination_type = "ACCOUNT";
    std::optional<payment_failure> refused =
        request.uma ? check_uma_destination(session, services, owner, request, quote)
        : is_external_account_id(request.destination_account_id)
            ? check_external_destination(session, services, owner, request, quote)
            : check_internal_destination(session, owner, request, quote);
    if (refused) return refused;
    // A customer paying between its own accounts was just read as the source's owner.
    const std::string& receiver = quote.destination_customer_id;
    bool destination_deleted =
        sender.facts && receiver == quote.source_customer_id ? sender.facts->deleted()
        : executes_internal ? facts_of_owner_for_payment(session, owner, receiver, false).deleted()
                            : facts_of_owner(session, owner, receiver).deleted();
    if (destination_deleted) {
        return failure(payment_error::customer_deleted,
                       "destination.accountId: the account's customer is deleted",
                       "destination.accountId");
    }
    return std::nullopt;
}

// The quote's two currencies and the platform's terms for them.
struct quote_currencies {
    const currency* sending = nullptr;
    const currency* receiving = nullptr;
    const supported_currency* sending_terms = nullptr;
    const supported_currency* receiving_terms = nullptr;
};

// Both currencies must be different, known and enabled for their direction on this platform.
result<quote_currencies, payment_failure> check_currencies(const payment_services& services,
                                                           const platform_config& config,
                                                           const quote_request& request,
                                                           const quote_record& quote) {
    // An UMA payment crosses providers (and Lightning) whatever its two currencies.
    if (!request.uma && quote.sending_currency == quote.receiving_currency) {
        return failure(payment_error::same_currency,
                       "sending and receiving currency are both " + quote.sending_currency +
                           "; use transfer-in or transfer-out for same-currency transfers");
    }
    quote_currencies found{services.currencies.find(quote.sending_currency),
                           services.currencies.find(quote.receiving_currency),
                           find_supported_currency(config, quote.sending_currency),
                           find_supported_currency(config, quote.receiving_currency)};
    if (!found.sending || !found.sending_terms) {
        return failure(payment_error::currency_not_supported,
                       quote.sending_currency + " is not a supported currency of this platform",
                       "source");
    }
    // The platform's receiving terms are about its own customers: an UMA receiver is another
    // provider's, whose range the pay request already respected.
    if (!request.uma && (!found.receiving || !found.receiving_terms)) {
        return failure(payment_error::currency_not_supported,
                       quote.receiving_currency + " is not a supported currency of this platform",
                       "destination");
    }
    if (!enabled_for(*found.sending_terms, "OUTGOING")) {
        return failure(payment_error::currency_not_enabled,
                       quote.sending_currency + " is not enabled for OUTGOING transactions",
                       "source");
    }
    if (!request.uma && !enabled_for(*found.receiving_terms, "INCOMING")) {
        return failure(payment_error::currency_not_enabled,
                       quote.receiving_currency + " is not enabled for INCOMING transactions",
                       "destination");
    }
    return found;
}

// The price from the environment's exchange rates; an UMA payment comes priced.
result<price, payment_failure> price_quote(const payment_services& services, const tenant& owner,
                                           const quote_request& request, const quote_record& quote,
                                           const quote_currencies& currencies) {
    if (request.uma) return request.uma->priced;
    const rate_source& rates = services.rates_for(owner.env);
    auto terms = rates.terms(*currencies.sending, *currencies.receiving);
    if (!terms) {
        return failure(payment_error::currency_not_supported,
                       rates.configured() ? "no exchange rate for " + quote.sending_currency +
                                                " to " + quote.receiving_currency
                                          : "the operator has not configured exchange rates for " +
                                                std::string(to_string(owner.env)));
    }
    auto priced = price_transfer(*currencies.sending, *currencies.receiving, *terms, request.side,
                                 request.locked_amount);
    if (!priced) {
        return failure(payment_error::amount_out_of_range,
                       priced.error() == pricing_error::amount_too_small
                           ? "lockedCurrencyAmount is too small to cover fees and convert to "
                             "one minor unit"
                           : "lockedCurrencyAmount is too large",
                       "lockedCurrencyAmount");
    }
    return priced.value();
}

// Both amounts must lie within the platform's limits for their currency (the receiving ones are
// not an UMA receiver's).
std::optional<payment_failure> check_amount_limits(const quote_request& request,
                                                   const quote_record& quote, const price& p,
                                                   const quote_currencies& currencies) {
    const supported_currency* sending_terms = currencies.sending_terms;
    const supported_currency* receiving_terms = currencies.receiving_terms;
    if (p.total_sending < sending_terms->min_amount ||
        p.total_sending > sending_terms->max_amount) {
        return failure(payment_error::amount_out_of_range,
                       "totalSendingAmount " + std::to_string(p.total_sending) + " is outside " +
                           quote.sending_currency + " limits " +
                           std::to_string(sending_terms->min_amount) + " to " +
                           std::to_string(sending_terms->max_amount),
                       "lockedCurrencyAmount");
    }
    if (!request.uma && (p.total_receiving < receiving_terms->min_amount ||
                         p.total_receiving > receiving_terms->max_amount)) {
        return failure(payment_error::amount_out_of_range,
                       "totalReceivingAmount " + std::to_string(p.total_receiving) +
                           " is outside " + quote.receiving_currency + " limits " +
                           std::to_string(receiving_terms->min_amount) + " to " +
                           std::to_string(receiving_terms->max_amount),
                       "lockedCurrencyAmount");
    }
    return std::nullopt;
}

// Makes the checked quote a PENDING one at price p: its ids, funding reference and expiry.
void open_quote(const payment_services& services, const quote_request& request, const price& p,
                std::int64_t now_ms, quote_record& quote) {
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
}

// A quote funded from outside says how to pay it; one paid from an internal account says nothing.
std::optional<payment_failure> attach_payment_instructions(const payment_services& services,
                                                           std::int64_t now_ms,
                                                           quote_record& quote) {
    if (quote.source_type != "REALTIME_FUNDING") {
        quote.payment_instructions = "[]";
        return std::nullopt;
    }
    const tenant& owner = quote.owner;
    const price& p = quote.priced;
    std::string notes = "Send exactly " + std::to_string(p.total_sending) + " " +
                        quote.sending_currency + " (minor units) with reference " +
                        quote.funding_reference + " before " +
                        format_timestamp_ms(quote.expires_at_ms);
    // Stored with the quote: a rail may give fresh details per call (a Lightning invoice), and
    // the quote must show the same ones on every read.
    auto found = select_funding_instructions(
        services.funding_rails, services.funding_for(owner.env),
        funding_instruction_request{owner, quote.id, quote.sending_currency,
                                    quote.funding_reference, p.total_sending, now_ms},
        notes);
    if (found.instructions.empty()) {
        return failure(payment_error::no_funding_instructions, found.problem, "source.currency");
    }
    quote.payment_instructions = json::serialize(found.instructions);
    return std::nullopt;
}

// Writes the quote (and an UMA payment's record). Returns where the inserts of this command's new
// rows wait for the flush, or null when they are written at once.
deferred_writes* store_quote(soci::session& session, const quote_request& request,
                             std::int64_t now_ms, const quote_record& quote, bool executes_now) {
    // Create-and-execute to an internal account: the quote and its transaction are rows no other
    // command can know before the commit, and nothing of this command reads them back (it keeps
    // them in hand), so their inserts wait for the flush with their updates, and each is written
    // once in its final state, on both databases. A payout's rail operation refers to the
    // transaction at once, so payouts insert now.
    deferred_writes* deferred_rows =
        executes_now && !request.uma && !is_external_account_id(quote.destination_account_id)
            ? deferred_writes_of(session)
            : nullptr;
    if (deferred_rows) {
        deferred_rows->add_row_statement(quote.id, quote_insert_statement(quote));
    } else {
        insert_quote(session, quote);
    }
    if (request.uma) {
        uma_payment_record payment = request.uma->payment;
        payment.quote_id = quote.id;
        payment.owner = quote.owner;
        payment.created_at_ms = now_ms;
        insert_uma_payment(session, payment);
    }
    return deferred_rows;
}

// The quote's OUTGOING transaction, PENDING until the quote is executed or funded.
transaction_record outgoing_transaction_of(const quote_request& request, const quote_record& quote,
                                           const std::string& platform_customer_id,
                                           std::int64_t now_ms) {
    const price& p = quote.priced;
    transaction_record outgoing;
    outgoing.id = quote.transaction_id;
    outgoing.owner = quote.owner;
    outgoing.tenant_key = quote.tenant_key;
    outgoing.type = "OUTGOING";
    outgoing.status = "PENDING";
    outgoing.quote_id = quote.id;
    outgoing.customer_id = quote.source_customer_id;
    outgoing.platform_customer_id = platform_customer_id;
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
    outgoing.rate_details_from_quote = true;
    outgoing.description = quote.description;
    outgoing.reference = quote.funding_reference;
    outgoing.reference_from_quote = true;
    outgoing.payment_instructions = quote.payment_instructions;
    if (request.uma) outgoing.counterparty_data = request.uma->payment.payee_data;
    outgoing.created_at_ms = outgoing.updated_at_ms = now_ms;
    return outgoing;
}

// Creates a quote and its OUTGOING transaction; hands the transaction to the caller when asked.
// Every check runs before anything is written.
result<quote_record, payment_failure> create_quote_records(soci::session& session,
                                                           const payment_services& services,
                                                           const platform_config& config,
                                                           const quote_request& request,
                                                           transaction_record* outgoing_out) {
    CORRIDOR_ASSERT(request.locked_amount > 0 && request.locked_amount <= amount_max);
    const tenant& owner = config.owner;
    quote_record quote;
    quote.owner = owner;
    quote.tenant_key = config.tenant_key;
    quote.source_type = request.source_type;
    quote_sender sender;
    bool executes_internal = outgoing_out != nullptr && !request.uma &&
                             !is_external_account_id(request.destination_account_id);
    auto source_refused =
        request.source_type == "ACCOUNT"
            ? check_account_source(session, owner, request, quote, sender, executes_internal)
            : check_funded_source(session, owner, request, quote, sender);
    if (source_refused) return *source_refused;
    if (auto refused = check_destination(session, services, owner, request, quote, sender,
                                         executes_internal)) {
        return *refused;
    }
    auto currencies = check_currencies(services, config, request, quote);
    if (!currencies) return currencies.error();
    auto priced = price_quote(services, owner, request, quote, currencies.value());
    if (!priced) return priced.error();
    if (auto refused = check_amount_limits(request, quote, priced.value(), currencies.value()))
        return *refused;
    std::int64_t now_ms = services.time.now_ms();
    open_quote(services, request, priced.value(), now_ms, quote);
    if (auto refused = attach_payment_instructions(services, now_ms, quote)) return *refused;
    deferred_writes* deferred_rows =
        store_quote(session, request, now_ms, quote, outgoing_out != nullptr);
    transaction_record outgoing =
        outgoing_transaction_of(request, quote, sender.platform_customer_id, now_ms);
    if (deferred_rows) {
        deferred_rows->add_row_statement(outgoing.id, transaction_insert_statement(outgoing));
    } else {
        store_new_transaction(session, outgoing);
    }
    // One event per state that commits: a quote executed at once to an internal account commits
    // COMPLETED (settle writes that event) or nothing (a refused execution rolls the command
    // back), so its PENDING state is never seen and gets no event. A quote kept PENDING, or a
    // payout's, which stays PENDING until its rail reports, sends this one.
    if (!executes_internal) {
        record_payment_event(session, services.ids, services.time, services.currencies, outgoing);
    }
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

}  // namespace corridor
