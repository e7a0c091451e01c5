#include "uma/pay_request.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/parse.hpp>
#include <charconv>
#include <regex>

namespace corridor::uma {
namespace {

std::int64_t parse_integer(std::string_view text, std::string_view what) {
    std::int64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0) {
        throw field_error(std::string(what) + " must be a non-negative integer");
    }
    return value;
}

bool is_currency_code(std::string_view code) {
    if (code.empty() || code.size() > 8) return false;
    for (char c : code) {
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
            return false;
        }
    }
    return true;
}

bool is_uuid(std::string_view text) {
    static const std::regex pattern(
        "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$");
    return std::regex_match(text.begin(), text.end(), pattern);
}

payer_compliance read_payer_compliance(const boost::json::object& object) {
    json_fields fields(object, "payerData.compliance.");
    payer_compliance out;
    out.utxos = fields.optional_strings("utxos");
    out.node_pub_key = fields.optional_string("nodePubKey");
    out.kyc_status = read_kyc_status(fields);
    out.encrypted_travel_rule_info = fields.optional_string("encryptedTravelRuleInfo");
    out.travel_rule_format = fields.optional_string("travelRuleFormat");
    out.signature = fields.required_string("signature");
    out.signature_nonce = fields.required_string("signatureNonce");
    out.signature_timestamp_s = fields.required_int("signatureTimestamp");
    out.utxo_callback = fields.optional_string("utxoCallback");
    out.backing_signatures = read_backing_signatures(fields);
    return out;
}

// v1: "N" millisatoshis or "N.CUR"; a bare JSON integer is accepted as "N".
void read_v1_amount(const boost::json::value& amount, pay_request& out) {
    if (amount.is_int64() || amount.is_uint64()) {
        boost::json::object holder{{"amount", amount}};
        out.amount = json_fields(holder).required_int("amount");
        if (out.amount < 0) throw field_error("amount must not be negative");
        return;
    }
    if (!amount.is_string()) throw field_error("amount must be a string \"N\" or \"N.CUR\"");
    std::string_view text = amount.get_string();
    auto dot = text.find('.');
    if (dot == std::string_view::npos) {
        out.amount = parse_integer(text, "amount");
        return;
    }
    if (text.find('.', dot + 1) != std::string_view::npos) {
        throw field_error("amount must be \"N\" or \"N.CUR\" with one period");
    }
    out.amount = parse_integer(text.substr(0, dot), "amount");
    std::string_view code = text.substr(dot + 1);
    if (!is_currency_code(code))
        throw field_error("amount names no valid currency after the period");
    out.sending_currency = std::string(code);
}

}  // namespace

std::optional<std::string> pay_request::payer_identifier() const {
    const auto* value = payer_data.if_contains("identifier");
    if (value == nullptr || !value->is_string()) return std::nullopt;
    return std::string(value->get_string());
}

result<pay_request, uma_error> parse_pay_request(std::string_view json_text) {
    try {
        auto object = parse_object(json_text);
        json_fields fields(object);
        pay_request out;
        const auto* amount = object.if_contains("amount");
        if (amount == nullptr || amount->is_null()) throw field_error("amount is required");
        auto convert = fields.optional_string("convert");
        auto v0_currency = fields.optional_string("currency");
        if (v0_currency && !convert) {
            out.major_version = 0;
            out.receiving_currency = v0_currency;
            out.sending_currency = v0_currency;
            out.amount = fields.required_int("amount");
            if (out.amount < 0) throw field_error("amount must not be negative");
        } else {
            out.receiving_currency = convert;
            read_v1_amount(*amount, out);
        }
        if (out.receiving_currency && !is_currency_code(*out.receiving_currency)) {
            throw field_error("convert must be a currency code");
        }
        if (const auto* payer = fields.optional_object("payerData")) {
            json_fields payer_fields(*payer, "payerData.");
            payer_fields.optional_string("identifier");
            payer_fields.optional_string("name");
            payer_fields.optional_string("email");
            out.payer_data = *payer;
            if (const auto* compliance = payer_fields.optional_object("compliance")) {
                out.compliance = read_payer_compliance(*compliance);
            }
        }
        if (const auto* payee = fields.optional_object("payeeData")) {
            out.requested_payee_data = read_counterparty_options(*payee, "payeeData");
        }
        out.comment = fields.optional_string("comment");
        out.invoice_uuid = fields.optional_string("invoiceUUID");
        if (out.invoice_uuid && !is_uuid(*out.invoice_uuid))
            throw field_error("invoiceUUID must be a UUID");
        if (const auto* settlement = fields.optional_object("settlement"))
            out.settlement = *settlement;
        return out;
    } catch (const field_error& error) {
        return uma_error{error_kind::parse_payreq_request_error, error.what(), {}};
    }
}

