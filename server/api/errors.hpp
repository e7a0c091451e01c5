#pragma once
// The error taxonomy, in one place: each code has one HTTP status and one stable machine name. The
// body is {"status", "code", "message", "details"}; the message is written for the client, never an
// exception's text.
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "server/http/http_types.hpp"

namespace corridor {

enum class error_code {
    invalid_input,                // 400
    invalid_uma_address,          // 400
    invalid_currency,             // 400
    invalid_amount,               // 400
    amount_out_of_range,          // 400
    same_currency,                // 400
    currency_not_enabled,         // 400
    insufficient_balance,         // 400
    quote_not_executable,         // 400
    missing_idempotency_key,      // 400 (reserved for routes that require one)
    missing_mandatory_user_info,  // 400
    webhook_endpoint_not_set,     // 400
    webhook_delivery_error,       // 400
    invalid_bank_account,         // 400: an account identifier breaks its own rules
    invalid_receiver,             // 400: the destination cannot receive (not ACTIVE)
    self_payment,                 // 400: sender and receiver are the same UMA address
    parse_lnurlp_response_error,  // 400: the receiver's provider answered an unreadable lookup
    parse_payreq_response_error,  // 400: ... an unreadable pay response
    invalid_payreq_response,      // 400: ... a pay response that breaks what was asked
    lookup_request_not_found,     // 404
    unsupported_uma_version,      // 412: the receiver's provider supports no version we know
    lnurlp_request_failed,        // 424: the receiver's provider failed the lookup
    counterparty_pubkey_fetch_error,  // 424
    no_compatible_uma_version,    // 424
    payreq_request_failed,        // 424: the receiver's provider failed the pay request
    invitation_already_claimed,   // 400
    invitation_cancelled,         // 400
    invitation_expired,           // 400
    invitation_not_found,         // 404
    account_not_found,            // 404
    unauthorized,                 // 401
    forbidden,                    // 403
    user_not_ready,               // 403
    not_found,                    // 404: no such route
    unsupported_version,          // 404: unknown version segment
    user_not_found,               // 404
    token_not_found,              // 404
    quote_not_found,              // 404
    transaction_not_found,        // 404
    bulk_upload_job_not_found,    // 404
    method_not_allowed,           // 405
    conflict,                     // 409
    uma_address_exists,           // 409
    platform_customer_id_exists,  // 409
    uma_domain_exists,            // 409
    quote_not_pending,            // 409
    quote_expired,                // 409
    transaction_not_pending_platform_approval,  // 409
    idempotency_key_in_use,       // 409
    external_account_exists,      // 409
    link_token_used,              // 409
    link_token_not_found,         // 404: unknown or expired bank-link token
    customer_deleted,             // 410
    payload_too_large,            // 413
    unsupported_media_type,       // 415
    idempotency_key_mismatch,     // 422
    header_too_large,             // 431
    internal_error,               // 500
    not_implemented,              // 501
    service_unavailable,          // 503
};

int http_status_of(error_code code);
std::string_view name_of(error_code code);

// Aborts the current request with a client-facing error. Thrown by input validation inside
// handlers; the dispatcher turns it into the response. Never crosses a thread or plugin boundary.
struct api_error {
    error_code code;
    std::string message;
    boost::json::object details;
};

[[noreturn]] void fail(error_code code, std::string message, boost::json::object details = {});
// 400 INVALID_INPUT naming the offending field.
[[noreturn]] void fail_field(std::string_view field, std::string message);

http_response error_response(const api_error& error);
http_response error_response(error_code code, std::string message);

}  // namespace corridor
