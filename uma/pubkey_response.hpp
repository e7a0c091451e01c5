#pragma once
// GET /.well-known/lnurlpubkey (UMAD-02): certificate chains (hex DER, leaf first) and, for older
// readers, the raw uncompressed keys in hex. Readers prefer the chain's leaf.
#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/base/result.hpp"
#include "uma/hex.hpp"
#include "uma/signing.hpp"
#include "uma/uma_error.hpp"

namespace corridor::uma {

struct pubkey_response {
    std::vector<bytes> signing_cert_chain;
    std::vector<bytes> encryption_cert_chain;
    std::optional<std::string> signing_pub_key;     // hex, 65 bytes
    std::optional<std::string> encryption_pub_key;  // hex, 65 bytes
    std::optional<std::int64_t> expiration_timestamp_s;
};

boost::json::object to_json(const pubkey_response& response);
result<pubkey_response, uma_error> parse_pubkey_response(std::string_view json_text);
result<public_key, uma_error> signing_key(const pubkey_response& response);
result<public_key, uma_error> encryption_key(const pubkey_response& response);

}  // namespace corridor::uma
