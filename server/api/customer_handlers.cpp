// Customers: POST/GET /customers, GET/PATCH/DELETE /customers/{customerId}.
#include <boost/json.hpp>

#include "ledger/base/countries.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/base/time_format.hpp"
#include "ledger/base/uma_address.hpp"
#include "server/api/app.hpp"
#include "server/api/customer_input.hpp"
#include "server/api/errors.hpp"
#include "server/api/handler_steps.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

const std::vector<std::string_view> customer_types = {"INDIVIDUAL", "BUSINESS"};

platform_config require_config(const request_context& context) {
    auto config = load_platform_config(context.session(), context.owner());
    if (!config) fail(error_code::not_found, "platform configuration not found");
    return std::move(*config);
}

http_response create_customer_handler(request_context& context) {
    auto body = parse_json_body(context.request);
    auto config = require_config(context);
    auto request = read_new_customer(body, config, context.services.time.now_ms());
    auto created = create_customer(
        context.session(),
        customer_services{context.services.ids, context.services.random, context.services.time},
        context.owner(), config.uma_domain, request);
    if (!created) fail_customer(created.error(), "");
    return json_response(201, render_customer(created.value()));
}

http_response list_customers_handler(request_context& context) {
    const auto& query = context.query;
    auto filter = read_customer_filter(query);
    auto found = list_customers(context.session(), context.owner(), filter, query.page("Customer"));
    return page_response(found, [](const customer& item) { return render_customer(item); });
}

http_response get_customer_handler(request_context& context) {
    auto item = find_customer(context.session(), context.owner(), context.param(0));
    if (!item) fail(error_code::user_not_found, "no customer " + context.param(0));
    return json_response(200, render_customer(*item));
}

http_response update_customer_handler(request_context& context) {
    auto body = parse_json_body(context.request);
    check_customer_shape(body);
    json_fields fields(body);
    auto type = fields.optional_enum("customerType", customer_types);
    if (!type) fail_field("customerType", "is required (INDIVIDUAL or BUSINESS)");
    if (body.contains("platformCustomerId")) {
        fail_field("platformCustomerId", "cannot be changed");
    }
    auto config = require_config(context);
    auto changes = read_customer_fields(body, *type, config.uma_domain, false,
                                        context.services.time.now_ms());
    auto updated = update_customer(context.session(), context.services.time, context.owner(),
                                   context.param(0), *type, changes);
    if (!updated) fail_customer(updated.error(), context.param(0));
    return json_response(200, render_customer(updated.value()));
}

http_response delete_customer_handler(request_context& context) {
    auto deleted = delete_customer(context.session(), context.services.time, context.owner(),
                                   context.param(0));
    if (!deleted) fail_customer(deleted.error(), context.param(0));
    return json_response(200, render_customer(deleted.value()));
}

}  // namespace

customer_filter read_customer_filter(const query_params& query) {
    customer_filter filter;
    filter.platform_customer_id = query.get("platformCustomerId");
    filter.customer_type = query.one_of("customerType", customer_types);
    if (auto address = query.get("umaAddress")) {
        auto parsed = parse_uma_address(*address);
        if (!parsed) {
            fail(error_code::invalid_uma_address, "umaAddress: must be $user@domain",
                 json::object{{"field", "umaAddress"}});
        }
        filter.uma_address = parsed->text();
    }
    filter.created_after_ms = query.timestamp_ms("createdAfter");
    filter.created_before_ms = query.timestamp_ms("createdBefore");
    filter.updated_after_ms = query.timestamp_ms("updatedAfter");
    filter.updated_before_ms = query.timestamp_ms("updatedBefore");
    filter.include_deleted = query.boolean("isIncludingDeleted").value_or(false);
    return filter;
}

void register_customer_routes(router& routes) {
    // Customer writes go through the ledger writer: they open internal accounts, and sharing its
    // batches gives them group commit instead of contending for SQLite's single write lock.
    routes.add({.method = http_method::post, .pattern = versioned("/customers"),
                .permission = permission_manage, .on_ledger_writer = true,
                .handler = create_customer_handler});
    routes.add({.method = http_method::get, .pattern = versioned("/customers"),
                .permission = permission_view, .handler = list_customers_handler});
    routes.add({.method = http_method::get, .pattern = versioned("/customers/{customerId}"),
                .permission = permission_view, .handler = get_customer_handler});
    routes.add({.method = http_method::patch, .pattern = versioned("/customers/{customerId}"),
                .permission = permission_manage, .on_ledger_writer = true,
                .handler = update_customer_handler});
    routes.add({.method = http_method::delete_, .pattern = versioned("/customers/{customerId}"),
                .permission = permission_manage, .on_ledger_writer = true,
                .handler = delete_customer_handler});
}

}  // namespace corridor
