// Internal accounts: GET /customers/internal-accounts, GET /platform/internal-accounts and the
// sandbox deposit POST /sandbox/internal-accounts/{accountId}/fund.
#include <boost/json.hpp>

#include "ledger/book/book.hpp"
#include "ledger/payments/payment_json.hpp"
#include "ledger/payments/payments.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"
#include "server/api/handler_steps.hpp"
#include "server/api/payment_errors.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

constexpr std::int64_t sandbox_fund_amount_max = 100'000'000'000;

json::object render_account(request_context& context, const ledger_account& account) {
    auto& services = context.services;
    return render_internal_account(account, services.currencies, services.funding_for(account.owner.env),
                                   services.funding_rails.get(), services.time.now_ms());
}

http_response list_customer_accounts(request_context& context) {
    account_filter filter;
    filter.currency = context.query.currency("currency", context.services.currencies);
    filter.customer_id = context.query.get("customerId");
    auto found = list_internal_accounts(context.session(), context.owner(), filter, context.query.page("InternalAccount"));
    return page_response(found, [&](const ledger_account& account) {
        return render_account(context, account);
    });
}

http_response list_platform_accounts(request_context& context) {
    account_filter filter;
    filter.platform_only = true;
    filter.currency = context.query.currency("currency", context.services.currencies);
    auto found = list_internal_accounts(context.session(), context.owner(), filter,
                                        page_request{page_limit_max, std::nullopt, false});
    json::array data;
    for (const auto& account : found.items) {
        data.push_back(render_account(context, account));
    }
    return json_response(200, json::object{{"data", std::move(data)}});
}

constexpr field_shape fund_shape[] = {{"amount", json_kind::integer}};

http_response fund_account(request_context& context) {
    auto body = parse_json_body(context.request);
    return json_response(
        200, render_account(context, sandbox_fund_account(context, context.param(0), body)));
}

}  // namespace

ledger_account sandbox_fund_account(request_context& context, const std::string& account_id,
                                    const json::object& body) {
    check_shape(body, fund_shape);
    json_fields fields(body);
    std::int64_t amount = fields.required_int("amount", 1, sandbox_fund_amount_max);
    auto funded = fund_internal_account(context.session(), context.services.payments(),
                                        context.owner(), account_id, amount);
    if (!funded) fail_payment(funded.error());
    return std::move(funded.value());
}

void register_account_routes(router& routes) {
    routes.add({.method = http_method::get, .pattern = versioned("/customers/internal-accounts"),
                .permission = permission_view, .handler = list_customer_accounts});
    routes.add({.method = http_method::get, .pattern = versioned("/platform/internal-accounts"),
                .permission = permission_view, .handler = list_platform_accounts});
    routes.add({.method = http_method::post,
                .pattern = versioned("/sandbox/internal-accounts/{accountId}/fund"),
                .permission = permission_transact, .sandbox_only = true, .on_ledger_writer = true,
                .idempotent = true, .handler = fund_account});
}

}  // namespace corridor
