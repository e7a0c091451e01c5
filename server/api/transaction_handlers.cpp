// Transactions: GET /transactions, GET /transactions/{transactionId}.
#include <boost/json.hpp>

#include "ledger/payments.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

const std::vector<std::string_view> transaction_statuses = {
    "CREATED", "PENDING", "PROCESSING", "SENT", "COMPLETED", "REJECTED", "FAILED", "REFUNDED", "EXPIRED"};

http_response list_transactions_handler(request_context& context) {
    const auto& query = context.query;
    transaction_filter filter;
    filter.customer_id = query.get("customerId");
    filter.platform_customer_id = query.get("platformCustomerId");
    filter.sender_account_id = query.get("senderAccountIdentifier");
    filter.receiver_account_id = query.get("receiverAccountIdentifier");
    filter.status = query.one_of("status", transaction_statuses);
    filter.type = query.one_of("type", {"INCOMING", "OUTGOING"});
    filter.reference = query.get("reference");
    filter.start_ms = query.timestamp_ms("startDate");
    filter.end_ms = query.timestamp_ms("endDate");
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

}  // namespace

void register_transaction_routes(router& routes) {
    routes.add({.method = http_method::get, .pattern = versioned("/transactions"),
                .permission = permission_view, .handler = list_transactions_handler});
    routes.add({.method = http_method::get, .pattern = versioned("/transactions/{transactionId}"),
                .permission = permission_view, .handler = get_transaction_handler});
}

}  // namespace corridor
