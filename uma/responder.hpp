#pragma once
// The receiving side of an LNURLP lookup: given the parsed request and what the receiver accepts,
// the response to send, signed when the request is UMA. No HTTP and no database here: the server
// finds the platform, the user and the keys, then calls this.
#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/base/clock.hpp"
#include "ledger/base/random.hpp"
#include "ledger/base/result.hpp"
#include "uma/lnurlp.hpp"
#include "uma/signing.hpp"

namespace corridor::uma {

struct receiver_terms {
    std::string receiver_identifier;  // "$user@umaDomain", what the response signs
    std::string callback;             // where the pay request goes
    std::int64_t min_sendable_msats = 1000;
    std::int64_t max_sendable_msats = 0;
    std::string description;  // metadata text/plain
    std::vector<uma_currency> currencies;
    std::vector<counterparty_option> payer_data;  // beyond identifier and compliance
    std::string kyc_status = "UNKNOWN";
    bool requires_travel_rule = false;
    std::optional<std::int64_t> comment_allowed;
};

// For UMA requests: version negotiated (412 when unsupported), compliance signed with `signing`
// over receiver_identifier, payerData with identifier and compliance mandatory, currencies in the
// negotiated major's shape. For plain LNURL-pay: the LUD-06/LUD-16 response, unsigned.
result<lnurlp_response, uma_error> build_lnurlp_response(const lnurlp_request& request,
                                                         const receiver_terms& terms,
                                                         const private_key& signing,
                                                         const clock& time, random_source& random);

// A decimal random 32-bit nonce, as the SDKs make them.
std::string generate_nonce(random_source& random);

// The /.well-known/uma-configuration document (UMAD-10).
boost::json::object uma_configuration(std::string_view name,
                                      const std::optional<std::string>& request_endpoint);

}  // namespace corridor::uma
