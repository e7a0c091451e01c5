#include "uma/verify.hpp"

namespace corridor::uma {
namespace {

std::optional<uma_error> check(std::string_view scope, std::string_view nonce,
                               std::int64_t timestamp_s, std::string_view payload,
                               std::string_view signature, const public_key& key,
                               nonce_store& nonces) {
    if (!nonces.check_and_save(scope, nonce, timestamp_s)) {
        return uma_error{
            error_kind::invalid_nonce,
            "the nonce was seen before or the timestamp is outside the accepted window",
            {}};
    }
    if (!verify_payload(payload, signature, key)) {
        return uma_error{error_kind::invalid_signature, "the signature does not verify", {}};
    }
    return std::nullopt;
}

uma_error missing(std::string what) {
    return uma_error{error_kind::missing_required_uma_parameters, std::move(what), {}};
}

}  // namespace

std::optional<uma_error> verify_lnurlp_request(const lnurlp_request& request,
                                               const public_key& sender, nonce_store& nonces) {
    if (!request.is_uma()) return missing("the request carries no UMA signature");
    return check(*request.vasp_domain, *request.nonce, *request.timestamp_s,
                 signable_payload(request), *request.signature, sender, nonces);
}

std::optional<uma_error> verify_lnurlp_response(const lnurlp_response& response,
                                                const public_key& receiver, std::string_view scope,
                                                nonce_store& nonces) {
    if (!response.compliance) return missing("the response carries no compliance data");
    const auto& compliance = *response.compliance;
    return check(scope, compliance.signature_nonce, compliance.signature_timestamp_s,
                 signable_payload(compliance), compliance.signature, receiver, nonces);
}

std::optional<uma_error> verify_pay_request(const pay_request& request, const public_key& sender,
                                            std::string_view scope, nonce_store& nonces) {
    auto payload = signable_payload(request);
    if (!payload) return missing("payerData needs identifier and compliance");
    const auto& compliance = *request.compliance;
    return check(scope, compliance.signature_nonce, compliance.signature_timestamp_s, *payload,
                 compliance.signature, sender, nonces);
}

std::optional<uma_error> verify_pay_response(const pay_response& response,
                                             std::string_view payer_identifier,
                                             std::string_view payee_identifier,
                                             const public_key& receiver, std::string_view scope,
                                             nonce_store& nonces) {
    if (!response.compliance || !response.compliance->signature ||
        !response.compliance->signature_nonce || !response.compliance->signature_timestamp_s) {
        return missing(
            "payeeData.compliance needs signature, signatureNonce and signatureTimestamp");
    }
    const auto& compliance = *response.compliance;
    return check(scope, *compliance.signature_nonce, *compliance.signature_timestamp_s,
                 signable_payload(compliance, payer_identifier, payee_identifier),
                 *compliance.signature, receiver, nonces);
}

std::optional<uma_error> verify_post_transaction(const post_transaction_callback& callback,
                                                 const public_key& caller, nonce_store& nonces) {
    return check(callback.vasp_domain, callback.signature_nonce, callback.signature_timestamp_s,
                 signable_payload(callback), callback.signature, caller, nonces);
}

}  // namespace corridor::uma
