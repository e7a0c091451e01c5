#pragma once
// UMA errors travel in the LUD-06 shape the SDKs read: {"status":"ERROR","reason","code"} with the
// HTTP status of the protocol's error list (schemas/errors/errors.json).
#include <boost/json/object.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace corridor::uma {

enum class error_kind {
    invalid_input,                    // 400
    invalid_signature,                // 401
    invalid_nonce,                    // 400
    invalid_timestamp,                // 400
    missing_required_uma_parameters,  // 400
    parse_lnurlp_request_error,       // 400
    parse_lnurlp_response_error,      // 400
    parse_payreq_request_error,       // 400
    parse_payreq_response_error,      // 400
    parse_utxo_callback_error,        // 400
    parse_pubkey_response_error,      // 400
    invalid_pubkey_format,            // 400
    cert_chain_invalid,               // 400
    missing_mandatory_payer_data,     // 400
    invalid_currency,                 // 400
    amount_out_of_range,              // 400
    user_not_found,                   // 404
    unsupported_uma_version,          // 412
    no_compatible_uma_version,        // 424
    counterparty_pubkey_fetch_error,  // 424
    lnurlp_request_failed,            // 424
    payreq_request_failed,            // 424
    invalid_payreq_response,          // 400: a pay response that breaks what was asked
    not_implemented,                  // 501
    internal_error,                   // 500
};

std::string_view code_of(error_kind kind);
int http_status_of(error_kind kind);

struct uma_error {
    error_kind kind = error_kind::internal_error;
    std::string reason;
    // Extra members of the body, e.g. supportedMajorVersions of a 412.
    boost::json::object extra;
};

boost::json::object to_json(const uma_error& error);

}  // namespace corridor::uma
