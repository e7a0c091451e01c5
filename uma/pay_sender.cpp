#include "uma/pay_sender.hpp"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cmath>

#include "rails/rail_sdk/lightning/bolt11.hpp"
#include "uma/ecies.hpp"
#include "uma/hex.hpp"
#include "uma/responder.hpp"
#include "uma/verify.hpp"

namespace corridor::uma {
namespace {

uma_error error(error_kind kind, std::string reason) {
    return uma_error{kind, std::move(reason), {}};
}

std::string domain_of(std::string_view address) {
    auto at = address.rfind('@');
    return std::string(at == std::string_view::npos ? "" : address.substr(at + 1));
}

const uma_currency* offered(const lnurlp_response& response, const std::string& code) {
    if (!response.currencies) return nullptr;
    auto found = std::find_if(response.currencies->begin(), response.currencies->end(),
                              [&](const uma_currency& item) { return item.code == code; });
    return found == response.currencies->end() ? nullptr : &*found;
}

std::optional<uma_error> expiry_problem(const lightning::decoded_invoice& invoice, std::int64_t now_s) {
    auto expires =
        static_cast<std::int64_t>(invoice.fields.timestamp + invoice.fields.expiry_seconds);
    if (expires <= now_s)
        return error(error_kind::invalid_payreq_response, "the invoice has expired");
    return std::nullopt;
}

// The invoice must be for what the answer says the payment costs: the converted amount at the
// answer's multiplier plus its fee (rounded as the SDKs round), within a millisatoshi.
std::optional<uma_error> check_invoice(const pay_response& response, const invoice_order& order,
                                       const lightning::decoded_invoice& invoice, std::int64_t now_s) {
    const auto& converted = response.converted;
    if (!converted || !converted->amount) {
        return error(error_kind::invalid_payreq_response, "the answer has no converted amount");
    }
    if (converted->currency_code != order.receiving_currency) {
        return error(error_kind::invalid_payreq_response, "the answer converts to " +
                                                              converted->currency_code + ", not " +
                                                              order.receiving_currency);
    }
    if (!invoice.fields.amount_msat) {
        return error(error_kind::invalid_payreq_response, "the invoice names no amount");
    }
    if (order.amount_in_msats) {
        // The invoice is for what was asked; the receiver says what that delivers.
        if (static_cast<std::int64_t>(*invoice.fields.amount_msat) != order.amount) {
            return error(error_kind::invalid_payreq_response,
                         "the invoice is for " + std::to_string(*invoice.fields.amount_msat) +
                             " msats, not the " + std::to_string(order.amount) + " asked for");
        }
        if (*converted->amount <= 0) {
            return error(
                error_kind::invalid_payreq_response,
                "the answer delivers nothing for " + std::to_string(order.amount) + " msats");
        }
        double delivered = static_cast<double>(*converted->amount) * converted->multiplier +
                           static_cast<double>(converted->fee_msats);
        if (!(converted->multiplier > 0) || converted->fee_msats < 0 ||
            delivered > static_cast<double>(order.amount) + converted->multiplier) {
            return error(error_kind::invalid_payreq_response,
                         "the answer delivers more than its invoice pays for");
        }
        return expiry_problem(invoice, now_s);
    }
    if (*converted->amount != order.amount) {
        return error(error_kind::invalid_payreq_response,
                     "the answer delivers " + std::to_string(*converted->amount) + ", not " +
                         std::to_string(order.amount));
    }
    double expected = std::round(static_cast<double>(order.amount) * converted->multiplier +
                                 static_cast<double>(converted->fee_msats));
    double invoiced = static_cast<double>(*invoice.fields.amount_msat);
    if (!(converted->multiplier > 0) || converted->fee_msats < 0 ||
        std::fabs(invoiced - expected) > 1.0) {
        return error(error_kind::invalid_payreq_response,
                     "the invoice is for " + std::to_string(*invoice.fields.amount_msat) +
                         " msats; the answer's conversion makes it " +
                         std::to_string(static_cast<long long>(expected)));
    }
    return expiry_problem(invoice, now_s);
}

}  // namespace

result<pay_request, uma_error> build_pay_request(const receiver_lookup& lookup,
                                                 const payer_details& payer,
                                                 const invoice_order& order,
                                                 const sender_identity& sender,
                                                 const sender_services& services) {
    const uma_currency* currency = offered(lookup.response, order.receiving_currency);
    if (currency == nullptr) {
        return error(error_kind::invalid_currency,
                     "the receiver does not offer " + order.receiving_currency);
    }
    if (order.amount_in_msats && lookup.version.major == 0) {
        return error(error_kind::invalid_input, "UMA v0 pay requests name the receiving amount");
    }
    // Millisatoshis convert at the receiver's multiplier, less a fee only its answer names.
    std::int64_t receiving_estimate =
        order.amount_in_msats && currency->multiplier > 0
            ? static_cast<std::int64_t>(static_cast<double>(order.amount) / currency->multiplier)
            : order.amount;
    if (receiving_estimate < currency->min_sendable ||
        receiving_estimate > currency->max_sendable) {
        return error(error_kind::amount_out_of_range,
                     "the receiver takes " + std::to_string(currency->min_sendable) + " to " +
                         std::to_string(currency->max_sendable) + " " + currency->code);
    }
    pay_request request;
    request.major_version = lookup.version.major;
    request.amount = order.amount;
    request.receiving_currency = order.receiving_currency;
    // v1 names the amount's currency ("N.CUR") or none (millisatoshis); v0 amounts are in the
    // receiving currency anyway.
    if (request.major_version != 0 && !order.amount_in_msats) {
        request.sending_currency = order.receiving_currency;
    }
    if (!order.requested_payee_data.empty()) {
        request.requested_payee_data = order.requested_payee_data;
    }
    request.payer_data["identifier"] = payer.identifier;
    for (const auto& option :
         lookup.response.payer_data.value_or(std::vector<counterparty_option>{})) {
        if (option.key == "identifier" || option.key == "compliance") continue;
        const auto* value = payer.fields.if_contains(option.key);
        if (value != nullptr && !value->is_null()) {
            request.payer_data[option.key] = *value;
        } else if (option.mandatory) {
            return error(error_kind::missing_mandatory_payer_data,
                         "the receiver requires payerData." + option.key);
        }
    }
    payer_compliance compliance;
    compliance.kyc_status = payer.kyc_status;
    compliance.utxo_callback = payer.utxo_callback;
    compliance.utxos = std::vector<std::string>{};
    if (payer.travel_rule_info) {
        auto key = encryption_key(lookup.receiver_keys);
        if (!key) return key.error();
        compliance.encrypted_travel_rule_info =
            to_hex(ecies_encrypt(key.value(), *payer.travel_rule_info, services.random));
        compliance.travel_rule_format = payer.travel_rule_format;
    }
    compliance.signature_nonce = generate_nonce(services.random);
    compliance.signature_timestamp_s = services.time.now_ms() / 1000;
    request.compliance = std::move(compliance);
    auto payload = signable_payload(request);
    if (!payload) return error(error_kind::internal_error, "the pay request has no identifier");
    request.compliance->signature = sign_payload(*payload, sender.signing);
    return request;
}

result<requested_invoice, uma_error> request_invoice(const receiver_lookup& lookup,
                                                     const payer_details& payer,
                                                     const invoice_order& order,
                                                     const sender_identity& sender,
                                                     const sender_services& services) {
    if (!lookup.response.compliance) {
        return error(error_kind::invalid_input, "the lookup holds no UMA receiver");
    }
    auto request = build_pay_request(lookup, payer, order, sender, services);
    if (!request) return request.error();
    auto reply = services.transport.post_json(lookup.response.callback,
                                              boost::json::serialize(to_json(request.value())));
    if (!reply) {
        return error(error_kind::payreq_request_failed,
                     "the receiver's provider did not answer: " + reply.error());
    }
    if (reply->status != 200) {
        uma_error failed =
            error(error_kind::payreq_request_failed,
                  "the receiver's provider answered HTTP " + std::to_string(reply->status));
        failed.extra["counterpartyStatus"] = reply->status;
        // An UMA error body says why (MISSING_MANDATORY_PAYER_DATA, SENDER_NOT_ACCEPTED, ...).
        boost::system::error_code ec;
        auto body = boost::json::parse(reply->body, ec);
        const auto* code = !ec && body.is_object() ? body.as_object().if_contains("code") : nullptr;
        if (code != nullptr && code->is_string() && code->as_string().size() <= 64) {
            failed.extra["counterpartyCode"] = code->as_string();
            failed.reason += " (" + std::string(code->as_string()) + ")";
        }
        return failed;
    }
    auto response = parse_pay_response(reply->body);
    if (!response) return response.error();
    // A v0 answer (paymentInfo) names no amount: it converts what was asked, which v0 asks in the
    // receiving currency.
    auto& converted = response->converted;
    if (response->major_version == 0 && converted && !converted->amount && !order.amount_in_msats) {
        converted->amount = order.amount;
    }
    const std::string& payee = lookup.response.compliance->receiver_identifier;
    std::string domain = domain_of(payee);
    auto key = signing_key(lookup.receiver_keys);
    if (!key) return key.error();
    // UMA 0.3 answers were not signed (the signature came with 1.0): a v0 answer is checked
    // when it carries one, and otherwise only by what it invoices.
    bool unsigned_v0 =
        response->major_version == 0 && (!response->compliance || !response->compliance->signature);
    if (!unsigned_v0) {
        if (!response->compliance) {
            return error(error_kind::invalid_signature, "the answer carries no signed payee data");
        }
        if (auto failed = verify_pay_response(response.value(), payer.identifier, payee,
                                              key.value(), domain, services.nonces)) {
            return *failed;
        }
    }
    auto invoice = lightning::decode_invoice(response->pr);
    if (!invoice) {
        return error(error_kind::invalid_payreq_response,
                     "the invoice does not decode: " + invoice.error().message);
    }
    if (auto failed = check_invoice(response.value(), order, invoice.value(),
                                    services.time.now_ms() / 1000)) {
        return *failed;
    }
    requested_invoice out;
    out.request = std::move(request.value());
    out.invoice = response->pr;
    out.amount_msats = static_cast<std::int64_t>(*invoice->fields.amount_msat);
    out.payment_hash = to_hex(invoice->fields.payment_hash);
    out.expires_at_s =
        static_cast<std::int64_t>(invoice->fields.timestamp + invoice->fields.expiry_seconds);
    out.response = std::move(response.value());
    return out;
}

}  // namespace corridor::uma
