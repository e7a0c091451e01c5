#pragma once
// The sending side of an UMA payment, second step: the signed pay request to the callback a
// lookup returned, with the payer's travel-rule data encrypted to the receiver's key, and the
// checks of the answer: signed by the receiver over both identifiers, the amount converted as
// asked, and a BOLT #11 invoice, unexpired, for exactly what the answer says it costs.
#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ledger/base/result.hpp"
#include "uma/pay_request.hpp"
#include "uma/pay_response.hpp"
#include "uma/sender.hpp"

namespace corridor::uma {

struct payer_details {
    std::string identifier;  // the payer's UMA address
    std::string kyc_status = "VERIFIED";
    boost::json::object fields;  // payerData keys the receiver asked for: name, email, ...
    std::optional<std::string> travel_rule_info;  // plaintext, encrypted to the receiver
    std::optional<std::string> travel_rule_format;
    std::optional<std::string> utxo_callback;  // where the receiver posts its post-transaction
};

struct invoice_order {
    std::string receiving_currency;  // one of the lookup's currencies
    // What the receiver is to get, in its smallest units; or, with amount_in_msats (UMA v1
    // only), what the invoice is to be for, the receiver converting it less its fee.
    std::int64_t amount = 0;
    bool amount_in_msats = false;
    // payeeData (LUD-22) to ask the receiver for; none asked when empty.
    std::vector<counterparty_option> requested_payee_data;
};

struct requested_invoice {
    pay_request request;  // as sent
    pay_response response;
    std::string invoice;  // BOLT #11
    std::int64_t amount_msats = 0;
    std::string payment_hash;  // hex
    std::int64_t expires_at_s = 0;
};

// The pay request for the order, signed; refuses a currency the receiver does not offer, an
// amount outside its range, and payer data that lacks a field the receiver marked mandatory.
result<pay_request, uma_error> build_pay_request(const receiver_lookup& lookup,
                                                 const payer_details& payer,
                                                 const invoice_order& order,
                                                 const sender_identity& sender,
                                                 const sender_services& services);

// Builds, POSTs and checks. A v0 answer may come unsigned (UMA 0.3 signed no pay responses) and
// names no converted amount (it converts what was asked). A provider that cannot be reached or
// answers an HTTP error is PAYREQ_REQUEST_FAILED (extra: the provider's HTTP status and UMA code);
// an unreadable answer PARSE_PAYREQ_RESPONSE_ERROR; a signature that does not verify
// INVALID_SIGNATURE; a replayed nonce INVALID_NONCE; an answer whose currency, amount or invoice
// disagree with the order INVALID_PAYREQ_RESPONSE.
result<requested_invoice, uma_error> request_invoice(const receiver_lookup& lookup,
                                                     const payer_details& payer,
                                                     const invoice_order& order,
                                                     const sender_identity& sender,
                                                     const sender_services& services);

}  // namespace corridor::uma