result<pay_request, uma_error> parse_pay_request_query(std::string_view target) {
    auto url = boost::urls::parse_origin_form(target);
    if (!url)
        return uma_error{error_kind::parse_payreq_request_error, "invalid request target", {}};
    boost::json::object object;
    std::optional<std::string> currency;
    for (auto param : url->params(boost::urls::encoding_opts(true))) {
        std::string value = param.has_value ? param.value : std::string();
        if (object.contains(param.key) || (param.key == "currency" && currency)) continue;
        if (param.key == "amount" || param.key == "convert" || param.key == "comment") {
            object[param.key] = value;
        } else if (param.key == "currency") {
            currency = value;
        } else if (param.key == "payerData" || param.key == "payerdata" ||
                   param.key == "payeeData") {
            boost::system::error_code error;
            auto parsed = boost::json::parse(value, error);
            if (error) {
                return uma_error{error_kind::parse_payreq_request_error,
                                 param.key + " must be URL-encoded JSON",
                                 {}};
            }
            object[param.key == "payeeData" ? "payeeData" : "payerData"] = std::move(parsed);
        }
    }
    if (!object.contains("amount")) {
        return uma_error{error_kind::parse_payreq_request_error, "amount is required", {}};
    }
    if (currency && !object.contains("convert")) {
        // v0: the amount is an integer in the receiving currency.
        std::int64_t amount = 0;
        const auto& text = object["amount"].as_string();
        auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), amount);
        if (error != std::errc() || end != text.data() + text.size()) {
            return uma_error{error_kind::parse_payreq_request_error,
                             "amount must be an integer with currency",
                             {}};
        }
        object["amount"] = amount;
        object["currency"] = *currency;
    }
    return parse_pay_request(boost::json::serialize(object));
}

boost::json::object to_json(const payer_compliance& compliance) {
    boost::json::object out;
    if (compliance.utxos) {
        boost::json::array utxos;
        for (const auto& utxo : *compliance.utxos) utxos.push_back(boost::json::string(utxo));
        out["utxos"] = std::move(utxos);
    }
    if (compliance.node_pub_key) out["nodePubKey"] = *compliance.node_pub_key;
    out["kycStatus"] = compliance.kyc_status;
    if (compliance.encrypted_travel_rule_info) {
        out["encryptedTravelRuleInfo"] = *compliance.encrypted_travel_rule_info;
    }
    if (compliance.travel_rule_format) out["travelRuleFormat"] = *compliance.travel_rule_format;
    out["signature"] = compliance.signature;
    out["signatureNonce"] = compliance.signature_nonce;
    out["signatureTimestamp"] = compliance.signature_timestamp_s;
    if (compliance.utxo_callback) out["utxoCallback"] = *compliance.utxo_callback;
    if (!compliance.backing_signatures.empty()) {
        out["backingSignatures"] = to_json(compliance.backing_signatures);
    }
    return out;
}

boost::json::object to_json(const pay_request& request) {
    boost::json::object payer = request.payer_data;
    if (request.compliance) payer["compliance"] = to_json(*request.compliance);
    boost::json::object out;
    if (request.major_version == 0) {
        out["amount"] = request.amount;
        if (request.receiving_currency) out["currency"] = *request.receiving_currency;
    } else {
        if (request.receiving_currency) out["convert"] = *request.receiving_currency;
        out["amount"] = request.sending_currency
                            ? std::to_string(request.amount) + "." + *request.sending_currency
                            : std::to_string(request.amount);
    }
    out["payerData"] = std::move(payer);
    if (request.requested_payee_data) out["payeeData"] = to_json(*request.requested_payee_data);
    if (request.comment) out["comment"] = *request.comment;
    if (request.major_version != 0) {
        if (request.invoice_uuid) out["invoiceUUID"] = *request.invoice_uuid;
        if (request.settlement) out["settlement"] = *request.settlement;
    }
    return out;
}

std::optional<std::string> signable_payload(const pay_request& request) {
    auto identifier = request.payer_identifier();
    if (!identifier || !request.compliance) return std::nullopt;
    return *identifier + "|" + request.compliance->signature_nonce + "|" +
           std::to_string(request.compliance->signature_timestamp_s);
}

}  // namespace corridor::uma
