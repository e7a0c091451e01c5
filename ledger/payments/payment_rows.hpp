#pragma once
// How quotes and transactions are stored: their rows, columns and write statements. Shared by the
// files of ledger/payments/ only; the interface is payments.hpp.
#include <soci/soci.h>

#include <string>
#include <string_view>

#include "ledger/payments/payments.hpp"
#include "ledger/store/batch_send.hpp"

namespace corridor {

// A rational as stored: "numerator/denominator".
std::string rational_text(const rational& value);
rational parse_rational_text(const std::string& text);

// A transaction's rate details from its quote's columns as transaction_select reads them:
// "counterparty_multiplier counterparty_fixed_fee service_multiplier service_fixed_fee
// variable_fee_rate variable_fee_amount", the rationals exact, so the doubles are the ones the
// payment rendered.
std::string rate_details_of_quote_columns(const std::string& columns);

// A row's owner is the caller's tenant, which every read by tenant filters on (tenant_key_filter):
// the row holds its number, not its name.
struct quote_row {
    std::string id, status, source_type, source_account_id, source_customer_id, destination_type,
        destination_account_id, destination_customer_id, sending_currency, receiving_currency,
        locked_side;
    long long locked_amount = 0, total_sending = 0, net_sending = 0, total_receiving = 0,
              fees_included = 0;
    std::string exchange_rate, counterparty_multiplier, service_multiplier, variable_fee_rate;
    long long counterparty_fixed_fee = 0, service_fixed_fee = 0, variable_fee_amount = 0;
    std::string purpose_of_payment, description, transaction_id, funding_reference,
        payment_instructions;
    long long created_at_ms = 0, expires_at_ms = 0, updated_at_ms = 0;
    long long tenant_key = 0;

    void bind(soci::statement& s) {
        s.exchange(soci::into(id));
        s.exchange(soci::into(tenant_key));
        for (auto* text : {&status, &source_type, &source_account_id, &source_customer_id,
                           &destination_type, &destination_account_id, &destination_customer_id,
                           &sending_currency, &receiving_currency, &locked_side}) {
            s.exchange(soci::into(*text));
        }
        for (auto* number :
             {&locked_amount, &total_sending, &net_sending, &total_receiving, &fees_included}) {
            s.exchange(soci::into(*number));
        }
        for (auto* text :
             {&exchange_rate, &counterparty_multiplier, &service_multiplier, &variable_fee_rate}) {
            s.exchange(soci::into(*text));
        }
        for (auto* number : {&counterparty_fixed_fee, &service_fixed_fee, &variable_fee_amount}) {
            s.exchange(soci::into(*number));
        }
        for (auto* text : {&purpose_of_payment, &description, &transaction_id, &funding_reference,
                           &payment_instructions}) {
            s.exchange(soci::into(*text));
        }
        for (auto* number : {&created_at_ms, &expires_at_ms, &updated_at_ms})
            s.exchange(soci::into(*number));
    }

    quote_record to_record(const tenant& owner) const {
        quote_record q;
        q.id = id;
        q.owner = owner;
        q.tenant_key = tenant_key;
        q.status = status;
        q.source_type = source_type;
        q.source_account_id = source_account_id;
        q.source_customer_id = source_customer_id;
        q.destination_type = destination_type;
        q.destination_account_id = destination_account_id;
        q.destination_customer_id = destination_customer_id;
        q.sending_currency = sending_currency;
        q.receiving_currency = receiving_currency;
        q.locked_side = locked_side;
        q.locked_amount = locked_amount;
        q.priced.total_sending = total_sending;
        q.priced.net_sending = net_sending;
        q.priced.total_receiving = total_receiving;
        q.priced.fees_included = fees_included;
        q.priced.exchange_rate = parse_rational_text(exchange_rate);
        q.priced.counterparty_multiplier = parse_rational_text(counterparty_multiplier);
        q.priced.service_multiplier = parse_rational_text(service_multiplier);
        q.priced.variable_fee_rate = parse_rational_text(variable_fee_rate);
        q.priced.counterparty_fixed_fee = counterparty_fixed_fee;
        q.priced.service_fixed_fee = service_fixed_fee;
        q.priced.variable_fee_amount = variable_fee_amount;
        q.purpose_of_payment = purpose_of_payment;
        q.description = description;
        q.transaction_id = transaction_id;
        q.funding_reference = funding_reference;
        q.payment_instructions = payment_instructions;
        q.created_at_ms = created_at_ms;
        q.expires_at_ms = expires_at_ms;
        q.updated_at_ms = updated_at_ms;
        CORRIDOR_ASSERT(q.priced.net_sending + q.priced.fees_included == q.priced.total_sending);
        return q;
    }
};

inline constexpr const char* quote_columns =
    "id, tenant_key, status, source_type, source_account_id, source_customer_id, "
    "destination_type, destination_account_id, destination_customer_id, sending_currency, "
    "receiving_currency, locked_side, locked_amount, total_sending, net_sending, total_receiving, "
    "fees_included, exchange_rate, counterparty_multiplier, service_multiplier, variable_fee_rate, "
    "counterparty_fixed_fee, service_fixed_fee, variable_fee_amount, purpose_of_payment, "
    "description, transaction_id, funding_reference, payment_instructions, created_at_ms, "
    "expires_at_ms, updated_at_ms";

struct transaction_row {
    std::string id, type, status, quote_id, customer_id, platform_customer_id, source_type,
        source_account_id, source_currency, destination_type, destination_account_id,
        destination_currency;
    long long sent_amount = 0, received_amount = 0, fees = 0;
    std::string exchange_rate, rate_details, description, failure_reason, reference, refund;
    long long settled_at_ms = 0, created_at_ms = 0, updated_at_ms = 0;
    std::string payment_instructions, counterparty_data;
    std::string quote_rates;      // the quote's rate columns when the row stores no rate details
    std::string quote_reference;  // the quote's funding reference when the row stores none
    long long tenant_key = 0;

