// Transactions: GET /transactions, GET /transactions/{transactionId}, and the platform's decision on
// an incoming payment awaiting its approval: POST /transactions/{transactionId}/approve and /reject.
#include <boost/json.hpp>

#include "ledger/payments/approvals.hpp"
#include "ledger/payments/payment_json.hpp"
#include "ledger/payments/payments.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"
#include "server/api/handler_steps.hpp"

namespace corridor {
namespace json = boost::json;

const std::vector<std::string_view>& transaction_status_names() {
    static const std::vector<std::string_view> names = {"CREATED", "PENDING",   "PROCESSING",
                                                        "SENT",    "COMPLETED", "REJECTED",
                                                        "FAILED",  "REFUNDED",  "EXPIRED"};
    return names;
}

transaction_filter read_transaction_filter(const query_params& query) {
    transaction_filter filter;
    filter.customer_id = query.get("customerId");
    filter.platform_customer_id = query.get("platformCustomerId");
    filter.sender_account_id = query.get("senderAccountIdentifier");
    filter.receiver_account_id = query.get("receiverAccountIdentifier");
    filter.status = query.one_of("status", transaction_status_names());
    filter.type = query.one_of("type", {"INCOMING", "OUTGOING"});
    filter.reference = query.get("reference");
    filter.start_ms = query.timestamp_ms("startDate");
    filter.end_ms = query.timestamp_ms("endDate");
    return filter;
}

namespace {

http_response list_transactions_handler(request_context& context) {
    const auto& query = context.query;
    auto filter = read_transaction_filter(query);
    auto found = list_transactions(context.session(), context.owner(), filter, query.page("Transaction", true));
    return page_response(found, [&](const transaction_record& item) {
        return render_transaction(item, context.services.currencies);
    });
}

http_response get_transaction_handler(request_context& context) {
    auto found = find_transaction(context.session(), context.owner(), context.param(0));
    if (!found) fail(error_code::transaction_not_found, "no transaction " + context.param(0));
    return json_response(200, render_transaction(*found, context.services.currencies));
}

// The body is optional for both decisions.
json::object optional_body(const request_context& context) {
    if (context.request.body.empty()) return {};
    return parse_json_body(context.request);
}

[[noreturn]] void fail_approval(const approval_failure& failure) {
    switch (failure.code) {
        case approval_error::transaction_not_found: fail(error_code::transaction_not_found, failure.message);
        case approval_error::not_pending_platform_approval:
            fail(error_code::transaction_not_pending_platform_approval, failure.message);
        case approval_error::missing_mandatory_fields: {
            json::array fields;
            for (const auto& name : failure.fields) fields.push_back(json::value(name));
            fail(error_code::missing_mandatory_user_info, failure.message,
                 json::object{{"field", "receiverCustomerInfo"}, {"missingFields", std::move(fields)}});
        }
        case approval_error::invalid_request:
        case approval_error::account_not_found:
            fail_field(failure.fields.empty() ? "body" : failure.fields.front(), failure.message);
    }
    fail(error_code::internal_error, "internal error");
}

// The bodies of the two decisions as the interface defines them. receiverCustomerInfo holds the
// requested user information, keyed by camelCase name or by its UserInfoFieldName.
constexpr field_shape address_shape[] = {
    {"line1", json_kind::string},      {"line2", json_kind::string},
    {"city", json_kind::string},       {"state", json_kind::string},
    {"postalCode", json_kind::string}, {"country", json_kind::string}};
constexpr field_shape receiver_info_shape[] = {{"fullName", json_kind::string},
                                               {"birthDate", json_kind::string},
                                               {"nationality", json_kind::string},
                                               {"address", json_kind::object, address_shape},
                                               {"phoneNumber", json_kind::string},
                                               {"email", json_kind::string},
                                               {"businessName", json_kind::string},
                                               {"taxId", json_kind::string},
                                               {"countryOfResidence", json_kind::string},
                                               {"FULL_NAME", json_kind::string},
                                               {"BIRTH_DATE", json_kind::string},
                                               {"NATIONALITY", json_kind::string},
                                               {"ADDRESS", json_kind::object, address_shape},
                                               {"PHONE_NUMBER", json_kind::string},
                                               {"EMAIL", json_kind::string},
                                               {"BUSINESS_NAME", json_kind::string},
                                               {"TAX_ID", json_kind::string},
                                               {"COUNTRY_OF_RESIDENCE", json_kind::string}};
constexpr field_shape approve_shape[] = {
    {"receiverCustomerInfo", json_kind::object, receiver_info_shape}};
constexpr field_shape reject_shape[] = {{"reason", json_kind::string}};

http_response approve_handler(request_context& context) {
    auto body = optional_body(context);
    check_shape(body, approve_shape);
    json_fields fields(body);
    std::string info;
    if (const auto* given = fields.optional_object("receiverCustomerInfo")) info = json::serialize(*given);
    auto approved = approve_incoming_payment(context.session(), context.services.payments(),
                                             context.owner(), context.param(0), info);
    if (!approved) fail_approval(approved.error());
    return json_response(200, render_transaction(approved.value(), context.services.currencies));
}

http_response reject_handler(request_context& context) {
    auto body = optional_body(context);
    check_shape(body, reject_shape);
    json_fields fields(body);
    std::string reason = fields.optional_string("reason").value_or("");
    auto rejected = reject_incoming_payment(context.session(), context.services.payments(),
                                            context.owner(), context.param(0), reason);
    if (!rejected) fail_approval(rejected.error());
    return json_response(200, render_transaction(rejected.value(), context.services.currencies));
}

}  // namespace

void register_transaction_routes(router& routes) {
    routes.add({.method = http_method::post, .pattern = versioned("/transactions/{transactionId}/approve"),
                .permission = permission_transact, .on_ledger_writer = true, .handler = approve_handler});
    routes.add({.method = http_method::post, .pattern = versioned("/transactions/{transactionId}/reject"),
                .permission = permission_transact, .on_ledger_writer = true, .handler = reject_handler});
    routes.add({.method = http_method::get, .pattern = versioned("/transactions"),
                .permission = permission_view, .handler = list_transactions_handler});
    routes.add({.method = http_method::get, .pattern = versioned("/transactions/{transactionId}"),
                .permission = permission_view, .handler = get_transaction_handler});
}

}  // namespace corridor
