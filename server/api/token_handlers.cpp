// API tokens: POST /tokens, GET /tokens, GET /tokens/{tokenId}, DELETE /tokens/{tokenId}.
#include <boost/json.hpp>

#include "ledger/base/time_format.hpp"
#include "ledger/platforms/token_store.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

constexpr std::size_t token_name_chars_max = 256;

json::object render_token(const api_token& token) {
    json::array permissions;
    if (token.permissions & permission_view) permissions.push_back("VIEW");
    if (token.permissions & permission_transact) permissions.push_back("TRANSACT");
    if (token.permissions & permission_manage) permissions.push_back("MANAGE");
    return json::object{{"id", token.id},
                        {"name", token.name},
                        {"permissions", std::move(permissions)},
                        {"clientId", token.client_id},
                        {"createdAt", format_timestamp_ms(token.created_at_ms)},
                        {"updatedAt", format_timestamp_ms(token.updated_at_ms)}};
}

unsigned read_permissions(const json_fields& fields) {
    const json::array* list = fields.optional_array("permissions");
    if (!list || list->empty()) fail_field("permissions", "must list at least one of VIEW, TRANSACT, MANAGE");
    unsigned permissions = 0;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const auto& item = (*list)[i];
        std::string field = "permissions[" + std::to_string(i) + "]";
        if (!item.is_string()) fail_field(field, "must be VIEW, TRANSACT or MANAGE");
        unsigned bit = item.as_string() == "VIEW"       ? permission_view
                       : item.as_string() == "TRANSACT" ? permission_transact
                       : item.as_string() == "MANAGE"   ? permission_manage
                                                        : 0u;
        if (bit == 0) fail_field(field, "must be VIEW, TRANSACT or MANAGE");
        if (permissions & bit) fail_field(field, "is listed twice");
        permissions |= bit;
    }
    return permissions;
}

// Every field of POST /tokens, type-checked before either is read.
constexpr field_shape token_shape[] = {{"name", json_kind::string},
                                       {"permissions", json_kind::array, {}, json_kind::string}};

http_response create_token_handler(request_context& context) {
    auto body = parse_json_body(context.request);
    check_shape(body, token_shape);
    json_fields fields(body);
    std::string name = fields.required_string("name", token_name_chars_max);
    unsigned permissions = read_permissions(fields);
    unsigned beyond_caller = permissions & ~context.who->permissions;
    if (beyond_caller != 0) {
        fail(error_code::forbidden, "a token cannot grant the " + permission_names(beyond_caller) +
                                        " permission it does not hold itself");
    }
    auto created = create_token(context.session(), context.services.ids, context.services.random,
                                context.services.time, context.owner(), name, permissions);
    auto rendered = render_token(created.token);
    rendered["clientSecret"] = created.client_secret;
    return json_response(201, rendered);
}

http_response list_tokens_handler(request_context& context) {
    const auto& query = context.query;
    token_filter filter;
    filter.name = query.get("name");
    filter.created_after_ms = query.timestamp_ms("createdAfter");
    filter.created_before_ms = query.timestamp_ms("createdBefore");
    filter.updated_after_ms = query.timestamp_ms("updatedAfter");
    filter.updated_before_ms = query.timestamp_ms("updatedBefore");
    auto found = list_tokens(context.session(), context.owner(), filter, query.page("Token"));
    return page_response(found, [](const api_token& token) { return render_token(token); });
}

http_response get_token_handler(request_context& context) {
    auto token = find_token(context.session(), context.owner(), context.param(0));
    if (!token) fail(error_code::token_not_found, "no token " + context.param(0));
    return json_response(200, render_token(*token));
}

http_response delete_token_handler(request_context& context) {
    const std::string& id = context.param(0);
    bool deleted = delete_token(context.session(), context.services.time, context.owner(), id);
    if (!deleted) fail(error_code::token_not_found, "no token " + id);
    // Every core shares the cache, so the token stops working for every request that starts now.
    context.services.tokens.invalidate_if(
        [&](const token_credentials& cached) { return cached.token.id == id; });
    http_response response;
    response.status = 204;
    response.content_type.clear();
    return response;
}

}  // namespace

void register_token_routes(router& routes) {
    routes.add({.method = http_method::post, .pattern = versioned("/tokens"),
                .permission = permission_manage, .handler = create_token_handler});
    routes.add({.method = http_method::get, .pattern = versioned("/tokens"),
                .permission = permission_view, .handler = list_tokens_handler});
    routes.add({.method = http_method::get, .pattern = versioned("/tokens/{tokenId}"),
                .permission = permission_view, .handler = get_token_handler});
    routes.add({.method = http_method::delete_, .pattern = versioned("/tokens/{tokenId}"),
                .permission = permission_manage, .handler = delete_token_handler});
}

}  // namespace corridor
