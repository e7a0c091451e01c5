#include "uma/pay_response.hpp"

namespace corridor::uma {
namespace {

boost::json::object compliance_json(const payee_compliance& compliance, bool signed_form) {
    boost::json::object out;
    if (compliance.node_pub_key) out["nodePubKey"] = *compliance.node_pub_key;
    boost::json::array utxos;
    for (const auto& utxo : compliance.utxos) utxos.push_back(boost::json::string(utxo));
    out["utxos"] = std::move(utxos);
    if (compliance.utxo_callback) out["utxoCallback"] = *compliance.utxo_callback;
    if (!signed_form) return out;
    if (compliance.signature) out["signature"] = *compliance.signature;
    if (compliance.signature_nonce) out["signatureNonce"] = *compliance.signature_nonce;
    if (compliance.signature_timestamp_s)
        out["signatureTimestamp"] = *compliance.signature_timestamp_s;
    if (!compliance.backing_signatures.empty()) {
        out["backingSignatures"] = to_json(compliance.backing_signatures);
    }
    return out;
}

payee_compliance read_payee_compliance(const boost::json::object& object, std::string where) {
    json_fields fields(object, std::move(where));
    payee_compliance out;
    out.node_pub_key = fields.optional_string("nodePubKey");
    auto utxos = fields.optional_strings("utxos");
    if (!utxos) throw field_error(fields.name("utxos") + " is required");
    out.utxos = std::move(*utxos);
    out.utxo_callback = fields.optional_string("utxoCallback");
    out.signature = fields.optional_string("signature");
    out.signature_nonce = fields.optional_string("signatureNonce");
    out.signature_timestamp_s = fields.optional_int("signatureTimestamp");
    out.backing_signatures = read_backing_signatures(fields);
    return out;
}

}  // namespace

boost::json::object to_json(const pay_response& response) {
    boost::json::object out;
    out["pr"] = response.pr;
    out["routes"] = boost::json::array();
    bool v0 = response.major_version == 0;
    boost::json::object payee = response.payee_data;
    if (response.compliance && !v0)
        payee["compliance"] = compliance_json(*response.compliance, true);
    if (!payee.empty() || response.compliance) out["payeeData"] = std::move(payee);
    if (response.disposable) out["disposable"] = *response.disposable;
    if (response.success_action) out["successAction"] = *response.success_action;
    if (response.converted) {
        const auto& converted = *response.converted;
        boost::json::object item;
        if (!v0 && converted.amount) item["amount"] = *converted.amount;
        item["currencyCode"] = converted.currency_code;
        item["decimals"] = converted.decimals;
        item["multiplier"] = converted.multiplier;
        item[v0 ? "exchangeFeesMillisatoshi" : "fee"] = converted.fee_msats;
        out[v0 ? "paymentInfo" : "converted"] = std::move(item);
    }
    if (v0 && response.compliance) out["compliance"] = compliance_json(*response.compliance, false);
    return out;
}

result<pay_response, uma_error> parse_pay_response(std::string_view json_text) {
    try {
        auto object = parse_object(json_text);
        json_fields fields(object);
        pay_response out;
        out.pr = fields.required_string("pr");
        fields.optional_array("routes");
        if (const auto* payee = fields.optional_object("payeeData")) {
            out.payee_data = *payee;
            if (const auto* compliance =
                    json_fields(*payee, "payeeData.").optional_object("compliance")) {
                out.compliance = read_payee_compliance(*compliance, "payeeData.compliance.");
            }
            out.payee_data.erase("compliance");
        }
        out.disposable = fields.optional_bool("disposable");
        if (const auto* action = fields.optional_object("successAction"))
            out.success_action = *action;
        const auto* info = fields.optional_object("paymentInfo");
        if (info != nullptr && !object.contains("converted")) {
            out.major_version = 0;
            json_fields payment(*info, "paymentInfo.");
            converted_amount converted;
            converted.currency_code = payment.required_string("currencyCode");
            converted.decimals = static_cast<int>(payment.required_int("decimals"));
            converted.multiplier = payment.required_number("multiplier");
            converted.fee_msats = payment.required_int("exchangeFeesMillisatoshi");
            out.converted = converted;
            if (const auto* compliance = fields.optional_object("compliance")) {
                out.compliance = read_payee_compliance(*compliance, "compliance.");
            }
        } else if (const auto* converted_object = fields.optional_object("converted")) {
            json_fields payment(*converted_object, "converted.");
            converted_amount converted;
            converted.amount = payment.optional_int("amount");
            converted.currency_code = payment.required_string("currencyCode");
            converted.decimals = static_cast<int>(payment.required_int("decimals"));
            converted.multiplier = payment.required_number("multiplier");
            converted.fee_msats = payment.required_int("fee");
            out.converted = converted;
        }
        return out;
    } catch (const field_error& error) {
        return uma_error{error_kind::parse_payreq_response_error, error.what(), {}};
    }
}

std::string signable_payload(const payee_compliance& compliance, std::string_view payer_identifier,
                             std::string_view payee_identifier) {
    return std::string(payer_identifier) + "|" + std::string(payee_identifier) + "|" +
           compliance.signature_nonce.value_or("") + "|" +
           std::to_string(compliance.signature_timestamp_s.value_or(0));
}

}  // namespace corridor::uma
