#pragma once
// The post-transaction callback (UMAD-07): the UTXOs a payment used, signed by the caller.
#include <boost/json/object.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/base/result.hpp"
#include "uma/uma_error.hpp"

namespace corridor::uma {

struct utxo_amount {
    std::string utxo;  // "<txid>:<vout>"
    std::int64_t amount_msats = 0;
};

struct post_transaction_callback {
    std::vector<utxo_amount> utxos;
    std::string vasp_domain;
    std::string signature;
    std::string signature_nonce;
    std::int64_t signature_timestamp_s = 0;
};

boost::json::object to_json(const post_transaction_callback& callback);
result<post_transaction_callback, uma_error> parse_post_transaction_callback(
    std::string_view json_text);
// "signatureNonce|signatureTimestamp"
std::string signable_payload(const post_transaction_callback& callback);

}  // namespace corridor::uma
