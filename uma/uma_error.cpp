#include "uma/uma_error.hpp"

namespace corridor::uma {
namespace {

struct kind_info {
    std::string_view code;
    int status;
};

kind_info info_of(error_kind kind) {
    switch (kind) {
        case error_kind::invalid_input: return {"INVALID_INPUT", 400};
        case error_kind::invalid_signature: return {"INVALID_SIGNATURE", 401};
        case error_kind::invalid_nonce: return {"INVALID_NONCE", 400};
        case error_kind::invalid_timestamp: return {"INVALID_TIMESTAMP", 400};
        case error_kind::missing_required_uma_parameters:
            return {"MISSING_REQUIRED_UMA_PARAMETERS", 400};
        case error_kind::parse_lnurlp_request_error: return {"PARSE_LNURLP_REQUEST_ERROR", 400};
        case error_kind::parse_lnurlp_response_error: return {"PARSE_LNURLP_RESPONSE_ERROR", 400};
        case error_kind::parse_payreq_request_error: return {"PARSE_PAYREQ_REQUEST_ERROR", 400};
        case error_kind::parse_payreq_response_error: return {"PARSE_PAYREQ_RESPONSE_ERROR", 400};
        case error_kind::parse_utxo_callback_error: return {"PARSE_UTXO_CALLBACK_ERROR", 400};
        case error_kind::parse_pubkey_response_error: return {"PARSE_PUBKEY_RESPONSE_ERROR", 400};
        case error_kind::invalid_pubkey_format: return {"INVALID_PUBKEY_FORMAT", 400};
        case error_kind::cert_chain_invalid: return {"CERT_CHAIN_INVALID", 400};
        case error_kind::missing_mandatory_payer_data: return {"MISSING_MANDATORY_PAYER_DATA", 400};
        case error_kind::invalid_currency: return {"INVALID_CURRENCY", 400};
        case error_kind::amount_out_of_range: return {"AMOUNT_OUT_OF_RANGE", 400};
        case error_kind::user_not_found: return {"USER_NOT_FOUND", 404};
        case error_kind::unsupported_uma_version: return {"UNSUPPORTED_UMA_VERSION", 412};
        case error_kind::no_compatible_uma_version: return {"NO_COMPATIBLE_UMA_VERSION", 424};
        case error_kind::counterparty_pubkey_fetch_error:
            return {"COUNTERPARTY_PUBKEY_FETCH_ERROR", 424};
        case error_kind::lnurlp_request_failed: return {"LNURLP_REQUEST_FAILED", 424};
        case error_kind::payreq_request_failed: return {"PAYREQ_REQUEST_FAILED", 424};
        case error_kind::invalid_payreq_response: return {"INVALID_PAYREQ_RESPONSE", 400};
        case error_kind::not_implemented: return {"NOT_IMPLEMENTED", 501};
        case error_kind::internal_error: return {"INTERNAL_ERROR", 500};
    }
    return {"INTERNAL_ERROR", 500};
}

}  // namespace

std::string_view code_of(error_kind kind) {
    return info_of(kind).code;
}
int http_status_of(error_kind kind) {
    return info_of(kind).status;
}

boost::json::object to_json(const uma_error& error) {
    boost::json::object body;
    body["status"] = "ERROR";
    body["reason"] = error.reason;
    body["code"] = code_of(error.kind);
    for (const auto& [key, value] : error.extra) body[key] = value;
    return body;
}

}  // namespace corridor::uma
