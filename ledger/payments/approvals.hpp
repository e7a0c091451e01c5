#pragma once
// The approval protocol of an incoming payment. A payment announced to a platform's customer (by
// the UMA flow) starts as an INCOMING transaction in PENDING with an approval in AWAITING_WEBHOOK,
// and an INCOMING_PAYMENT event that is delivered once (never retried). The platform's answer
// decides:
//   200 approve (receiverCustomerInfo must hold every mandatory requested field),
//   403 reject, 422 ask the sender for more information (requiredFields),
//   202 defer to POST /transactions/{id}/approve or /reject within the approval time-out,
//   no answer, 5xx or anything else: FAILED with PAYMENT_APPROVAL_WEBHOOK_ERROR.
// A deferred approval not decided in time fails with PAYMENT_APPROVAL_TIMED_OUT. The first decision
// wins; a later one is refused (TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL).
//
// An approved payment stays PENDING: the approval only says the platform accepts it; the flow that
// created it (UMA) moves the money and the status on. Everything here runs inside the caller's
// transaction, like payments.hpp.
#include <soci/soci.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/payments/payments.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/base/result.hpp"

namespace corridor {

struct incoming_payment_request {
    tenant owner;
    std::string
        destination_account_id;      // an internal account of the receiving customer or platform
    std::int64_t amount = 0;         // in the account's currency, minor units
    std::string source_currency;     // the sender's currency; the account's when empty
    std::string sender_uma_address;  // "$user@domain" of the sender
    std::string counterparty_information = "{}";  // JSON object: what the sender said of the payer
    std::vector<counterparty_field> requested_fields;  // receiver information the sender asks for
    std::string description;
    std::string rate_details = "{}";  // JSON object text, as on transactions
};

struct incoming_approval {
    std::string transaction_id;
    tenant owner;
    // AWAITING_WEBHOOK, DEFERRED (open); APPROVED, REJECTED, NEEDS_INFORMATION, FAILED (decided)
    std::string state;
    std::string event_id;  // the INCOMING_PAYMENT event that asks the platform
    std::string sender_uma_address;
    std::string counterparty_information;  // JSON object text
    std::string requested_fields;          // JSON array text of {name, mandatory}
    std::string receiver_customer_info;    // JSON object text, once approved
    std::string required_fields;           // JSON array text of field names (NEEDS_INFORMATION)
    std::string reason;                    // rejection reason, or why it failed
    std::int64_t deadline_at_ms = 0;       // DEFERRED: when it times out
    std::int64_t created_at_ms = 0, updated_at_ms = 0;

    bool open() const { return state == "AWAITING_WEBHOOK" || state == "DEFERRED"; }
};

enum class approval_error {
    account_not_found,              // begin: no such internal account
    invalid_request,                // begin: a malformed field
    transaction_not_found,          // not this tenant's, or not an incoming payment under approval
    not_pending_platform_approval,  // already decided, failed or timed out
    missing_mandatory_fields,       // approve without every mandatory requested field
};

struct approval_failure {
    approval_error code;
    std::string message;
    std::vector<std::string> fields;  // the missing fields, or the bad one
};

// Creates the PENDING incoming transaction, its approval and the approval event.
result<transaction_record, approval_failure> begin_incoming_approval(
    soci::session& session, const payment_services& services,
    const incoming_payment_request& request);

// The platform's answer to the approval event: HTTP status (0 when there was none) and body.
// Does nothing when the approval is no longer open (the platform already decided through the API).
result<incoming_approval, approval_failure> apply_approval_answer(
    soci::session& session, const payment_services& services, const tenant& owner,
    const std::string& transaction_id, int response_status, std::string_view response_body,
    std::int64_t approval_timeout_ms);

// POST /transactions/{id}/approve and /reject. receiver_customer_info: a JSON object text or empty.
result<transaction_record, approval_failure> approve_incoming_payment(
    soci::session& session, const payment_services& services, const tenant& owner,
    const std::string& transaction_id, const std::string& receiver_customer_info);
result<transaction_record, approval_failure> reject_incoming_payment(
    soci::session& session, const payment_services& services, const tenant& owner,
    const std::string& transaction_id, const std::string& reason);

// Fails an open payment for a reason found outside the approval (e.g. the sender failed
// compliance screening): FAILED with `failure_reason`, the approval closed as FAILED.
result<transaction_record, approval_failure> fail_incoming_payment(
    soci::session& session, const payment_services& services, const tenant& owner,
    const std::string& transaction_id, const std::string& failure_reason,
    const std::string& reason);

// Fails DEFERRED approvals whose deadline has passed (any tenant), at most `limit`; returns how
// many.
int expire_due_approvals(soci::session& session, const payment_services& services, int limit);

std::optional<incoming_approval> find_incoming_approval(soci::session& session, const tenant& owner,
                                                        const std::string& transaction_id);

}  // namespace corridor
