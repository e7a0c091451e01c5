#pragma once
// The sending side of an UMA payment, second step: POST /quotes to an UMA address. Before the
// ledger writer runs (on a pool session, outside any transaction), the quote's lookup is checked,
// the sender's information is matched against what the receiver asked for, the amount is priced
// and the signed pay request is sent to the receiver's provider; its answer (signature, conversion,
// BOLT #11 invoice) is checked. What comes back is the quote's terms, which the writer stores.
// No HTTP types here; failures are api_errors with the interface's codes.
#include <soci/soci.h>

#include <boost/json/object.hpp>
#include <optional>
#include <string>

#include "ledger/payments/payments.hpp"
#include "ledger/base/tenant.hpp"
#include "ledger/payments/uma_payments.hpp"
#include "server/api/errors.hpp"
#include "uma/uma_error.hpp"

namespace corridor {

struct app_services;

// What POST /quotes says of an UMA destination beyond the common quote fields.
struct uma_quote_input {
    std::optional<std::string> lookup_id;
    std::string uma_address;                   // destination.umaAddress, as given
    std::optional<std::string> currency;       // destination.currency
    boost::json::object sender_customer_info;  // UserInfoFieldName -> value
};

// Throws api_error (400 for the request's own problems, 424/400 for the receiver's).
uma_quote_terms prepare_uma_quote(soci::session& session, app_services& services,
                                  const tenant& owner, const quote_request& request,
                                  const uma_quote_input& input);

// The API error of a failed pay request: 424 when the receiver's provider failed or answered
// something it did not sign, 400 when its answer breaks what was asked or cannot be read, and the
// request's own codes for a currency, amount or sender information the receiver refuses.
api_error pay_request_failure(const uma::uma_error& error);

}  // namespace corridor
