// Sandbox operations: POST /sandbox/send simulates the funds a REALTIME_FUNDING quote asks for;
// POST /sandbox/uma/receive simulates an UMA payment from a sandbox sender to one of the
// platform's customers, through the same path as the pay-request callback.
// (POST /sandbox/internal-accounts/{id}/fund lives with the accounts.)
#include <boost/json.hpp>
#include <cctype>

#include "ledger/payments/approvals.hpp"
#include "ledger/base/assert.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/payments/payment_json.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/base/uma_address.hpp"
#include "ledger/payments/uma_receipts.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"
#include "server/api/handler_steps.hpp"
#include "server/api/payment_errors.hpp"
#include "server/api/uma_node.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

// Every field of the two sandbox bodies, type-checked before the sender or quote decides which
// of them are read.
constexpr field_shape send_shape[] = {{"quoteId", json_kind::string},
                                      {"currencyCode", json_kind::string},
                                      {"currencyAmount", json_kind::integer}};
constexpr field_shape uma_receive_shape[] = {{"senderUmaAddress", json_kind::string},
                                             {"receivingCurrencyCode", json_kind::string},
                                             {"receivingCurrencyAmount", json_kind::integer},
                                             {"receiverUmaAddress", json_kind::string},
                                             {"customerId", json_kind::string}};

http_response sandbox_send(request_context& context) {
    auto body = parse_json_body(context.request);
    check_shape(body, send_shape);
    json_fields fields(body);
    std::string quote_id = fields.required_string("quoteId", 128);
    std::string currency = fields.required_string("currencyCode", 8);
    auto amount = fields.optional_int("currencyAmount", 1, amount_max);
    auto sent = receive_quote_funding(context.session(), context.services.payments(), context.owner(),
                                      quote_id, currency, amount);
    if (!sent) fail_payment(sent.error());
    return json_response(200, render_transaction(sent.value(), context.services.currencies));
}

// The sandbox senders, by the user part of their address: $<scenario>.<currency>@<any domain>.
enum class sandbox_sender { success, pending_long, fail_compliance, non_existent };

struct sender_scenario {
    std::string_view prefix;
    sandbox_sender kind;
};
constexpr sender_scenario sender_scenarios[] = {
    {"success.", sandbox_sender::success},
    {"pending.long.", sandbox_sender::pending_long},
    {"fail.compliance.", sandbox_sender::fail_compliance},
    {"non.existent.", sandbox_sender::non_existent},
};

sandbox_sender parse_sandbox_sender(const std::string& address,
                                    const currency_registry& currencies) {
    auto parsed = parse_uma_address(address);
    if (!parsed) fail_field("senderUmaAddress", "senderUmaAddress must be an UMA address $user@domain");
    std::string user = parsed->text().substr(1, parsed->text().find('@') - 1);
    for (const auto& scenario : sender_scenarios) {
        if (!user.starts_with(scenario.prefix)) continue;
        std::string code = user.substr(scenario.prefix.size());
        for (char& c : code) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        if (currencies.find(code) == nullptr) {
            fail_field("senderUmaAddress", "the sandbox sender's currency " + code + " is unknown");
        }
        return scenario.kind;
    }
    fail_field("senderUmaAddress",
               "senderUmaAddress must be a sandbox sender: $success.<currency>, "
               "$pending.long.<currency>, $fail.compliance.<currency> or "
               "$non.existent.<currency> at any domain");
}

customer sandbox_receiver(request_context& context, const json_fields& fields) {
    auto customer_id = fields.optional_string("customerId", 128);
    auto address = fields.optional_string("receiverUmaAddress", 256);
    if (!customer_id && !address) {
        fail_field("customerId", "customerId or receiverUmaAddress is required");
    }
    std::optional<customer> found;
    if (customer_id) {
        found = find_customer(context.session(), context.owner(), *customer_id);
    } else {
        auto parsed = parse_uma_address(*address);
        if (!parsed) fail_field("receiverUmaAddress", "receiverUmaAddress must be $user@domain");
        customer_filter filter;
        filter.uma_address = parsed->text();
        page_request request;
        request.limit = 1;
        auto page = list_customers(context.session(), context.owner(), filter, request);
        if (!page.items.empty()) found = page.items.front();
    }
    if (!found || found->is_deleted) {
        fail(error_code::user_not_found,
             "no customer " + (customer_id ? *customer_id : *address) + " receives here");
    }
    if (address && customer_id && found->uma_address != parse_uma_address(*address)->text()) {
        fail_field("receiverUmaAddress", "receiverUmaAddress is not the customer's address");
    }
    return *found;
}

