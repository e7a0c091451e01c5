#pragma once
// The settlement side of incoming UMA payments. Each INCOMING transaction the pay-request callback
// creates (through begin_incoming_approval) has one BOLT #11 invoice. The payment settles when both
// hold: the invoice was paid and the platform APPROVED the payment. Either may come first, so
// paying records the fact and settles at once when the approval already allows it, and a sweep
// (upkeep, on the ledger writer) settles paid invoices whose approval came later. Settling credits
// the receiving internal account and completes the transaction. A payment the platform rejected or
// that failed (approval time-out, webhook error, compliance) is never credited: its invoice is no
// longer payable. Everything here runs inside the caller's (the ledger writer's) transaction.
#include <soci/soci.h>

#include <cstdint>
#include <optional>
#include <string>

#include "ledger/payments/payments.hpp"
#include "ledger/base/result.hpp"
#include "ledger/base/tenant.hpp"

namespace corridor {

struct uma_invoice_record {
    std::string payment_hash;  // lowercase hex, 64 digits
    std::string transaction_id;
    tenant owner;
    std::string invoice;  // the BOLT #11 text
    std::int64_t amount_msats = 0;
    std::string state;  // OPEN, PAID, SETTLED
    std::int64_t created_at_ms = 0, paid_at_ms = 0;
};

void record_uma_invoice(soci::session& session, const uma_invoice_record& invoice);
std::optional<uma_invoice_record> find_uma_invoice(soci::session& session, const tenant& owner,
                                                   const std::string& payment_hash);
std::optional<uma_invoice_record> find_uma_invoice_of_transaction(
    soci::session& session, const tenant& owner, const std::string& transaction_id);

enum class receipt_error {
    invoice_not_found,  // no such payment hash for this tenant
    not_payable,        // already paid, or the payment failed or was rejected
};

struct receipt_failure {
    receipt_error code;
    std::string message;
};

// The invoice was paid in full. Returns the transaction as it stands afterwards: COMPLETED when the
// approval was already APPROVED, else still PENDING (the sweep settles it once approved).
result<transaction_record, receipt_failure> receive_uma_invoice_payment(
    soci::session& session, const payment_services& services, const tenant& owner,
    const std::string& payment_hash);

// Settles PAID invoices whose approval is APPROVED (any tenant), at most `limit`; returns how many.
int settle_approved_uma_receipts(soci::session& session, const payment_services& services,
                                 int limit);

}  // namespace corridor
