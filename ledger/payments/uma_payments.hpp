#pragma once
// Payments to UMA addresses, sending side. A quote whose destination is an UMA address carries the
// invoice the receiver's provider issued for it (table uma_payments, one row per quote); executing
// the quote pays that invoice through the rail that pays Lightning invoices, holding payout_sats
// of bitcoin for it. The server prepares the terms (the pay request is network work, done before
// the ledger writer runs); everything here runs inside the caller's transaction.
#include <soci/soci.h>

#include <cstdint>
#include <optional>
#include <string>

#include "ledger/book/pricing.hpp"
#include "ledger/base/tenant.hpp"

namespace corridor {

struct uma_payment_record {
    std::string quote_id;
    tenant owner;
    std::string lookup_id;
    std::string receiver_uma_address;  // normalised "$user@domain"
    std::string payee_identifier;      // what the receiver signed its answers for
    std::string uma_version;           // of the exchange, "1.0" or "0.3"
    std::string vasp_domain;           // ours, as the receiver knows us
    std::string invoice;               // BOLT #11
    std::string payment_hash;          // hex
    std::int64_t amount_msats = 0;     // the invoice's amount
    std::int64_t payout_sats = 0;      // bitcoin held to pay it: amount_msats rounded up
    std::int64_t invoice_expires_at_ms = 0;
    std::string receiver_multiplier;  // msats per smallest receiving unit, as the receiver wrote it
    std::int64_t receiver_fee_msats = 0;
    std::string utxo_callback;      // where the receiver wants the post-transaction callback, or ""
    std::string payee_data = "{}";  // JSON object: what the receiver said of the payee
    std::int64_t created_at_ms = 0;
};

void insert_uma_payment(soci::session& session, const uma_payment_record& record);
// Another tenant's quote reads as not found.
std::optional<uma_payment_record> find_uma_payment(soci::session& session, const tenant& owner,
                                                   const std::string& quote_id);

// What a quote to an UMA address is made of, prepared (priced and invoiced) before the ledger
// writer runs: the receiver's invoice and the price of the sending side.
struct uma_quote_terms {
    uma_payment_record payment;      // quote_id, owner and created_at_ms are the quote's to fill
    std::string sending_currency;    // the source account's, as priced
    std::string receiving_currency;  // the receiver's
    price priced;                    // total_receiving in receiving_currency, as the receiver said
};

}  // namespace corridor