error_code api_code_of(uma::error_kind kind) {
    switch (kind) {
        case uma::error_kind::invalid_currency: return error_code::invalid_currency;
        case uma::error_kind::amount_out_of_range: return error_code::amount_out_of_range;
        default: return error_code::invalid_input;
    }
}

http_response sandbox_uma_receive(request_context& context) {
    auto body = parse_json_body(context.request);
    return json_response(
        200, render_transaction(sandbox_receive_uma(context, body), context.services.currencies));
}

}  // namespace

transaction_record sandbox_receive_uma(request_context& context, const json::object& body) {
    check_shape(body, uma_receive_shape);
    json_fields fields(body);
    std::string sender_address = fields.required_string("senderUmaAddress", 256);
    std::string currency = fields.required_string("receivingCurrencyCode", 8);
    std::int64_t amount = fields.required_int("receivingCurrencyAmount", 1, amount_max);
    auto& services = context.services;
    sandbox_sender sender = parse_sandbox_sender(sender_address, services.currencies);
    customer receiver = sandbox_receiver(context, fields);
    if (sender == sandbox_sender::non_existent) {
        fail(error_code::user_not_found, "the sandbox sender " + sender_address + " does not exist");
    }
    auto config = load_platform_config(context.session(), context.owner());
    const supported_currency* terms =
        config ? find_supported_currency(*config, currency) : nullptr;
    if (terms == nullptr || !enabled_for(*terms, "INCOMING")) {
        fail(error_code::currency_not_enabled,
             "the platform does not receive " + currency + " payments",
             {{"field", "receivingCurrencyCode"}});
    }
    if (amount < terms->min_amount || amount > terms->max_amount) {
        fail(error_code::amount_out_of_range,
             "receivingCurrencyAmount must be " + std::to_string(terms->min_amount) + " to " +
                 std::to_string(terms->max_amount),
             {{"field", "receivingCurrencyAmount"}});
    }
    incoming_uma_request request;
    request.receiver = receiver;
    request.receiving_currency = currency;
    request.receiving_amount = amount;
    request.sender_uma_address = parse_uma_address(sender_address)->text();
    request.counterparty_information =
        json::serialize(json::object{{"identifier", request.sender_uma_address}});
    request.description = "Sandbox UMA payment";
    auto payments = services.payments();
    auto started = start_incoming_uma_payment(context.session(), payments,
                                              uma_lightning_node(services), request);
    if (!started) fail(api_code_of(started.error().kind), started.error().reason);
    transaction_record transaction = started->transaction;
    if (sender == sandbox_sender::success) {
        // The sender pays the invoice at once; the credit follows the platform's approval.
        auto paid = receive_uma_invoice_payment(context.session(), payments, context.owner(),
                                                started->payment_hash);
        CORRIDOR_ASSERT(static_cast<bool>(paid));
        transaction = std::move(paid.value());
    } else if (sender == sandbox_sender::fail_compliance) {
        auto failed = fail_incoming_payment(context.session(), payments, context.owner(),
                                            transaction.id, "PAY_REQUEST_FAILED",
                                            "the sender failed compliance screening");
        CORRIDOR_ASSERT(static_cast<bool>(failed));
        transaction = std::move(failed.value());
    }
    return transaction;
}

void register_sandbox_routes(router& routes) {
    routes.add({.method = http_method::post, .pattern = versioned("/sandbox/send"),
                .permission = permission_transact, .sandbox_only = true, .on_ledger_writer = true,
                .idempotent = true, .handler = sandbox_send});
    routes.add({.method = http_method::post, .pattern = versioned("/sandbox/uma/receive"),
                .permission = permission_transact, .sandbox_only = true, .on_ledger_writer = true,
                .idempotent = true, .handler = sandbox_uma_receive});
}

}  // namespace corridor
