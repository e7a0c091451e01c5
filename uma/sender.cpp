#include "uma/sender.hpp"

#include <algorithm>
#include <boost/json/parse.hpp>

#include "uma/responder.hpp"
#include "uma/verify.hpp"

namespace corridor::uma {
namespace {

uma_error failed(std::string reason) {
    return uma_error{error_kind::lnurlp_request_failed, std::move(reason), {}};
}

std::string signed_url(std::string_view address, uma_version version, const sender_identity& sender,
                       const sender_services& services) {
    lnurlp_request request;
    request.receiver_address = std::string(address);
    request.vasp_domain = sender.vasp_domain;
    request.nonce = generate_nonce(services.random);
    request.timestamp_s = services.time.now_ms() / 1000;
    request.uma_version = version.text();
    request.is_subject_to_travel_rule = sender.is_subject_to_travel_rule;
    request.signature = sign_payload(signable_payload(request), sender.signing);
    return lnurlp_request_url(request);
}

// The receiver's supportedMajorVersions from a 412 body; empty when there are none.
std::vector<int> supported_majors(const std::string& body) {
    std::vector<int> out;
    boost::system::error_code error;
    auto value = boost::json::parse(body, error);
    if (error || !value.is_object()) return out;
    const auto* majors = value.as_object().if_contains("supportedMajorVersions");
    if (majors == nullptr || !majors->is_array()) return out;
    for (const auto& item : majors->as_array()) {
        if (item.is_int64() && item.as_int64() >= 0 && item.as_int64() < 1000) {
            out.push_back(static_cast<int>(item.as_int64()));
        }
    }
    return out;
}

bool same_address(std::string_view a, std::string_view b) {
    auto fold = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                              [&](char x, char y) { return fold(x) == fold(y); });
}

}  // namespace

result<receiver_lookup, uma_error> lookup_receiver(std::string_view receiver_address,
                                                   const sender_identity& sender,
                                                   const sender_services& services) {
    auto at = receiver_address.rfind('@');
    std::string_view user = receiver_address.substr(0, at == std::string_view::npos ? 0 : at);
    std::string domain(at == std::string_view::npos ? "" : receiver_address.substr(at + 1));
    bool user_ok = user.size() > 1 && user.front() == '$' &&
                   std::all_of(user.begin() + 1, user.end(), [](char c) {
                       return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+' ||
                              c == '-';
                   });
    // The domain goes into URLs: only a host name or IP literal with an optional port.
    if (!user_ok || !pubkey_url(domain)) {
        return uma_error{error_kind::invalid_input, "the receiver must be $user@domain", {}};
    }
    uma_version version = current_version;
    auto reply = services.transport.get(signed_url(receiver_address, version, sender, services));
    if (reply && reply->status == 412) {
        auto fallback = select_highest_supported(supported_majors(reply->body));
        if (!fallback) return fallback.error();
        version = fallback.value();
        reply = services.transport.get(signed_url(receiver_address, version, sender, services));
    }
    if (!reply) return failed("the receiver's provider did not answer: " + reply.error());
    if (reply->status == 404) {
        return uma_error{error_kind::user_not_found,
                         "the receiver's provider has no user " + std::string(receiver_address),
                         {}};
    }
    if (reply->status == 412) {
        return uma_error{error_kind::unsupported_uma_version,
                         "the receiver's provider refused UMA " + version.text() + " too",
                         {}};
    }
    if (reply->status != 200) {
        return failed("the receiver's provider answered HTTP " + std::to_string(reply->status));
    }
    auto response = parse_lnurlp_response(reply->body);
    if (!response) return response.error();
    if (!response->is_uma()) return failed("the receiver's provider answered without UMA data");
    // UMA addresses are case-insensitive: a receiver may answer with its canonical spelling.
    if (!same_address(response->compliance->receiver_identifier, receiver_address)) {
        return uma_error{error_kind::invalid_signature,
                         "the answer is about " + response->compliance->receiver_identifier +
                             ", not " + std::string(receiver_address),
                         {}};
    }
    auto keys = services.keys.fetch(domain);
    if (!keys) return keys.error();
    auto key = signing_key(keys.value());
    if (!key) return key.error();
    if (auto error =
            verify_lnurlp_response(response.value(), key.value(), domain, services.nonces)) {
        return *error;
    }
    return receiver_lookup{std::move(response.value()), std::move(keys.value()), version};
}

}  // namespace corridor::uma
