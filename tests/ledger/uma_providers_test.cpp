// The UMA provider catalogue: what the file may hold, and the pages of GET /uma-providers in both
// orders, with filters, per-platform allow-list status and cursors that resume exactly.
#include "ledger/platforms/uma_providers.hpp"

#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <vector>

using namespace corridor;

namespace {

currency_registry currencies() {
    return currency_registry::from_json(R"({"currencies": [
        {"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2},
        {"code": "MXN", "name": "Mexican Peso", "symbol": "$", "decimals": 2},
        {"code": "BRL", "name": "Brazilian Real", "symbol": "R$", "decimals": 2}]})");
}

const char* catalogue = R"({"providers": [
    {"name": "A", "domain": "a.example", "supportedRegions": ["US"], "supportedCurrencies": ["USD"], "allowListed": true},
    {"name": "B", "domain": "B.Example", "supportedRegions": ["MX", "US"], "supportedCurrencies": ["MXN", "USD"]},
    {"name": "C", "domain": "c.example", "supportedRegions": ["BR"], "supportedCurrencies": ["BRL"], "allowListedPlatforms": ["Platform:p1"]},
    {"name": "D", "domain": "d.example", "supportedRegions": ["US"], "supportedCurrencies": ["USD"], "allowListed": true, "lei": "984500NWWALLET000108"}
]})";

std::vector<std::string> domains(const page<uma_provider_entry>& found) {
    std::vector<std::string> out;
    for (const auto& entry : found.items) out.push_back(entry.provider->domain);
    return out;
}

std::string load_error(const std::string& document) {
    try {
        uma_provider_catalog::from_json(document, currencies());
    } catch (const std::runtime_error& error) {
        return error.what();
    }
    return "";
}

}  // namespace

TEST_CASE("the provider file is read, normalised and checked", "[uma_providers]") {
    auto catalog = uma_provider_catalog::from_json(catalogue, currencies());
    REQUIRE(catalog.all().size() == 4);
    CHECK(catalog.all()[1].domain == "b.example");
    CHECK_FALSE(catalog.all()[1].allow_listed);
    CHECK(catalog.all()[2].allow_listed_for("Platform:p1"));
    CHECK_FALSE(catalog.all()[2].allow_listed_for("Platform:p2"));
    CHECK(catalog.all()[0].allow_listed_for("Platform:p2"));
    CHECK(catalog.all()[3].lei == "984500NWWALLET000108");

    CHECK_THAT(
        load_error(
            R"({"providers": [{"name": "X", "domain": "x.example", "supportedCurrencies": ["EUR"]}]})"),
        Catch::Contains("EUR") && Catch::Contains("entry 0"));
    CHECK_THAT(
        load_error(
            R"({"providers": [{"name": "X", "domain": "x.example", "supportedRegions": ["ZZ"]}]})"),
        Catch::Contains("ZZ"));
    CHECK_THAT(load_error(R"({"providers": [{"name": "X", "domain": "x y"}]})"),
               Catch::Contains("domain"));
    CHECK_THAT(load_error(R"({"providers": [{"name": "", "domain": "x.example"}]})"),
               Catch::Contains("name"));
    CHECK_THAT(
        load_error(
            R"({"providers": [{"name": "X", "domain": "x.example", "allowListed": "yes"}]})"),
        Catch::Contains("allowListed"));
    CHECK_THAT(
        load_error(
            R"({"providers": [{"name": "X", "domain": "x.example"}, {"name": "Y", "domain": "X.EXAMPLE"}]})"),
        Catch::Contains("twice") && Catch::Contains("entry 1"));
    CHECK_THAT(
        load_error(
            R"({"providers": [{"name": "X", "domain": "x.example", "lei": "984500NWWALLET000109"}]})"),
        Catch::Contains("lei"));
    CHECK_THAT(load_error(R"({"providers": {}})"), Catch::Contains("providers"));
    CHECK_THAT(load_error("not json"), Catch::Contains("providers"));
    CHECK(load_error(R"({"providers": []})").empty());
}

TEST_CASE("LEIs carry ISO 7064 MOD 97-10 check digits", "[uma_providers]") {
    CHECK(is_lei("984500NWWALLET000108"));
    CHECK(is_lei("984500EUROREMIT00284"));
    CHECK_FALSE(is_lei("984500NWWALLET000180"));
    CHECK_FALSE(is_lei("984500nwwallet000108"));
    CHECK_FALSE(is_lei("984500NWWALLET00010"));
}

TEST_CASE("provider pages: orders, filters, allow-list status and cursors", "[uma_providers]") {
    auto catalog = uma_provider_catalog::from_json(catalogue, currencies());
    uma_provider_filter all;
    auto desc = list_uma_providers(catalog, "Platform:p1", all, 100, true, std::nullopt);
    REQUIRE(desc);
    CHECK(domains(*desc) ==
          std::vector<std::string>{"d.example", "c.example", "b.example", "a.example"});
    CHECK(desc->total_count == 4);
    CHECK_FALSE(desc->has_more);
    CHECK(desc->items[1].allow_listed);  // c.example, for Platform:p1

    // Walk ascending two at a time.
    auto first = list_uma_providers(catalog, "Platform:p2", all, 2, false, std::nullopt);
    REQUIRE(first);
    CHECK(domains(*first) == std::vector<std::string>{"a.example", "b.example"});
    REQUIRE(first->has_more);
    auto after = decode_provider_cursor(first->next_cursor);
    CHECK(after == "b.example");
    auto second = list_uma_providers(catalog, "Platform:p2", all, 2, false, after);
    REQUIRE(second);
    CHECK(domains(*second) == std::vector<std::string>{"c.example", "d.example"});
    CHECK_FALSE(second->items[0].allow_listed);  // c.example, for Platform:p2
    CHECK_FALSE(second->has_more);
    CHECK(second->total_count == 4);

    // Descending from a cursor.
    auto down = list_uma_providers(catalog, "Platform:p2", all, 10, true, std::string("c.example"));
    CHECK(domains(*down) == std::vector<std::string>{"b.example", "a.example"});

    uma_provider_filter us;
    us.country_code = "US";
    CHECK(domains(*list_uma_providers(catalog, "Platform:p2", us, 10, false, std::nullopt)) ==
          std::vector<std::string>{"a.example", "b.example", "d.example"});
    uma_provider_filter mxn;
    mxn.currency_code = "MXN";
    CHECK(domains(*list_uma_providers(catalog, "Platform:p2", mxn, 10, false, std::nullopt)) ==
          std::vector<std::string>{"b.example"});
    uma_provider_filter allowed;
    allowed.include_blocked = false;
    CHECK(domains(*list_uma_providers(catalog, "Platform:p1", allowed, 10, false, std::nullopt)) ==
          std::vector<std::string>{"a.example", "c.example", "d.example"});
    CHECK(domains(*list_uma_providers(catalog, "Platform:p2", allowed, 10, false, std::nullopt)) ==
          std::vector<std::string>{"a.example", "d.example"});
    // A filtered page resumes after a provider the filter leaves out.
    auto resumed =
        list_uma_providers(catalog, "Platform:p2", allowed, 10, false, std::string("b.example"));
    CHECK(domains(*resumed) == std::vector<std::string>{"d.example"});
    CHECK(resumed->total_count == 2);

    CHECK_FALSE(
        list_uma_providers(catalog, "Platform:p2", all, 10, false, std::string("gone.example")));
    CHECK_FALSE(decode_provider_cursor("garbage!"));
    CHECK(decode_provider_cursor(encode_provider_cursor("x.example")) == "x.example");
}
