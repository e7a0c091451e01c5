#pragma once
// The pay request a sender POSTs to the LNURLP callback (UMAD-05), v1 and v0 shapes.
#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/base/result.hpp"
#include "uma/common.hpp"
#include "uma/uma_error.hpp"

namespace corridor::uma {

struct payer_compliance {
    std::optional<std::vector<std::string>> utxos;
    std::optional<std::string> node_pub_key;
    std::string kyc_status;
    std::optional<std::string> encrypted_travel_rule_info;  // hex ECIES
    std::optional<std::string> travel_rule_format;          // "<format>@<version>"
    std::string signature;
    std::string signature_nonce;
    std::int64_t signature_timestamp_s = 0;
    std::optional<std::string> utxo_callback;
    std::vector<backing_signature> backing_signatures;
};

struct pay_request {
    int major_version = 1;
    // Millisatoshis when sending_currency is empty; else smallest units of sending_currency
    // (v1 "N.CUR"; v0 amounts are in the receiving currency, which sending_currency then names).
    std::int64_t amount = 0;
    std::optional<std::string> sending_currency;
    std::optional<std::string> receiving_currency;  // v1 convert, v0 currency
    // payerData as received (identifier, name, email and any other keys); compliance is parsed
    // into `compliance` and written back from it.
    boost::json::object payer_data;
    std::optional<payer_compliance> compliance;
    std::optional<std::vector<counterparty_option>> requested_payee_data;
    std::optional<std::string> comment;
    std::optional<std::string> invoice_uuid;
    std::optional<boost::json::object> settlement;

    std::optional<std::string> payer_identifier() const;
    bool is_uma() const { return compliance.has_value() && receiving_currency.has_value(); }
};

result<pay_request, uma_error> parse_pay_request(std::string_view json_text);
// The LNURL-pay GET form: ?amount=<msats or N.CUR>&convert=&payerData=<JSON> (LUD-18 wallets
// write payerdata), comment=, v0 currency=.
result<pay_request, uma_error> parse_pay_request_query(std::string_view target);
boost::json::object to_json(const pay_request& request);
boost::json::object to_json(const payer_compliance& compliance);
// "payerIdentifier|signatureNonce|signatureTimestamp"; nullopt without identifier or compliance.
std::optional<std::string> signable_payload(const pay_request& request);

}  // namespace corridor::uma
