#pragma once
// Quotes and transactions: pricing a transfer, executing it through the book, funding it just in
// time, expiring it. Every function here runs inside the ledger writer's transaction and either
// applies completely or writes nothing (the one debit that can be refused is taken first).
// Implemented by decision: quote_creation.cpp (checks and price of a new quote),
// quote_execution.cpp (execution and settlement), quote_payouts.cpp (payouts' completion and
// refund), payment_funding.cpp, payment_queries.cpp (find, list, expire), payment_rows.cpp
// (storage), payment_events.cpp; the interface's JSON is payment_json.hpp.
#include <soci/soci.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ledger/base/result.hpp"
#include "ledger/book/book.hpp"
#include "ledger/book/currencies.hpp"
#include "ledger/book/pricing.hpp"
#include "ledger/book/rates.hpp"
#include "ledger/payments/funding_instructions.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/store/page.hpp"

namespace corridor {

struct quote_record {
    std::string id;
    tenant owner;
    std::string status;       // PENDING, PROCESSING, COMPLETED, FAILED, EXPIRED
    std::string source_type;  // ACCOUNT or REALTIME_FUNDING
    std::string source_account_id, source_customer_id;
    std::string destination_type;  // ACCOUNT or UMA_ADDRESS
    // An account id, or for UMA_ADDRESS the receiver's address ("$user@domain"); the customer is
    // empty for UMA receivers (they are another provider's).
    std::string destination_account_id, destination_customer_id;
    std::string sending_currency, receiving_currency;
    std::string locked_side;  // SENDING or RECEIVING
    std::int64_t locked_amount = 0;
    price priced;
    std::string purpose_of_payment, description, transaction_id, funding_reference;
    std::string payment_instructions;  // JSON array text
    std::int64_t created_at_ms = 0, expires_at_ms = 0, updated_at_ms = 0;
    // The owner's tenant key as stored (platform_config::tenant_key): set from the configuration
    // the quote was made under, or read with the row.
    std::int64_t tenant_key = 0;
};

struct transaction_record {
    std::string id;
    tenant owner;
    std::string type;    // INCOMING or OUTGOING
    std::string status;  // CREATED, PENDING, PROCESSING, SENT, COMPLETED, REJECTED, FAILED,
                         // REFUNDED, EXPIRED
    std::string quote_id, customer_id, platform_customer_id;
    std::string source_type, source_account_id, source_currency;
    // destination_account_id is the receiver's address when destination_type is UMA_ADDRESS.
    std::string destination_type, destination_account_id, destination_currency;
    std::int64_t sent_amount = 0, received_amount = 0, fees = 0;
    std::string exchange_rate;  // "numerator/denominator", or empty
    std::string rate_details;   // JSON object text
    std::string description, failure_reason, reference;
    std::string refund;  // JSON object text, or empty
    std::int64_t settled_at_ms = 0, created_at_ms = 0, updated_at_ms = 0;
    std::string payment_instructions;  // the quote's, as JSON array text (read, never stored here)
    // UMA transactions: what the counterparty's provider sent of the counterparty (an outgoing
    // payment's payee data), as JSON object text; empty for other transactions. Read from the UMA
    // payment record, never stored here.
    std::string counterparty_data;
    // The rate details are rate_details_json of the quote's price: the row stores none and reads
    // them back from the quote's columns (no copy of what the quote keeps).
    bool rate_details_from_quote = false;
    // Likewise the reference: a payment's two transactions carry their quote's funding reference,
    // which their rows do not store again (read back from the quote).
    bool reference_from_quote = false;
    // The owner's tenant key as stored (platform_config::tenant_key), when known: read with the
    // row, or taken from the quote. 0: the insert looks it up by the owner (store_new_transaction).
    std::int64_t tenant_key = 0;
};

enum class payment_error {
    source_account_not_found,
    destination_account_not_found,
    customer_not_found,
    customer_deleted,
    customer_account_mismatch,
    same_currency,
    currency_not_supported,
    currency_not_enabled,
    no_funding_instructions,
    amount_out_of_range,
    insufficient_balance,
    quote_not_found,
    quote_not_pending,
    quote_expired,
    quote_not_executable,
    funding_currency_mismatch,
    account_not_found,
    user_not_ready,                // the sending customer's KYC does not allow money movement
    destination_not_payable,       // an external destination that is not ACTIVE or no rail accepts
    external_payouts_unavailable,  // no payment engine in this process
    rail_unavailable,              // the rail cannot take payments now (503, retry later)
    invoice_not_payable,           // the rail refuses an UMA receiver's invoice
};

struct payment_failure {
    payment_error code;
    std::string message;  // for the client: what was wrong, naming the field
    std::string field;
};

// What a quote needs to know of an external account it pays out to, as the gateway checked it.
struct external_destination {
    std::string account_id;   // ExternalAccount:<uuid>
    std::string customer_id;  // empty for the platform's own accounts
    std::string currency;
    std::string account_type, account_json;  // accountInfo.accountType and the accountInfo JSON
    std::string rail;                        // the rail that accepted the details
};

// Payouts of quotes whose destination is an external account, through a rail. The payment engine
// (rails/) implements it; the ledger holds the money and records the quote, the gateway moves it.
class external_payout_gateway {
public:
    virtual ~external_payout_gateway() = default;
    // The destination if it can be paid now (it exists, is ACTIVE, and a rail serving its account
    // type accepts its details); otherwise a failure naming destination.accountId. Writes nothing.
    virtual result<external_destination, payment_failure> check(
        soci::session& session, const tenant& owner, const std::string& external_account_id) = 0;
    // The same for a destination that is no stored account, only details (the invoice of an UMA
    // receiver): the rail serving account_type in the tenant's environment must accept them. The
    // destination has no account id; a failure names `field`.
    virtual result<external_destination, payment_failure> check_details(
        soci::session& session, const tenant& owner, const std::string& account_type,
        const std::string& currency, const std::string& account_json, const std::string& field) = 0;
    // Starts the payout of `amount` (receiving currency, already held in that currency's settlement
    // account) to a destination check() accepted, for the OUTGOING transaction, in the caller's
    // transaction. `internal_account_id` is the internal account the quote debited (empty for a
    // quote funded from outside).
    virtual void start(soci::session& session, const tenant& owner,
                       const external_destination& destination, const std::string& transaction_id,
                       const std::string& internal_account_id, std::int64_t amount,
                       const std::string& description) = 0;
};

// True for ids of external accounts ("ExternalAccount:..."), which a quote's destination.accountId
// may name instead of an internal account.
bool is_external_account_id(const std::string& id);

struct payment_services {
    id_generator& ids;
    random_source& random;
    const clock& time;
    const currency_registry& currencies;
    const rate_source& rates;
    const funding_directory& funding;
    std::int64_t quote_ttl_ms = 300000;
    // Quotes to external accounts need it; without one they are refused (501).
    external_payout_gateway* payouts = nullptr;
    // The rails' funding instructions; null: only the configured ones (funding).
    funding_instruction_source* funding_rails = nullptr;
    // The sandbox's own prices and bank details; null: the sandbox uses `rates` and `funding`.
    const rate_source* sandbox_rates = nullptr;
    const funding_directory* sandbox_funding = nullptr;

