// Quotes: POST /quotes, GET /quotes, GET /quotes/{quoteId}, POST /quotes/{quoteId}/execute.
// A quote to an UMA address is prepared before the writer runs (server/uma/uma_quote.hpp).
#include <boost/json.hpp>

#include "ledger/base/uma_address.hpp"
#include "ledger/payments/payment_json.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"
#include "server/api/handler_steps.hpp"
#include "server/api/payment_errors.hpp"
#include "server/uma/uma_quote.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

const std::vector<std::string_view> purposes = {"GIFT",
                                                "SELF",
                                                "GOODS_OR_SERVICES",
                                                "EDUCATION",
                                                "HEALTH_OR_MEDICAL",
                                                "REAL_ESTATE_PURCHASE",
                                                "TAX_PAYMENT",
                                                "LOAN_PAYMENT",
                                                "UTILITY_BILL",
                                                "DONATION",
                                                "TRAVEL",
                                                "OTHER"};

// Every field of POST /quotes the interface defines, type-checked whichever variant is chosen.
constexpr field_shape quote_source_shape[] = {{"sourceType", json_kind::string},
                                              {"accountId", json_kind::string},
                                              {"customerId", json_kind::string},
                                              {"currency", json_kind::string}};
constexpr field_shape quote_destination_shape[] = {{"destinationType", json_kind::string},
                                                   {"accountId", json_kind::string},
                                                   {"umaAddress", json_kind::string},
                                                   {"currency", json_kind::string}};
constexpr field_shape quote_shape[] = {
    {"source", json_kind::object, quote_source_shape},
    {"destination", json_kind::object, quote_destination_shape},
    {"lockedCurrencySide", json_kind::string},
    {"lockedCurrencyAmount", json_kind::integer},
    {"lookupId", json_kind::string},
    {"immediatelyExecute", json_kind::boolean},
    {"description", json_kind::string},
    {"purposeOfPayment", json_kind::string},
    {"senderCustomerInfo", json_kind::object},
};

struct parsed_quote {
    quote_request request;
    std::optional<uma_quote_input> uma;  // an UMA_ADDRESS destination
    bool execute_now = false;
};

uma_quote_input read_uma_destination(const json::object& body, const json_fields& destination) {
    json_fields fields(body);
    uma_quote_input input;
    input.uma_address = destination.required_string("umaAddress", uma_address_chars_max + 64);
    input.currency = destination.optional_string("currency", 8);
    input.lookup_id = fields.optional_string("lookupId", 128);
    if (const json::object* info = fields.optional_object("senderCustomerInfo")) {
        input.sender_customer_info = *info;
    }
    return input;
}

parsed_quote read_quote_request(const json::object& body, const app_services& services) {
    check_shape(body, quote_shape);
    json_fields fields(body);
    parsed_quote parsed;
    quote_request& request = parsed.request;
    const json::object* source = fields.optional_object("source");
    if (!source) fail_field("source", "is required");
    json_fields source_fields(*source, "source");
    auto source_type = source_fields.optional_enum("sourceType", {"ACCOUNT", "REALTIME_FUNDING"});
    if (!source_type) fail_field("source.sourceType", "is required (ACCOUNT or REALTIME_FUNDING)");
    request.source_type = *source_type;
    request.source_customer_id = source_fields.optional_string("customerId", 128).value_or("");
    if (request.source_type == "ACCOUNT") {
        request.source_account_id = source_fields.required_string("accountId", 128);
    } else {
        request.source_currency = source_fields.required_string("currency", 8);
        if (!services.currencies.find(request.source_currency)) {
            fail(error_code::invalid_currency,
                 "source.currency: " + request.source_currency + " is not a supported currency",
                 json::object{{"field", "source.currency"}});
        }
    }
    const json::object* destination = fields.optional_object("destination");
    if (!destination) fail_field("destination", "is required");
    json_fields destination_fields(*destination, "destination");
    auto destination_type = destination_fields.optional_enum(
        "destinationType", {"ACCOUNT", "UMA_ADDRESS", "EXTERNAL_ACCOUNT_DETAILS"});
    if (!destination_type) fail_field("destination.destinationType", "is required");
    if (*destination_type == "UMA_ADDRESS") {
        parsed.uma = read_uma_destination(body, destination_fields);
    } else if (*destination_type == "ACCOUNT") {
        request.destination_account_id = destination_fields.required_string("accountId", 128);
    } else {
        fail(error_code::not_implemented,
             "destination.destinationType " + *destination_type +
                 " is not available yet; use ACCOUNT (create the external account first) or "
                 "UMA_ADDRESS",
             json::object{{"field", "destination.destinationType"}});
    }
    auto side = fields.optional_enum("lockedCurrencySide", {"SENDING", "RECEIVING"});
    if (!side) fail_field("lockedCurrencySide", "is required (SENDING or RECEIVING)");
    request.side = *side == "SENDING" ? locked_side::sending : locked_side::receiving;
    request.locked_amount = fields.required_int("lockedCurrencyAmount", 1, amount_max);
    request.purpose_of_payment = fields.optional_enum("purposeOfPayment", purposes).value_or("");
    request.description = fields.optional_string("description", 1024).value_or("");
    parsed.execute_now = fields.optional_bool("immediatelyExecute").value_or(false);
    if (parsed.execute_now && request.source_type != "ACCOUNT") {
        fail(error_code::quote_not_executable,
             "immediatelyExecute needs an internal account source; REALTIME_FUNDING quotes are "
             "paid by their instructions",
             json::object{{"field", "immediatelyExecute"}});
    }
    return parsed;
}

