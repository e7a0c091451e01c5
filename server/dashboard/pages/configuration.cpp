// Configuration: the environment's currencies with their limits, transaction types and required
// counterparty fields, and the UMA domain. Everyone sees them; an admin changes them through the
// form, which is turned into the body PATCH /config takes and read by the same reader, so that the
// page refuses exactly what the API refuses, naming the same field.
#include <algorithm>
#include <boost/json.hpp>
#include <charconv>

#include "ledger/platforms/platform_store.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"
#include "server/api/handler_steps.hpp"
#include "server/api/html.hpp"
#include "server/dashboard/layout.hpp"
#include "server/dashboard/pages/page_kit.hpp"
#include "server/dashboard/pages/pages.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

platform_config current_config(request_context& context, const tenant& owner) {
    auto config = load_platform_config(context.session(), owner);
    if (!config) fail(error_code::not_found, "platform configuration not found");
    return std::move(*config);
}

std::string field_requirement(const supported_currency& item, std::string_view name) {
    for (const auto& field : item.required_counterparty_fields) {
        if (field.name == name) return field.mandatory ? "mandatory" : "optional";
    }
    return "";
}

bool enabled(const supported_currency& item, std::string_view type) {
    const auto& types = item.enabled_transaction_types;
    return std::find(types.begin(), types.end(), type) != types.end();
}

std::string checkbox(std::string_view name, std::string_view label, bool checked) {
    std::string id = "f-" + std::string(name);
    return "<div class=\"check\"><input type=\"checkbox\" id=\"" + html_escape(id) + "\" name=\"" +
           html_escape(name) + "\" value=\"1\"" + (checked ? " checked" : "") + "><label for=\"" +
           html_escape(id) + "\">" + html_escape(label) + "</label></div>";
}

// One currency's controls, named "<prefix>.<what>".
std::string currency_fieldset(const std::string& prefix, const std::string& legend,
                              const supported_currency& item, bool is_new,
                              const currency_registry& currencies,
                              const std::vector<std::string>& addable) {
    std::string out = "<fieldset><legend>" + html_escape(legend) + "</legend>";
    if (is_new) {
        std::vector<std::pair<std::string, std::string>> options;
        for (const auto& code : addable) options.emplace_back(code, code);
        out += select_field(prefix + ".code", "Currency to add", options, "", "None");
    } else {
        out += "<input type=\"hidden\" name=\"" + html_escape(prefix) + ".code\" value=\"" +
               html_escape(item.currency_code) + "\">";
        out += checkbox(prefix + ".keep", "Supported (clear to remove " + item.currency_code + ")",
                        true);
    }
    const currency* known = currencies.find(item.currency_code);
    std::string hint = known ? "in minor units (" + std::to_string(known->decimals) + " decimals)"
                             : "in minor units";
    out += text_field(prefix + ".min", "Minimum amount",
                      is_new ? "" : std::to_string(item.min_amount), "text", hint);
    out += text_field(prefix + ".max", "Maximum amount",
                      is_new ? "" : std::to_string(item.max_amount), "text", hint);
    out += checkbox(prefix + ".incoming", "Incoming payments", is_new || enabled(item, "INCOMING"));
    out += checkbox(prefix + ".outgoing", "Outgoing payments", is_new || enabled(item, "OUTGOING"));
    out += "<fieldset><legend>Counterparty information required</legend>";
    for (auto name : counterparty_field_names()) {
        out += select_field(prefix + ".field." + std::string(name), std::string(name),
                            {{"optional", "Requested"}, {"mandatory", "Mandatory"}},
                            field_requirement(item, name), "Not asked");
    }
    return out + "</fieldset></fieldset>";
}

std::string config_form(const dashboard_session& who, const platform_config& config,
                        const currency_registry& currencies) {
    std::string out =
        "<form method=\"post\" action=\"/dashboard/configuration\">" + csrf_input(who);
    out += text_field("umaDomain", "UMA domain", config.uma_domain, "text",
                      "a DNS name or an IP literal, optionally with :port");
    std::vector<std::string> addable;
    for (const auto& item : currencies.all()) {
        if (!find_supported_currency(config, item.code)) addable.push_back(item.code);
    }
    for (std::size_t i = 0; i < config.supported_currencies.size(); ++i) {
        const auto& item = config.supported_currencies[i];
        out += currency_fieldset("currency" + std::to_string(i), item.currency_code, item, false,
                                 currencies, addable);
    }
    if (!addable.empty()) {
        out += currency_fieldset("new", "Add a currency", supported_currency{}, true, currencies,
                                 addable);
    }
    return out + submit_button("Save configuration") + "</form>";
}

std::string config_summary(const platform_config& config, const currency_registry& currencies) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& item : config.supported_currencies) {
        std::string types;
        for (const auto& type : item.enabled_transaction_types)
            types += (types.empty() ? "" : ", ") + type;
        std::string fields;
        for (const auto& field : item.required_counterparty_fields) {
            fields +=
                (fields.empty() ? "" : ", ") + field.name + (field.mandatory ? " (mandatory)" : "");
        }
        rows.push_back({html_escape(item.currency_code),
                        html_escape(format_money(item.min_amount, item.currency_code, currencies)),
                        html_escape(format_money(item.max_amount, item.currency_code, currencies)),
                        html_escape(types), html_escape(fields)});
    }
    return details_html({{"UMA domain", code_html(config.uma_domain)},
                         {"Proxy UMA subdomain", code_html(config.proxy_uma_subdomain)},
                         {"Regulated financial institution",
                          config.is_regulated ? std::string("yes") : std::string("no")},
                         {"Updated", html_escape(format_time(config.updated_at_ms))}}) +
           table_html("Supported currencies",
                      {{"Currency"},
                       {"Minimum", true},
                       {"Maximum", true},
                       {"Transaction types"},
                       {"Counterparty fields"}},
                      rows, "No currency is supported.");
}

