// GET /uma-providers: the operator's catalogue of UMA providers (conf/uma-providers.json), each
// with its allow-list status for the calling platform. Filters countryCode, currencyCode,
// hasBlockedProviders (default true: blocked providers are listed too), limit, cursor, sortOrder
// (desc by default: the file's last entries first).
#include <boost/json.hpp>

#include "ledger/base/countries.hpp"
#include "ledger/book/currencies.hpp"
#include "ledger/payments/payment_json.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/platforms/uma_providers.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

int read_limit(const query_params& query) {
    auto limit = query.get("limit");
    if (!limit) return page_limit_default;
    int value = 0;
    bool digits = !limit->empty() && limit->size() <= 3;
    for (char c : *limit) {
        if (c < '0' || c > '9')
            digits = false;
        else
            value = value * 10 + (c - '0');
    }
    if (!digits || value < 1 || value > page_limit_max) {
        fail_field("limit", "must be an integer from 1 to " + std::to_string(page_limit_max));
    }
    return value;
}

json::object render_provider(const uma_provider_entry& entry, const currency_registry& currencies) {
    const uma_provider& provider = *entry.provider;
    json::array regions, supported;
    for (const auto& region : provider.supported_regions) regions.emplace_back(region);
    for (const auto& code : provider.supported_currencies) {
        supported.emplace_back(render_currency(currencies, code));
    }
    json::object out{{"name", provider.name},
                     {"domain", provider.domain},
                     {"supportedRegions", std::move(regions)},
                     {"supportedCurrencies", std::move(supported)},
                     {"allowListStatus", entry.allow_listed}};
    if (provider.logo_url) out["logoUrl"] = *provider.logo_url;
    if (provider.lei) out["lei"] = *provider.lei;
    return out;
}

http_response list_handler(request_context& context) {
    const auto& query = context.query;
    uma_provider_filter filter;
    if (auto country = query.get("countryCode")) {
        if (!is_country_code(*country)) {
            fail_field("countryCode", "must be an ISO 3166-1 alpha-2 code such as US");
        }
        filter.country_code = *country;
    }
    filter.currency_code = query.currency("currencyCode", context.services.currencies);
    if (auto include = query.boolean("hasBlockedProviders")) filter.include_blocked = *include;
    int limit = read_limit(query);
    bool descending = query.one_of("sortOrder", {"asc", "desc"}).value_or("desc") == "desc";
    std::optional<std::string> after;
    if (auto cursor = query.get("cursor")) {
        after = decode_provider_cursor(*cursor);
        if (!after) fail_field("cursor", "is not a cursor this service issued");
    }
    auto found = list_uma_providers(context.services.uma_providers, context.owner().platform_id,
                                    filter, limit, descending, after);
    if (!found) fail_field("cursor", "names a provider that is no longer listed");
    const auto& currencies = context.services.currencies;
    return page_response(*found, [&](const uma_provider_entry& entry) {
        return render_provider(entry, currencies);
    });
}

}  // namespace

void register_uma_provider_routes(router& routes) {
    routes.add({.method = http_method::get,
                .pattern = versioned("/uma-providers"),
                .permission = permission_view,
                .needs_database = true,
                .handler = list_handler});
}

}  // namespace corridor