// What the prepare step hands the writer step: the request as read, and for an UMA destination
// the receiver's terms.
struct prepared_quote {
    parsed_quote parsed;
    std::optional<uma_quote_terms> uma_terms;
};

// Before the writer: the body is read here, off the ledger writer's thread (reading it is a pure
// function of the body, so the writer step uses this reading instead of its own), and a quote to
// an UMA address asks the receiver's provider for its invoice, so that the network wait never
// holds the ledger writer.
std::any prepare_quote(request_context& context) {
    std::optional<parsed_quote> parsed;
    try {
        parsed = read_quote_request(parse_json_body(context.request), context.services);
    } catch (const api_error&) {
        return {};  // the writer step finds the same problem and answers it under the key
    }
    prepared_quote prepared{std::move(*parsed), std::nullopt};
    if (prepared.parsed.uma) {
        prepared.uma_terms = prepare_uma_quote(context.session(), context.services, context.owner(),
                                               prepared.parsed.request, *prepared.parsed.uma);
    }
    return prepared;
}

http_response create_quote_handler(request_context& context) {
    auto* prepared = std::any_cast<prepared_quote>(context.prepared);
    // Read again only when the prepare step found the body invalid (its error is answered here,
    // under the key) or did not run.
    std::optional<parsed_quote> read_here;
    if (!prepared)
        read_here = read_quote_request(parse_json_body(context.request), context.services);
    parsed_quote& parsed = prepared ? prepared->parsed : *read_here;
    quote_request& request = parsed.request;
    if (parsed.uma) {
        request.uma = prepared && prepared->uma_terms ? &*prepared->uma_terms : nullptr;
        // Only a replay skips the preparation, and a replay never reaches the handler.
        if (request.uma == nullptr) fail(error_code::service_unavailable, "retry the request");
    }
    // On the writer: its cached copy when that can be trusted (ledger/store/writer_facts.hpp).
    auto config = load_platform_config_for_payment(context.session(), context.owner());
    if (!config) fail(error_code::not_found, "platform configuration not found");
    auto services = context.services.payments();
    if (parsed.execute_now) {
        // Created and executed in one step: if the execution is refused, the quote is not kept
        // either (the failure rolls the request back).
        auto executed = create_and_execute_quote(context.session(), services, *config, request);
        if (!executed) fail_payment(executed.error());
        return json_response(201, render_quote(executed.value(), context.services.currencies));
    }
    auto created = create_quote(context.session(), services, *config, request);
    if (!created) fail_payment(created.error());
    return json_response(201, render_quote(created.value(), context.services.currencies));
}

http_response list_quotes_handler(request_context& context) {
    const auto& query = context.query;
    auto filter = read_quote_filter(query);
    auto found = list_quotes(context.session(), context.owner(), filter, query.page("Quote"));
    return page_response(found, [&](const quote_record& quote) {
        return render_quote(quote, context.services.currencies);
    });
}

http_response get_quote_handler(request_context& context) {
    auto quote = find_quote(context.session(), context.owner(), context.param(0));
    if (!quote) fail(error_code::quote_not_found, "no quote " + context.param(0));
    return json_response(200, render_quote(*quote, context.services.currencies));
}

http_response execute_quote_handler(request_context& context) {
    auto executed = execute_quote(context.session(), context.services.payments(), context.owner(),
                                  context.param(0));
    if (!executed) fail_payment(executed.error());
    return json_response(200, render_quote(executed.value(), context.services.currencies));
}

}  // namespace

const std::vector<std::string_view>& quote_status_names() {
    static const std::vector<std::string_view> names = {"PENDING", "PROCESSING", "COMPLETED",
                                                        "FAILED", "EXPIRED"};
    return names;
}

quote_filter read_quote_filter(const query_params& query) {
    quote_filter filter;
    filter.customer_id = query.get("customerId");
    filter.sending_account_id = query.get("sendingAccountId");
    filter.receiving_account_id = query.get("receivingAccountId");
    filter.status = query.one_of("status", quote_status_names());
    filter.created_after_ms = query.timestamp_ms("createdAfter");
    filter.created_before_ms = query.timestamp_ms("createdBefore");
    for (auto [name, target] : {std::pair{"sendingUmaAddress", &filter.sending_uma_address},
                                std::pair{"receivingUmaAddress", &filter.receiving_uma_address}}) {
        auto text = query.get(name);
        if (!text) continue;
        auto address = parse_uma_address(*text);
        if (!address) {
            fail(error_code::invalid_uma_address, std::string(name) + ": must be $user@domain",
                 json::object{{"field", name}});
        }
        *target = address->text();
    }
    return filter;
}

void register_quote_routes(router& routes) {
    routes.add({.method = http_method::post,
                .pattern = versioned("/quotes"),
                .permission = permission_transact,
                .on_ledger_writer = true,
                .idempotent = true,
                .handler = create_quote_handler,
                .prepare = prepare_quote});
    routes.add({.method = http_method::get,
                .pattern = versioned("/quotes"),
                .permission = permission_view,
                .handler = list_quotes_handler});
    routes.add({.method = http_method::get,
                .pattern = versioned("/quotes/{quoteId}"),
                .permission = permission_view,
                .handler = get_quote_handler});
    routes.add({.method = http_method::post,
                .pattern = versioned("/quotes/{quoteId}/execute"),
                .permission = permission_transact,
                .on_ledger_writer = true,
                .idempotent = true,
                .handler = execute_quote_handler});
}

}  // namespace corridor