http_response render_configuration(request_context& context, const dashboard_session& who,
                                   std::string_view notice = {}) {
    auto config = current_config(context, who.owner());
    const auto& currencies = context.services.currencies;
    std::string body;
    if (!notice.empty()) body += notice_html(notice);
    body += config_summary(config, currencies);
    if (who.can(dashboard_role::admin)) {
        body += section_html("Change the configuration", config_form(who, config, currencies));
    } else {
        body += "<p>Only an admin can change the configuration.</p>";
    }
    return render_page(who, "Configuration", body);
}

http_response configuration_page(request_context& context) {
    return run_page(context, dashboard_role::viewer, [&](const dashboard_session& who) {
        bool saved = filter_query(context.request.target).get("saved").has_value();
        return render_configuration(context, who, saved ? "The configuration is saved." : "");
    });
}

// A form amount as JSON: an integer when it reads as one, else the text, which the API's reader
// refuses naming the field.
json::value amount_value(const std::string& text) {
    std::int64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc() && end == text.data() + text.size() && !text.empty()) return value;
    return json::value(text);
}

// What the form says of one currency, in the order the stored entry lists its transaction types
// and counterparty fields (an unchanged currency reads back as it was), new ones after.
json::object currency_entry(const form_fields& form, const std::string& prefix,
                            const std::string& code, const supported_currency* stored) {
    std::vector<std::string> type_order;
    if (stored) type_order = stored->enabled_transaction_types;
    for (const char* type : {"OUTGOING", "INCOMING"}) {
        if (std::find(type_order.begin(), type_order.end(), type) == type_order.end()) {
            type_order.emplace_back(type);
        }
    }
    json::array types;
    for (const auto& type : type_order) {
        std::string box = type == "INCOMING" ? ".incoming" : ".outgoing";
        if (!form_value(form, prefix + box).empty()) types.push_back(json::value(type));
    }
    std::vector<std::string> field_order;
    if (stored) {
        for (const auto& field : stored->required_counterparty_fields)
            field_order.push_back(field.name);
    }
    for (auto name : counterparty_field_names()) {
        if (std::find(field_order.begin(), field_order.end(), name) == field_order.end()) {
            field_order.emplace_back(name);
        }
    }
    json::array fields;
    for (const auto& name : field_order) {
        auto requirement = form_value(form, prefix + ".field." + name);
        if (requirement.empty()) continue;
        fields.push_back(json::object{{"name", name}, {"mandatory", requirement == "mandatory"}});
    }
    return json::object{{"currencyCode", code},
                        {"minAmount", amount_value(form_value(form, prefix + ".min"))},
                        {"maxAmount", amount_value(form_value(form, prefix + ".max"))},
                        {"enabledTransactionTypes", std::move(types)},
                        {"requiredCounterpartyFields", std::move(fields)}};
}

// The PATCH /config body the form stands for: umaDomain and the whole supportedCurrencies list.
json::object patch_body(const form_fields& form, const platform_config& before) {
    json::array currencies;
    for (std::size_t i = 0; i < before.supported_currencies.size(); ++i) {
        std::string prefix = "currency" + std::to_string(i);
        auto code = form_value(form, prefix + ".code");
        if (code.empty() || form_value(form, prefix + ".keep").empty()) continue;
        currencies.push_back(
            currency_entry(form, prefix, code, find_supported_currency(before, code)));
    }
    if (auto code = form_value(form, "new.code"); !code.empty()) {
        currencies.push_back(currency_entry(form, "new", code, nullptr));
    }
    return json::object{{"umaDomain", form_value(form, "umaDomain")},
                        {"supportedCurrencies", std::move(currencies)}};
}

http_response save_configuration(request_context& context) {
    return run_form_post(
        context, dashboard_role::admin, [&](const dashboard_session& who, const form_fields& form) {
            auto before = current_config(context, who.owner());
            auto body = patch_body(form, before);
            try {
                auto patch = read_config_patch(body, context);
                apply_config_patch(context, patch);
            } catch (const api_error& error) {
                return error_page(
                    who, "Configuration", error,
                    section_html("Change the configuration",
                                 config_form(who, before, context.services.currencies)));
            }
            record_dashboard_action(context, who, "configuration.update", json::serialize(body));
            return redirect_after_post("/dashboard/configuration?saved=1");
        });
}

}  // namespace

void register_dashboard_configuration_pages(router& routes) {
    routes.add({.method = http_method::get,
                .pattern = "/dashboard/configuration",
                .who = access::public_route,
                .handler = configuration_page});
    // As PATCH /config: not on the ledger writer.
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/configuration",
                .who = access::public_route,
                .handler = save_configuration});
}

}  // namespace corridor
