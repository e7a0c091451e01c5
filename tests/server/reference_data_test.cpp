// The reference data of each environment: built-in currencies and UMA providers, the sandbox's
// sample prices and bank details, and a production that has only what the operator configured.
#include "server/process/reference_data.hpp"

#include <catch2/catch.hpp>

#include "ledger/base/clock.hpp"

using namespace corridor;

namespace {

struct fixed_clock final : clock {
    std::int64_t now_ms() const override { return 1'700'000'000'000; }
};

}  // namespace

TEST_CASE("currencies and UMA providers are built in", "[server][reference_data]") {
    service_config config = service_config::defaults("/var/lib/corridor");
    auto currencies = load_currencies(config);
    REQUIRE(currencies.find("USD") != nullptr);
    CHECK(currencies.find("USD")->decimals == 2);
    REQUIRE(currencies.find("BTC") != nullptr);
    CHECK(currencies.find("BTC")->decimals == 8);
    for (const auto& code : config.platform_default_currencies) {
        INFO(code);
        CHECK(currencies.find(code) != nullptr);
    }
    CHECK(load_uma_providers(config, currencies).all().size() >= 5);
}

TEST_CASE("production prices and funds nothing until the operator configures it",
          "[server][reference_data]") {
    service_config config = service_config::defaults("/var/lib/corridor");
    fixed_clock time;
    auto currencies = load_currencies(config);
    const currency& usd = *currencies.find("USD");
    const currency& eur = *currencies.find("EUR");

    auto production = production_rates(config, time);
    CHECK_FALSE(production->configured());
    CHECK_FALSE(production->terms(usd, eur).has_value());
    CHECK(production_funding(config).empty());

    auto sandbox = sandbox_rates(config, time);
    CHECK(sandbox->configured());
    auto terms = sandbox->terms(usd, eur);
    REQUIRE(terms.has_value());
    CHECK(terms->updated_at_ms == time.now_ms());
    auto funding = sandbox_funding(config);
    CHECK(funding.sample());
    CHECK(funding.has("USD"));

    auto warnings = reference_data_warnings(config);
    REQUIRE(warnings.size() == 2);
    CHECK(warnings[0].find("no rates_file") != std::string::npos);
    CHECK(warnings[1].find("no funding_file") != std::string::npos);
}

#ifdef CORRIDOR_SOURCE_DIR
TEST_CASE("the shipped sample files are marked, and production warns when it is given them",
          "[server][reference_data]") {
    const std::string conf = std::string(CORRIDOR_SOURCE_DIR) + "/conf/";
    service_config config = service_config::defaults("/var/lib/corridor");
    config.rates_file = conf + "rates.json";
    config.funding_file = conf + "funding.json";
    auto warnings = reference_data_warnings(config);
    REQUIRE(warnings.size() == 2);
    CHECK(warnings[0].find("is marked sample") != std::string::npos);
    CHECK(warnings[1].find("is marked sample") != std::string::npos);
    fixed_clock time;
    CHECK(production_rates(config, time)->configured());
    CHECK(production_funding(config).sample());
}
#endif
