// GET /exchange-rates: the platform's corridors at the current (cached) rates, with its fees, and the
// receiving amount for a sending amount.
#include <boost/json.hpp>

#include "ledger/platforms/platform_store.hpp"
#include "ledger/book/pricing.hpp"
#include "ledger/base/time_format.hpp"
#include "ledger/payments/payment_json.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

constexpr std::int64_t sending_amount_default = 10000;

std::int64_t read_sending_amount(const query_params& query) {
    auto text = query.get("sendingAmount");
    if (!text) return sending_amount_default;
    if (text->empty() || text->size() > 16 ||
        !std::all_of(text->begin(), text->end(), [](char c) { return c >= '0' && c <= '9'; })) {
        fail_field("sendingAmount", "must be an integer from 0 to " + std::to_string(amount_max));
    }
    std::int64_t value = std::stoll(*text);
    if (value > amount_max) fail_field("sendingAmount", "must be at most " + std::to_string(amount_max));
    return value;
}

void require_known(const app_services& services, const std::string& code, const std::string& field) {
    if (!services.currencies.find(code)) {
        fail(error_code::invalid_currency, field + ": " + code + " is not a supported currency",
             json::object{{"field", field}});
    }
}

http_response list_exchange_rates(request_context& context) {
    auto& services = context.services;
    auto source_code = context.query.get("sourceCurrency");
    if (source_code) require_known(services, *source_code, "sourceCurrency");
    auto destination_codes = context.query.get_all("destinationCurrency");
    for (const auto& code : destination_codes) require_known(services, code, "destinationCurrency");
    std::int64_t sending_amount = read_sending_amount(context.query);
    auto config = load_platform_config(context.session(), context.owner());
    if (!config) fail(error_code::not_found, "platform configuration not found");

    json::array data;
    for (const auto& source : config->supported_currencies) {
        if (source_code && source.currency_code != *source_code) continue;
        if (!enabled_for(source, "OUTGOING")) continue;
        for (const auto& destination : config->supported_currencies) {
            if (destination.currency_code == source.currency_code || !enabled_for(destination, "INCOMING")) continue;
            if (!destination_codes.empty() &&
                std::find(destination_codes.begin(), destination_codes.end(), destination.currency_code) ==
                    destination_codes.end()) {
                continue;
            }
            const currency* sending = services.currencies.find(source.currency_code);
            const currency* receiving = services.currencies.find(destination.currency_code);
            if (!sending || !receiving) continue;
            auto terms = services.rates_for(context.owner().env).terms(*sending, *receiving);
            if (!terms) continue;
            std::int64_t receiving_amount = 0;
            rational rate = rational::integer(1) / (terms->mid_rate * rational(10000 - terms->spread_bps, 10000));
            if (sending_amount > 0) {
                auto priced = price_transfer(*sending, *receiving, *terms, locked_side::sending, sending_amount);
                if (priced) receiving_amount = priced->total_receiving;
            }
            data.push_back(json::object{
                {"sourceCurrency", render_currency(services.currencies, source.currency_code)},
                {"destinationCurrency", render_currency(services.currencies, destination.currency_code)},
                {"destinationPaymentRail", terms->destination_payment_rail},
                {"sendingAmount", sending_amount},
                {"minSendingAmount", source.min_amount},
                {"maxSendingAmount", source.max_amount},
                {"receivingAmount", receiving_amount},
                {"exchangeRate", rate.to_double()},
                {"fees", json::object{{"fixed", terms->service_fixed_fee + terms->counterparty_fixed_fee}}},
                {"updatedAt", format_timestamp_ms(terms->updated_at_ms)}});
        }
    }
    return json_response(200, json::object{{"data", std::move(data)}});
}

}  // namespace

void register_exchange_rate_routes(router& routes) {
    routes.add({.method = http_method::get, .pattern = versioned("/exchange-rates"),
                .permission = permission_view, .handler = list_exchange_rates});
}

}  // namespace corridor
