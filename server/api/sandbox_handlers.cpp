// Sandbox operations: POST /sandbox/send simulates the funds a REALTIME_FUNDING quote asks for.
// (POST /sandbox/internal-accounts/{id}/fund lives with the accounts.)
#include <boost/json.hpp>

#include "ledger/payments.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"
#include "server/api/payment_errors.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

http_response sandbox_send(request_context& context) {
    auto body = parse_json_body(context.request);
    json_fields fields(body);
    std::string quote_id = fields.required_string("quoteId", 128);
    std::string currency = fields.required_string("currencyCode", 8);
    auto amount = fields.optional_int("currencyAmount", 1, amount_max);
    auto sent = receive_quote_funding(context.session(), context.services.payments(), context.owner(),
                                      quote_id, currency, amount);
    if (!sent) fail_payment(sent.error());
    return json_response(200, render_transaction(sent.value(), context.services.currencies));
}

}  // namespace

void register_sandbox_routes(router& routes) {
    routes.add({.method = http_method::post, .pattern = versioned("/sandbox/send"),
                .permission = permission_transact, .sandbox_only = true, .on_ledger_writer = true,
                .idempotent = true, .handler = sandbox_send});
}

}  // namespace corridor