    void bind(soci::statement& s) {
        s.exchange(soci::into(id));
        s.exchange(soci::into(tenant_key));
        for (auto* text : {&type, &status, &quote_id, &customer_id, &platform_customer_id,
                           &source_type, &source_account_id, &source_currency, &destination_type,
                           &destination_account_id, &destination_currency}) {
            s.exchange(soci::into(*text));
        }
        for (auto* number : {&sent_amount, &received_amount, &fees})
            s.exchange(soci::into(*number));
        for (auto* text :
             {&exchange_rate, &rate_details, &description, &failure_reason, &reference, &refund}) {
            s.exchange(soci::into(*text));
        }
        for (auto* number : {&settled_at_ms, &created_at_ms, &updated_at_ms})
            s.exchange(soci::into(*number));
        s.exchange(soci::into(payment_instructions));
        s.exchange(soci::into(counterparty_data));
        s.exchange(soci::into(quote_rates));
        s.exchange(soci::into(quote_reference));
    }

    // The owner as quote_row's.
    transaction_record to_record(const tenant& owner) const {
        transaction_record t{id,
                             owner,
                             type,
                             status,
                             quote_id,
                             customer_id,
                             platform_customer_id,
                             source_type,
                             source_account_id,
                             source_currency,
                             destination_type,
                             destination_account_id,
                             destination_currency,
                             sent_amount,
                             received_amount,
                             fees,
                             exchange_rate,
                             rate_details,
                             description,
                             failure_reason,
                             reference,
                             refund,
                             settled_at_ms,
                             created_at_ms,
                             updated_at_ms,
                             payment_instructions,
                             counterparty_data};
        t.tenant_key = tenant_key;
        if (rate_details.empty() && !quote_rates.empty()) {
            t.rate_details = rate_details_of_quote_columns(quote_rates);
            t.rate_details_from_quote = true;
        }
        if (reference.empty() && !quote_reference.empty()) {
            t.reference = quote_reference;
            t.reference_from_quote = true;
        }
        return t;
    }
};

inline constexpr const char* transaction_columns =
    "id, tenant_key, type, status, quote_id, customer_id, platform_customer_id, "
    "source_type, source_account_id, source_currency, destination_type, destination_account_id, "
    "destination_currency, sent_amount, received_amount, fees, exchange_rate, rate_details, "
    "description, failure_reason, reference, refund, settled_at_ms, created_at_ms, updated_at_ms";

// What a read of transaction_columns selects: the ids a transaction stores as 16 bytes
// (migration 49) back as their text, '' for none; prefixed with `alias` as quote_select_columns.
std::string transaction_select_columns(std::string_view alias = "");

// A read of transactions: transaction_select_columns, then the payment instructions of the
// transaction's quote (an OUTGOING transaction shows them) and, for an OUTGOING UMA payment, the
// payee data the receiver's provider returned (uma_payments names its tenant by platform id: the
// one of the transaction's key). A function: other files' statics are made from it.
const std::string& transaction_select();

// What a read of quote_columns selects: the customer and transaction ids a quote stores as 16
// bytes (migration 48) back as their text, '' for none; each column prefixed with `alias` and a
// dot when one is given, for a join.
std::string quote_select_columns(std::string_view alias = "");

void insert_quote(soci::session& session, const quote_record& q);
void update_quote_status(soci::session& session, const quote_record& q, const std::string& status,
                         std::int64_t now_ms);
// The INSERT of a new quote as a statement for the ledger writer's flush (text parameters).
pipelined_statement quote_insert_statement(const quote_record& q);
// The INSERT of a new transaction, likewise.
pipelined_statement transaction_insert_statement(const transaction_record& t);

}  // namespace corridor
