// The currency registry read from conf/currencies.json. A bad file must stop start-up with a
// message that says what is wrong, so every error path is driven and its message checked.
#include "ledger/book/currencies.hpp"

#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

using namespace corridor;

namespace {

std::string error_of(const std::string& json_text) {
    try {
        currency_registry::from_json(json_text);
    } catch (const std::runtime_error& error) {
        return error.what();
    }
    return "(no error)";
}

std::string entry(const std::string& code, const std::string& decimals = "2") {
    return R"({"code": ")" + code + R"(", "name": "Name", "symbol": "$", "decimals": )" + decimals +
           "}";
}

std::string document(const std::string& entries) { return R"({"currencies": [)" + entries + "]}"; }

}  // namespace

TEST_CASE("a valid registry keeps order, fields and decimals", "[ledger][currencies]") {
    auto registry = currency_registry::from_json(R"({"currencies": [
        {"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2},
        {"code": "JPY", "name": "Yen", "symbol": "¥", "decimals": 0},
        {"code": "BTC", "name": "Bitcoin", "symbol": "₿", "decimals": 8, "extra": true}
    ]})");
    REQUIRE(registry.all().size() == 3);
    CHECK(registry.all()[0].code == "USD");
    CHECK(registry.all()[2].code == "BTC");
    const currency* yen = registry.find("JPY");
    REQUIRE(yen != nullptr);
    CHECK(yen->name == "Yen");
    CHECK(yen->symbol == "¥");
    CHECK(yen->decimals == 0);
    REQUIRE(registry.find("BTC") != nullptr);
    CHECK(registry.find("BTC")->decimals == 8);
    CHECK(registry.find("EUR") == nullptr);
    CHECK(registry.find("usd") == nullptr);
    CHECK(registry.find("") == nullptr);

    CHECK(currency_registry::from_json(R"({"currencies": []})").all().empty());
}

TEST_CASE("decimals 0 and 18 are the bounds", "[ledger][currencies]") {
    CHECK(currency_registry::from_json(document(entry("AAA", "0"))).find("AAA")->decimals == 0);
    CHECK(currency_registry::from_json(document(entry("AAA", "18"))).find("AAA")->decimals == 18);
}

TEST_CASE("every malformed registry names its problem", "[ledger][currencies]") {
    const std::string shape = "currencies: expected an object with a \"currencies\" array";
    CHECK(error_of("not json") == shape);
    CHECK(error_of("") == shape);
    CHECK(error_of("[]") == shape);
    CHECK(error_of("{}") == shape);
    CHECK(error_of(R"({"currencies": {}})") == shape);
    CHECK(error_of(R"({"currencies": "USD"})") == shape);
    CHECK(error_of(R"({"currencies": []} trailing)") == shape);

    CHECK(error_of(document("1")) == "currencies: every entry must be an object");
    CHECK(error_of(document(entry("USD") + ", []")) == "currencies: every entry must be an object");

    CHECK(error_of(document(R"({"name": "N", "symbol": "$", "decimals": 2})")) ==
          "currencies: entry lacks string \"code\"");
    CHECK(error_of(document(R"({"code": 840, "name": "N", "symbol": "$", "decimals": 2})")) ==
          "currencies: entry lacks string \"code\"");
    CHECK(error_of(document(R"({"code": "USD", "symbol": "$", "decimals": 2})")) ==
          "currencies: entry lacks string \"name\"");
    CHECK(error_of(document(R"({"code": "USD", "name": null, "symbol": "$", "decimals": 2})")) ==
          "currencies: entry lacks string \"name\"");
    CHECK(error_of(document(R"({"code": "USD", "name": "N", "decimals": 2})")) ==
          "currencies: entry lacks string \"symbol\"");

    const std::string decimals = "currencies: USD needs decimals 0 to 18";
    CHECK(error_of(document(R"({"code": "USD", "name": "N", "symbol": "$"})")) == decimals);
    CHECK(error_of(document(entry("USD", "-1"))) == decimals);
    CHECK(error_of(document(entry("USD", "19"))) == decimals);
    CHECK(error_of(document(entry("USD", "2.0"))) == decimals);
    CHECK(error_of(document(entry("USD", "\"2\""))) == decimals);
    CHECK(error_of(document(entry("USD", "18446744073709551615"))) == decimals);

    CHECK(error_of(document(entry("usd"))) == "currencies: bad code \"usd\"");
    CHECK(error_of(document(entry("US"))) == "currencies: bad code \"US\"");
    CHECK(error_of(document(entry("USDT"))) == "currencies: bad code \"USDT\"");
    CHECK(error_of(document(entry("U$D"))) == "currencies: bad code \"U$D\"");

    CHECK(error_of(document(entry("USD") + "," + entry("EUR") + "," + entry("USD", "3"))) ==
          "currencies: USD listed twice");
}

TEST_CASE("load_file names a file it cannot read", "[ledger][currencies]") {
    try {
        currency_registry::load_file("/nonexistent/corridor/currencies.json");
        FAIL("no error");
    } catch (const std::runtime_error& error) {
        CHECK(std::string(error.what()) ==
              "cannot read currencies file /nonexistent/corridor/currencies.json");
    }
}

TEST_CASE("currency code shape: three upper-case ASCII letters", "[ledger][currencies]") {
    CHECK(is_currency_code_shape("USD"));
    CHECK(is_currency_code_shape("BTC"));
    CHECK_FALSE(is_currency_code_shape("usd"));
    CHECK_FALSE(is_currency_code_shape("US"));
    CHECK_FALSE(is_currency_code_shape("USDC"));
    CHECK_FALSE(is_currency_code_shape("US1"));
    CHECK_FALSE(is_currency_code_shape("ÜSD"));
    CHECK_FALSE(is_currency_code_shape(""));
}
