#pragma once
// The LNURLP request (GET /.well-known/lnurlp/{user}?...) and its response (UMAD-03, UMAD-04,
// LUD-06, LUD-16), as the UMA SDKs put them on the wire.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/base/result.hpp"
#include "uma/common.hpp"
#include "uma/uma_error.hpp"
#include "uma/version.hpp"

namespace corridor::uma {

struct lnurlp_request {
    std::string user;              // the path segment, "$bob" or "bob"
    std::string receiver_address;  // user + "@" + host, what the sender signed
    std::optional<std::string> signature, vasp_domain, nonce, uma_version;
    std::optional<std::int64_t> timestamp_s;
    std::optional<bool> is_subject_to_travel_rule;
    std::vector<backing_signature> backing_signatures;

    // All five UMA parameters are present (the parser refuses one to four of them).
    bool is_uma() const { return signature && vasp_domain && nonce && timestamp_s && uma_version; }
};

// Parses the request target (path and query) received with `host` (the Host the sender
// addressed, with its port). A plain LNURL request has none of the UMA parameters. An unsupported
// umaVersion is UNSUPPORTED_UMA_VERSION (412) before anything else is checked, as in the SDKs.
result<lnurlp_request, uma_error> parse_lnurlp_request(std::string_view target,
                                                       std::string_view host);
// "receiverAddress|nonce|timestamp"
std::string signable_payload(const lnurlp_request& request);
// The URL a sender fetches: http for localhost-like domains, https otherwise; query parameters in
// the SDK's order.
std::string lnurlp_request_url(const lnurlp_request& request);
// The SDKs' rule for plain http: localhost, 127.0.0.1, *.local, *.internal (any port).
bool is_local_domain(std::string_view domain);

struct uma_currency {
    std::string code, name, symbol;
    double multiplier = 0;                            // millisatoshis per smallest unit
    std::int64_t min_sendable = 0, max_sendable = 0;  // smallest units
    int decimals = 0;
    bool operator==(const uma_currency&) const = default;
};

struct lnurlp_compliance {
    std::string kyc_status;
    std::string signature;
    std::string signature_nonce;
    std::int64_t signature_timestamp_s = 0;
    bool is_subject_to_travel_rule = false;
    std::string receiver_identifier;
    std::vector<backing_signature> backing_signatures;
};

struct lnurlp_response {
    std::string callback;
    std::int64_t min_sendable_msats = 0, max_sendable_msats = 0;
    std::string metadata;  // JSON text [[type, value], ...]
    std::optional<lnurlp_compliance> compliance;
    std::optional<std::string> uma_version;
    std::optional<std::vector<uma_currency>> currencies;
    std::optional<std::vector<counterparty_option>> payer_data;
    std::optional<std::int64_t> comment_allowed;
    std::optional<std::string> nostr_pubkey;
    std::optional<bool> allows_nostr;

    bool is_uma() const { return compliance && uma_version && currencies && payer_data; }
};

// Currencies are written in the shape of uma_version's major (v0: min/maxSendable inline, v1:
// convertible {min, max}); members in the SDK's order.
boost::json::object to_json(const lnurlp_response& response);
result<lnurlp_response, uma_error> parse_lnurlp_response(std::string_view json_text);
// "receiverIdentifier|signatureNonce|signatureTimestamp"
std::string signable_payload(const lnurlp_compliance& compliance);
// LUD-06 metadata for a LUD-16 address: [["text/plain", description], ["text/identifier",
// address]].
std::string lnurlp_metadata(std::string_view description, std::string_view identifier);

}  // namespace corridor::uma
