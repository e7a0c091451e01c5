#pragma once
// The receiver's answer to a pay request (UMAD-06): the invoice, the converted amount and the
// signed payee compliance data. v0 moves compliance to the top level and names the amounts
// paymentInfo.
#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/base/result.hpp"
#include "uma/common.hpp"
#include "uma/uma_error.hpp"

namespace corridor::uma {

struct payee_compliance {
    std::optional<std::string> node_pub_key;
    std::vector<std::string> utxos;  // the SDK parser requires it, [] is fine
    std::optional<std::string> utxo_callback;
    std::optional<std::string> signature, signature_nonce;
    std::optional<std::int64_t> signature_timestamp_s;
    std::vector<backing_signature> backing_signatures;
};

struct converted_amount {
    std::optional<std::int64_t> amount;  // receiving smallest units, fees excluded
    std::string currency_code;
    int decimals = 0;
    double multiplier = 0;  // millisatoshis per smallest unit
    std::int64_t fee_msats = 0;
};

struct pay_response {
    int major_version = 1;
    std::string pr;                  // BOLT-11 invoice
    boost::json::object payee_data;  // requested payee fields, compliance excluded
    std::optional<payee_compliance> compliance;
    std::optional<converted_amount> converted;
    std::optional<bool> disposable;
    std::optional<boost::json::object> success_action;
};

boost::json::object to_json(const pay_response& response);
result<pay_response, uma_error> parse_pay_response(std::string_view json_text);
// "payerIdentifier|payeeIdentifier|signatureNonce|signatureTimestamp"
std::string signable_payload(const payee_compliance& compliance, std::string_view payer_identifier,
                             std::string_view payee_identifier);

}  // namespace corridor::uma
