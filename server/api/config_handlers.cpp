// GET /config and PATCH /config: the platform configuration of the caller's environment.
#include <boost/json.hpp>
#include <boost/url/parse.hpp>
#include <set>

#include "ledger/platforms/platform_store.hpp"
#include "ledger/base/time_format.hpp"
#include "ledger/base/uma_address.hpp"
#include "server/api/app.hpp"
#include "server/api/config_input.hpp"
#include "server/api/errors.hpp"
#include "server/api/handler_steps.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

const std::vector<std::string_view> user_info_field_names = {
    "FULL_NAME", "BIRTH_DATE", "NATIONALITY", "ADDRESS",  "PHONE_NUMBER",
    "EMAIL",     "BUSINESS_NAME", "TAX_ID",   "COUNTRY_OF_RESIDENCE"};
constexpr std::int64_t amount_max = 9'000'000'000'000'000;
constexpr std::size_t supported_currencies_max = 64;
constexpr std::size_t webhook_url_chars_max = 2048;

json::object render_config(const platform_config& config) {
    json::array currencies;
    for (const auto& item : config.supported_currencies) {
        json::array fields;
        for (const auto& field : item.required_counterparty_fields) {
            fields.push_back(json::object{{"name", field.name}, {"mandatory", field.mandatory}});
        }
        currencies.push_back(json::object{
            {"currencyCode", item.currency_code},
            {"minAmount", item.min_amount},
            {"maxAmount", item.max_amount},
            {"enabledTransactionTypes",
             json::array(item.enabled_transaction_types.begin(), item.enabled_transaction_types.end())},
            {"requiredCounterpartyFields", std::move(fields)},
            // Corridor as UMA provider mandates no customer fields beyond the platform's own.
            {"providerRequiredCustomerFields", json::array{}},
            {"providerRequiredCounterpartyCustomerFields", json::array{}},
        });
    }
    json::object body{
        {"id", config.id},
        {"umaDomain", config.uma_domain},
        {"proxyUmaSubdomain", config.proxy_uma_subdomain},
        {"supportedCurrencies", std::move(currencies)},
        {"isRegulatedFinancialInstitution", config.is_regulated},
        {"createdAt", format_timestamp_ms(config.created_at_ms)},
        {"updatedAt", format_timestamp_ms(config.updated_at_ms)},
    };
    if (config.webhook_endpoint) body["webhookEndpoint"] = *config.webhook_endpoint;
    return body;
}

std::optional<http_response> get_config_cached(request_context& context) {
    auto body = context.services.configs.get(tenant_key(context.owner()),
                                             context.services.time.now_ms());
    if (!body) return std::nullopt;
    http_response response;
    response.body = std::move(*body);
    return response;
}

http_response get_config(request_context& context) {
    auto& cache = context.services.configs;
    auto epoch = cache.epoch();
    auto config = load_platform_config(context.session(), context.owner());
    if (!config) fail(error_code::not_found, "platform configuration not found");
    auto response = json_response(200, render_config(*config));
    cache.put(tenant_key(context.owner()), response.body, context.services.time.now_ms(), epoch);
    return response;
}

supported_currency read_supported_currency(const json::value& value, const std::string& path,
                                           const currency_registry& registry) {
    if (!value.is_object()) fail_field(path, "must be an object");
    json_fields fields(value.as_object(), path);
    supported_currency item;
    item.currency_code = fields.required_string("currencyCode", 8);
    if (!registry.find(item.currency_code)) {
        fail(error_code::invalid_currency,
             fields.path("currencyCode") + ": " + item.currency_code + " is not a supported currency",
             json::object{{"field", fields.path("currencyCode")}});
    }
    item.min_amount = fields.required_int("minAmount", 0, amount_max);
    item.max_amount = fields.required_int("maxAmount", 0, amount_max);
    if (item.min_amount > item.max_amount) {
        fail_field(fields.path("minAmount"), "must not exceed maxAmount");
    }
    const json::array* types = fields.optional_array("enabledTransactionTypes");
    if (!types) fail_field(fields.path("enabledTransactionTypes"), "is required");
    for (std::size_t i = 0; i < types->size(); ++i) {
        std::string field = fields.path("enabledTransactionTypes") + "[" + std::to_string(i) + "]";
        const auto& type = (*types)[i];
        if (!type.is_string() || (type.as_string() != "OUTGOING" && type.as_string() != "INCOMING")) {
            fail_field(field, "must be OUTGOING or INCOMING");
        }
        std::string name(type.as_string());
        if (std::find(item.enabled_transaction_types.begin(), item.enabled_transaction_types.end(),
                      name) != item.enabled_transaction_types.end()) {
            fail_field(field, "is listed twice");
        }
        item.enabled_transaction_types.push_back(name);
    }
    const json::array* required = fields.optional_array("requiredCounterpartyFields");
    if (!required) fail_field(fields.path("requiredCounterpartyFields"), "is required");
    std::set<std::string> seen;
    for (std::size_t i = 0; i < required->size(); ++i) {
        std::string field = fields.path("requiredCounterpartyFields") + "[" + std::to_string(i) + "]";
        if (!(*required)[i].is_object()) fail_field(field, "must be an object");
        json_fields entry((*required)[i].as_object(), field);
        auto name = entry.optional_enum("name", user_info_field_names);
        if (!name) fail_field(entry.path("name"), "is required");
        auto mandatory = entry.optional_bool("mandatory");
        if (!mandatory) fail_field(entry.path("mandatory"), "is required");
        if (!seen.insert(*name).second) fail_field(entry.path("name"), "is listed twice");
        item.required_counterparty_fields.push_back({*name, *mandatory});
    }
    return item;
}