    const rate_source& rates_for(environment env) const {
        return env == environment::sandbox && sandbox_rates != nullptr ? *sandbox_rates : rates;
    }
    const funding_directory& funding_for(environment env) const {
        return env == environment::sandbox && sandbox_funding != nullptr ? *sandbox_funding
                                                                         : funding;
    }
};

struct uma_quote_terms;  // ledger/payments/uma_payments.hpp

struct quote_request {
    std::string source_type;             // ACCOUNT or REALTIME_FUNDING
    std::string source_account_id;       // ACCOUNT
    std::string source_customer_id;      // optional: on whose behalf
    std::string source_currency;         // REALTIME_FUNDING
    std::string destination_account_id;  // ACCOUNT destinations
    // UMA_ADDRESS destinations: the receiver's invoice and the price, prepared before the writer
    // runs (the caller keeps it alive); null for accounts.
    const uma_quote_terms* uma = nullptr;
    locked_side side = locked_side::sending;
    std::int64_t locked_amount = 0;
    std::string purpose_of_payment, description;
};

result<quote_record, payment_failure> create_quote(soci::session& session,
                                                   const payment_services& services,
                                                   const platform_config& config,
                                                   const quote_request& request);
// create_quote then execute_quote in one command (immediatelyExecute), without reading back the
// records the creation just wrote. Either both happen or, on a failure, the caller rolls back.
result<quote_record, payment_failure> create_and_execute_quote(soci::session& session,
                                                               const payment_services& services,
                                                               const platform_config& config,
                                                               const quote_request& request);
result<quote_record, payment_failure> execute_quote(soci::session& session,
                                                    const payment_services& services,
                                                    const tenant& owner,
                                                    const std::string& quote_id);
// Funds arriving for a REALTIME_FUNDING quote (the sandbox's stand-in for a bank deposit). The
// right amount completes the payment; any other amount fails it with FUNDING_AMOUNT_MISMATCH and
// the funds are returned. Returns the OUTGOING transaction.
result<transaction_record, payment_failure> receive_quote_funding(
    soci::session& session, const payment_services& services, const tenant& owner,
    const std::string& quote_id, const std::string& currency, std::optional<std::int64_t> amount);
// Sandbox deposit into an internal account; returns the account after the deposit.
result<ledger_account, payment_failure> fund_internal_account(soci::session& session,
                                                              const payment_services& services,
                                                              const tenant& owner,
                                                              const std::string& account_id,
                                                              std::int64_t amount);
// Expires PENDING quotes whose time has passed (any tenant), at most `limit`; returns how many.
int expire_due_quotes(soci::session& session, const payment_services& services, int limit);

std::optional<quote_record> find_quote(soci::session& session, const tenant& owner,
                                       const std::string& id);
struct quote_filter {
    std::optional<std::string> customer_id, sending_account_id, receiving_account_id, status;
    // The UMA address of the sending / receiving customer (normalised "$user@domain").
    std::optional<std::string> sending_uma_address, receiving_uma_address;
    std::optional<std::int64_t> created_after_ms, created_before_ms;
};
page<quote_record> list_quotes(soci::session& session, const tenant& owner,
                               const quote_filter& filter, const page_request& request);

std::optional<transaction_record> find_transaction(soci::session& session, const tenant& owner,
                                                   const std::string& id);
struct transaction_filter {
    std::optional<std::string> customer_id, platform_customer_id, sender_account_id,
        receiver_account_id, status, type, reference;
    std::optional<std::int64_t> start_ms, end_ms;
};
page<transaction_record> list_transactions(soci::session& session, const tenant& owner,
                                           const transaction_filter& filter,
                                           const page_request& request);

// The outcome of a quote's payout to an external account or an UMA receiver, as the payment engine
// learns it, in the engine's transaction. Completing marks the quote COMPLETED (and, for an UMA
// receiver that asked for one, writes its post-transaction callback). Failing marks it FAILED and
// puts the money back where it came from, in the sending currency: the held payout (the receiving
// amount, or an UMA payment's bitcoin) returns to its liquidity account, the fees leave the fee
// account, and the whole totalSendingAmount
// returns to the source account (or, for a quote funded from outside, to the sending currency's
// settlement account, i.e. back to the payer); the source's ACCOUNT_STATUS event is written.
// The caller records the transaction's own outcome.
void complete_quote_payout(soci::session& session, const clock& time, const tenant& owner,
                           const std::string& quote_id);
void refund_quote_payout(soci::session& session, id_generator& ids, random_source& random,
                         const clock& time, const currency_registry& currencies,
                         const tenant& owner, const std::string& quote_id);

// The one way transactions and their events are written, by the payments here and by those driven
// through rails (rails/payment_engine.hpp), which keep their own operation state.
void store_new_transaction(soci::session& session, const transaction_record& transaction);
// Writes status, failure_reason, refund, settled_at and updated_at.
void store_transaction_outcome(soci::session& session, const transaction_record& transaction);
// Gives a transaction that has no failure reason this one, leaving its status (a COMPLETED payment
// whose counterparty could not be told, COUNTERPARTY_POST_TX_FAILED), and writes its event, in the
// caller's transaction. False, writing nothing, when it is not found or already has a reason.
bool note_transaction_failure_reason(soci::session& session, id_generator& ids, const clock& time,
                                     const currency_registry& currencies, const tenant& owner,
                                     const std::string& transaction_id, const std::string& reason);
// The INCOMING_PAYMENT / OUTGOING_PAYMENT event of a transaction, in the caller's transaction.
void record_payment_event(soci::session& session, id_generator& ids, const clock& time,
                          const currency_registry& currencies,
                          const transaction_record& transaction);
// The ACCOUNT_STATUS event of an internal account whose balance moved from old to new: accountId,
// oldBalance, newBalance, and the owner's customerId and platformCustomerId when it has them.
void record_balance_event(soci::session& session, id_generator& ids, const clock& time,
                          const currency_registry& currencies, const tenant& owner,
                          const std::string& account_id, const std::string& customer_id,
                          const std::string& currency, std::int64_t old_balance,
                          std::int64_t new_balance, const std::string& platform_customer_id = {});
// The same event when the account's balance after `change` (signed) is still to come from a
// guarded statement of the ledger writer's optimistic attempt: built at the batch's flush. False,
// recording nothing, when no such answer is awaited (the caller reads the balance and records the
// event itself).
bool record_balance_event_late(soci::session& session, id_generator& ids, const clock& time,
                               const currency_registry& currencies, const tenant& owner,
                               const std::string& account_id, const std::string& customer_id,
                               const std::string& currency, std::int64_t change,
                               const std::string& platform_customer_id);

}  // namespace corridor
