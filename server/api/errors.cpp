#include "server/api/errors.hpp"

#include <boost/json/serialize.hpp>

namespace corridor {

int http_status_of(error_code code) {
    switch (code) {
        case error_code::invalid_input:
        case error_code::invalid_uma_address:
        case error_code::invalid_currency:
        case error_code::invalid_amount:
        case error_code::amount_out_of_range:
        case error_code::same_currency:
        case error_code::currency_not_enabled:
        case error_code::insufficient_balance:
        case error_code::quote_not_executable:
        case error_code::missing_idempotency_key:
        case error_code::missing_mandatory_user_info:
        case error_code::webhook_endpoint_not_set:
        case error_code::webhook_delivery_error:
        case error_code::invalid_bank_account:
        case error_code::invalid_receiver:
        case error_code::invitation_already_claimed:
        case error_code::invitation_cancelled:
        case error_code::invitation_expired:
        case error_code::self_payment:
        case error_code::parse_lnurlp_response_error: return 400;
        case error_code::parse_payreq_response_error: return 400;
        case error_code::invalid_payreq_response: return 400;
        case error_code::lookup_request_not_found: return 404;
        case error_code::unsupported_uma_version: return 412;
        case error_code::lnurlp_request_failed:
        case error_code::counterparty_pubkey_fetch_error:
        case error_code::no_compatible_uma_version:
        case error_code::payreq_request_failed: return 424;
        case error_code::unauthorized: return 401;
        case error_code::forbidden:
        case error_code::user_not_ready: return 403;
        case error_code::not_found:
        case error_code::unsupported_version:
        case error_code::user_not_found:
        case error_code::token_not_found:
        case error_code::quote_not_found:
        case error_code::transaction_not_found:
        case error_code::bulk_upload_job_not_found:
        case error_code::account_not_found:
        case error_code::link_token_not_found:
        case error_code::invitation_not_found: return 404;
        case error_code::method_not_allowed: return 405;
        case error_code::conflict:
        case error_code::uma_address_exists:
        case error_code::platform_customer_id_exists:
        case error_code::uma_domain_exists:
        case error_code::idempotency_key_in_use:
        case error_code::quote_not_pending:
        case error_code::quote_expired:
        case error_code::transaction_not_pending_platform_approval:
        case error_code::external_account_exists:
        case error_code::link_token_used: return 409;
        case error_code::customer_deleted: return 410;
        case error_code::payload_too_large: return 413;
        case error_code::unsupported_media_type: return 415;
        case error_code::idempotency_key_mismatch: return 422;
        case error_code::header_too_large: return 431;
        case error_code::internal_error: return 500;
        case error_code::not_implemented: return 501;
        case error_code::service_unavailable: return 503;
    }
    return 500;
}

std::string_view name_of(error_code code) {
    switch (code) {
        case error_code::invalid_input: return "INVALID_INPUT";
        case error_code::invalid_uma_address: return "INVALID_UMA_ADDRESS";
        case error_code::invalid_currency: return "INVALID_CURRENCY";
        case error_code::invalid_amount: return "INVALID_AMOUNT";
        case error_code::amount_out_of_range: return "AMOUNT_OUT_OF_RANGE";
        case error_code::same_currency: return "SAME_CURRENCY";
        case error_code::currency_not_enabled: return "CURRENCY_NOT_ENABLED";
        case error_code::insufficient_balance: return "INSUFFICIENT_BALANCE";
        case error_code::quote_not_executable: return "QUOTE_NOT_EXECUTABLE";
        case error_code::missing_idempotency_key: return "MISSING_IDEMPOTENCY_KEY";
        case error_code::missing_mandatory_user_info: return "MISSING_MANDATORY_USER_INFO";
        case error_code::webhook_endpoint_not_set: return "WEBHOOK_ENDPOINT_NOT_SET";
        case error_code::webhook_delivery_error: return "WEBHOOK_DELIVERY_ERROR";
        case error_code::transaction_not_pending_platform_approval:
            return "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL";
        case error_code::account_not_found: return "ACCOUNT_NOT_FOUND";
        case error_code::invalid_bank_account: return "INVALID_BANK_ACCOUNT";
        case error_code::invalid_receiver: return "INVALID_RECEIVER";
        case error_code::self_payment: return "SELF_PAYMENT";
        case error_code::parse_lnurlp_response_error: return "PARSE_LNURLP_RESPONSE_ERROR";
        case error_code::parse_payreq_response_error: return "PARSE_PAYREQ_RESPONSE_ERROR";
        case error_code::invalid_payreq_response: return "INVALID_PAYREQ_RESPONSE";
        case error_code::lookup_request_not_found: return "LOOKUP_REQUEST_NOT_FOUND";
        case error_code::unsupported_uma_version: return "UNSUPPORTED_UMA_VERSION";
        case error_code::lnurlp_request_failed: return "LNURLP_REQUEST_FAILED";
        case error_code::counterparty_pubkey_fetch_error: return "COUNTERPARTY_PUBKEY_FETCH_ERROR";
        case error_code::no_compatible_uma_version: return "NO_COMPATIBLE_UMA_VERSION";
        case error_code::payreq_request_failed: return "PAYREQ_REQUEST_FAILED";
        case error_code::invitation_already_claimed: return "INVITATION_ALREADY_CLAIMED";
        case error_code::invitation_cancelled: return "INVITATION_CANCELLED";
        case error_code::invitation_expired: return "INVITATION_EXPIRED";
        case error_code::invitation_not_found: return "INVITATION_NOT_FOUND";
        case error_code::external_account_exists: return "EXTERNAL_ACCOUNT_EXISTS";
        case error_code::link_token_used: return "LINK_TOKEN_ALREADY_USED";
        case error_code::link_token_not_found: return "LINK_TOKEN_NOT_FOUND";
        case error_code::unauthorized: return "UNAUTHORIZED";
        case error_code::forbidden: return "FORBIDDEN";
        case error_code::user_not_ready: return "USER_NOT_READY";
        case error_code::not_found: return "NOT_FOUND";
        case error_code::unsupported_version: return "UNSUPPORTED_API_VERSION";
        case error_code::user_not_found: return "USER_NOT_FOUND";
        case error_code::token_not_found: return "TOKEN_NOT_FOUND";
        case error_code::quote_not_found: return "QUOTE_NOT_FOUND";
        case error_code::transaction_not_found: return "TRANSACTION_NOT_FOUND";
        case error_code::bulk_upload_job_not_found: return "BULK_UPLOAD_JOB_NOT_FOUND";
        case error_code::method_not_allowed: return "METHOD_NOT_ALLOWED";
        case error_code::conflict: return "CONFLICT";
        case error_code::uma_address_exists: return "UMA_ADDRESS_EXISTS";
        case error_code::platform_customer_id_exists: return "PLATFORM_CUSTOMER_ID_EXISTS";
        case error_code::uma_domain_exists: return "UMA_DOMAIN_EXISTS";
        case error_code::idempotency_key_in_use: return "IDEMPOTENCY_KEY_IN_USE";
        case error_code::quote_not_pending: return "QUOTE_NOT_PENDING";
        case error_code::quote_expired: return "QUOTE_EXPIRED";
        case error_code::customer_deleted: return "CUSTOMER_DELETED";
        case error_code::payload_too_large: return "PAYLOAD_TOO_LARGE";
        case error_code::unsupported_media_type: return "UNSUPPORTED_MEDIA_TYPE";
        case error_code::idempotency_key_mismatch: return "IDEMPOTENCY_KEY_MISMATCH";
        case error_code::header_too_large: return "HEADER_TOO_LARGE";
        case error_code::internal_error: return "INTERNAL_ERROR";
        case error_code::not_implemented: return "NOT_IMPLEMENTED";
        case error_code::service_unavailable: return "SERVICE_UNAVAILABLE";
    }
    return "INTERNAL_ERROR";
}

void fail(error_code code, std::string message, boost::json::object details) {
    throw api_error{code, std::move(message), std::move(details)};
}

void fail_field(std::string_view field, std::string message) {
    boost::json::object details;
    details["field"] = field;
    throw api_error{error_code::invalid_input, std::string(field) + ": " + message,
                    std::move(details)};
}

http_response error_response(const api_error& error) {
    http_response response;
    response.status = http_status_of(error.code);
    boost::json::object body;
    body["status"] = response.status;
    body["code"] = name_of(error.code);
    body["message"] = error.message;
    body["details"] = error.details;
    response.body = boost::json::serialize(body);
    if (response.status == 401) {
        response.headers.emplace_back("WWW-Authenticate", "Basic realm=\"corridor\", charset=\"UTF-8\"");
    }
    // Every 503 says when to come back: the request was not carried out (or its outcome is
    // unknown and a retry with its Idempotency-Key answers it), and the cause is passing.
    if (response.status == 503) response.headers.emplace_back("Retry-After", "1");
    return response;
}

http_response error_response(error_code code, std::string message) {
    return error_response(api_error{code, std::move(message), {}});
}

}  // namespace corridor