http_response patch_config(request_context& context) {
    auto body = parse_json_body(context.request);
    auto patch = read_config_patch(body, context);
    return json_response(200, render_config(apply_config_patch(context, patch)));
}

}  // namespace

const std::vector<std::string_view>& counterparty_field_names() {
    return user_info_field_names;
}

// Every field of PATCH /config the interface defines, type-checked before any is read (the two
// fields only the service sets included, so that a wrong type is named as such first).
constexpr field_shape counterparty_field_shape[] = {{"name", json_kind::string},
                                                    {"mandatory", json_kind::boolean}};
constexpr field_shape supported_currency_shape[] = {
    {"currencyCode", json_kind::string},
    {"minAmount", json_kind::integer},
    {"maxAmount", json_kind::integer},
    {"enabledTransactionTypes", json_kind::array, {}, json_kind::string},
    {"requiredCounterpartyFields", json_kind::array, counterparty_field_shape, json_kind::object}};
constexpr field_shape config_patch_shape[] = {
    {"umaDomain", json_kind::string},
    {"webhookEndpoint", json_kind::string},
    {"supportedCurrencies", json_kind::array, supported_currency_shape, json_kind::object},
    {"isRegulatedFinancialInstitution", json_kind::boolean},
    {"proxyUmaSubdomain", json_kind::string}};

config_patch read_config_patch(const json::object& body, const request_context& context) {
    check_shape(body, config_patch_shape);
    json_fields fields(body);
    if (body.contains("isRegulatedFinancialInstitution")) {
        fail_field("isRegulatedFinancialInstitution",
                   "can only be set by the service operator when the platform is created");
    }
    if (body.contains("proxyUmaSubdomain")) {
        fail_field("proxyUmaSubdomain", "is assigned by the service and cannot be changed");
    }
    config_patch patch;
    if (auto domain = fields.optional_string("umaDomain", 260)) {
        auto normalized = normalize_uma_domain(*domain);
        if (!normalized) {
            fail_field("umaDomain", "must be a DNS name or an IP literal, optionally with :port");
        }
        patch.uma_domain = *normalized;
    }
    if (body.contains("webhookEndpoint")) {
        if (body.at("webhookEndpoint").is_null()) {
            patch.webhook_endpoint = std::optional<std::string>{};
        } else {
            patch.webhook_endpoint =
                checked_webhook_endpoint(
                    *fields.optional_string("webhookEndpoint", webhook_url_chars_max),
                    context.owner().env, context.services.config);
        }
    }
    if (const json::array* currencies = fields.optional_array("supportedCurrencies")) {
        if (currencies->size() > supported_currencies_max) {
            fail_field("supportedCurrencies",
                       "must list at most " + std::to_string(supported_currencies_max) + " currencies");
        }
        std::vector<supported_currency> items;
        for (std::size_t i = 0; i < currencies->size(); ++i) {
            auto item = read_supported_currency((*currencies)[i],
                                                "supportedCurrencies[" + std::to_string(i) + "]",
                                                context.services.currencies);
            for (const auto& earlier : items) {
                if (earlier.currency_code == item.currency_code) {
                    fail_field("supportedCurrencies[" + std::to_string(i) + "].currencyCode",
                               item.currency_code + " is listed twice");
                }
            }
            items.push_back(std::move(item));
        }
        patch.supported_currencies = std::move(items);
    }
    return patch;
}

platform_config apply_config_patch(request_context& context, const config_patch& patch) {
    auto updated = update_platform_config(
        context.session(),
        platform_services{context.services.ids, context.services.random, context.services.time},
        context.owner(), patch);
    context.services.configs.invalidate(tenant_key(context.owner()));
    if (!updated) {
        if (updated.error() == platform_error::uma_domain_taken) {
            fail(error_code::uma_domain_exists, "umaDomain is already used by another platform",
                 json::object{{"field", "umaDomain"}});
        }
        fail(error_code::not_found, "platform configuration not found");
    }
    return std::move(updated.value());
}

std::string checked_webhook_endpoint(const std::string& text, environment env,
                                     const service_config& config) {
    auto url = boost::urls::parse_absolute_uri(text);
    if (!url || (url->scheme() != "https" && url->scheme() != "http") || url->host().empty() ||
        url->has_userinfo() || url->has_fragment()) {
        fail_field("webhookEndpoint", "must be an absolute https URL without credentials");
    }
    bool plain_http_allowed =
        env == environment::sandbox || config.outbound_allow_private_addresses;
    if (url->scheme() == "http" && !plain_http_allowed) {
        fail_field("webhookEndpoint", "must use https in production");
    }
    return text;
}

void register_config_routes(router& routes) {
    routes.add({.method = http_method::get, .pattern = versioned("/config"),
                .permission = permission_view, .handler = get_config, .fast = get_config_cached});
    routes.add({.method = http_method::patch, .pattern = versioned("/config"),
                .permission = permission_manage, .handler = patch_config});
}

}  // namespace corridor
