#include "uma/responder.hpp"

#include <array>
#include <boost/json/array.hpp>

namespace corridor::uma {
namespace {

// The LUD-16 identifier in metadata is the lightning address: the UMA address without its "$".
std::string lightning_address(std::string_view identifier) {
    if (!identifier.empty() && identifier.front() == '$') identifier.remove_prefix(1);
    return std::string(identifier);
}

std::vector<counterparty_option> uma_payer_data(const std::vector<counterparty_option>& requested) {
    std::vector<counterparty_option> out{{"identifier", true}, {"compliance", true}};
    for (const auto& option : requested) {
        if (option.key != "identifier" && option.key != "compliance") out.push_back(option);
    }
    return out;
}

}  // namespace

std::string generate_nonce(random_source& random) {
    std::array<std::uint8_t, 4> data{};
    random.fill(data);
    std::uint32_t value = (std::uint32_t{data[0]} << 24) | (std::uint32_t{data[1]} << 16) |
                          (std::uint32_t{data[2]} << 8) | std::uint32_t{data[3]};
    return std::to_string(value);
}

result<lnurlp_response, uma_error> build_lnurlp_response(const lnurlp_request& request,
                                                         const receiver_terms& terms,
                                                         const private_key& signing,
                                                         const clock& time, random_source& random) {
    lnurlp_response response;
    response.callback = terms.callback;
    response.min_sendable_msats = terms.min_sendable_msats;
    response.max_sendable_msats = terms.max_sendable_msats;
    response.metadata =
        lnurlp_metadata(terms.description, lightning_address(terms.receiver_identifier));
    response.comment_allowed = terms.comment_allowed;
    response.allows_nostr = false;
    if (!terms.currencies.empty()) response.currencies = terms.currencies;
    if (!request.is_uma()) {
        if (!terms.payer_data.empty()) response.payer_data = terms.payer_data;
        return response;
    }
    auto version = negotiate_version(*request.uma_version);
    if (!version) return version.error();
    lnurlp_compliance compliance;
    compliance.kyc_status = terms.kyc_status;
    compliance.signature_nonce = generate_nonce(random);
    compliance.signature_timestamp_s = time.now_ms() / 1000;
    compliance.is_subject_to_travel_rule = terms.requires_travel_rule;
    compliance.receiver_identifier = terms.receiver_identifier;
    compliance.signature = sign_payload(signable_payload(compliance), signing);
    response.compliance = std::move(compliance);
    response.uma_version = version->text();
    response.currencies = terms.currencies;
    response.payer_data = uma_payer_data(terms.payer_data);
    return response;
}

boost::json::object uma_configuration(std::string_view name,
                                      const std::optional<std::string>& request_endpoint) {
    boost::json::object out;
    out["name"] = name;
    boost::json::array majors;
    for (int major : supported_major_versions()) majors.push_back(major);
    out["uma_major_versions"] = std::move(majors);
    if (request_endpoint) out["uma_request_endpoint"] = *request_endpoint;
    return out;
}

}  // namespace corridor::uma
