// A REALTIME_FUNDING quote asks the funding source once, when it is created, and stores what it
// got: a source that answers differently per call (a Lightning invoice) does not change the quote.
#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include "ledger/customers/customer_store.hpp"
#include "ledger/payments/payment_json.hpp"
#include "ledger/payments/payments.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;
using corridor::testing::store_fixture;

namespace {

constexpr const char* currencies_json = R"({"currencies": [
    {"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2},
    {"code": "EUR", "name": "Euro", "symbol": "E", "decimals": 2}]})";
constexpr const char* rates_json = R"({"base": "USD", "rates": {"USD": "1", "EUR": "1"},
    "pricing": {"spread_bps": 0, "variable_fee_bps": 0, "fixed_fee": {}}})";

// A fresh invoice per call, like the spark rail.
class invoicing_source final : public funding_instruction_source {
public:
    std::vector<funding_instruction_request> asked;
    bool fail = false;
    funding_instruction_answer instructions(const funding_instruction_request& request) override {
        asked.push_back(request);
        funding_instruction_answer answer;
        if (fail) {
            answer.outcome = funding_instruction_answer::kind::failed;
            answer.message = "wallet unavailable";
            return answer;
        }
        answer.outcome = funding_instruction_answer::kind::served;
        answer.instructions = boost::json::array{boost::json::object{
            {"accountOrWalletInfo",
             boost::json::object{{"accountType", "SPARK_WALLET"},
                                 {"invoice", "inv-" + std::to_string(asked.size())}}}}};
        return answer;
    }
};

struct quote_funding_fixture : store_fixture {
    currency_registry currencies = currency_registry::from_json(currencies_json);
    table_rate_source rates{rate_table::from_json(rates_json)};
    funding_directory funding = funding_directory::from_json(
        R"({"USD": {"accountType": "US_ACCOUNT", "accountNumber": "4002718830"}})");
    invoicing_source source;
    platform_config config;
    std::string eur_account;

    quote_funding_fixture() {
        new_platform request{"Funded",
                             "funded.example",
                             false,
                             {{"USD", 1, 1'000'000'000, {"OUTGOING", "INCOMING"}, {}},
                              {"EUR", 1, 1'000'000'000, {"OUTGOING", "INCOMING"}, {}}}};
        auto platform = create_platform(session(), platforms(), request);
        REQUIRE(platform.ok());
        tenant owner{platform.value(), environment::production};
        config = *load_platform_config(session(), owner);
        new_customer customer{std::nullopt, "INDIVIDUAL", "APPROVED", {}, {"USD", "EUR"}};
        auto created = create_customer(session(), customers(), owner, config.uma_domain, customer);
        REQUIRE(created.ok());
        session() << "SELECT id FROM ledger_accounts WHERE owner_id = :c AND currency = 'EUR'",
            soci::use(created.value().id), soci::into(eur_account);
        REQUIRE(!eur_account.empty());
    }
    payment_services services() {
        payment_services s{ids, random, clock, currencies, rates, funding, 60000};
        s.funding_rails = &source;
        return s;
    }
    quote_request funded_by(std::string currency) {
        quote_request request;
        request.source_type = "REALTIME_FUNDING";
        request.source_currency = std::move(currency);
        request.destination_account_id = eur_account;
        request.locked_amount = 5000;
        return request;
    }
};

}  // namespace

TEST_CASE_METHOD(quote_funding_fixture, "a quote keeps the instructions it was created with",
                 "[funding]") {
    auto quote = create_quote(session(), services(), config, funded_by("USD"));
    REQUIRE(quote.ok());
    REQUIRE(source.asked.size() == 1);
    CHECK(source.asked[0].account_id == quote->id);
    CHECK(source.asked[0].currency == "USD");
    CHECK(source.asked[0].reference == quote->funding_reference);
    CHECK(source.asked[0].amount_minor == quote->priced.total_sending);
    CHECK(source.asked[0].owner.env == environment::production);
    auto stored = boost::json::parse(quote->payment_instructions).as_array();
    REQUIRE(stored.size() == 1);
    CHECK(stored[0].at("accountOrWalletInfo").at("invoice") == "inv-1");
    CHECK(stored[0].at("accountOrWalletInfo").at("reference").as_string() ==
          quote->funding_reference);
    for (int read = 0; read < 2; ++read) {
        auto again = find_quote(session(), config.owner, quote->id);
        REQUIRE(again.has_value());
        CHECK(again->payment_instructions == quote->payment_instructions);
        CHECK(render_quote(*again, currencies).at("paymentInstructions") == stored);
    }
    CHECK(source.asked.size() == 1);
}

TEST_CASE_METHOD(quote_funding_fixture,
                 "a quote whose rail fails is refused and nothing is written", "[funding]") {
    source.fail = true;
    auto quote = create_quote(session(), services(), config, funded_by("USD"));
    REQUIRE_FALSE(quote.ok());
    CHECK(quote.error().code == payment_error::no_funding_instructions);
    CHECK_THAT(quote.error().message, Catch::Contains("wallet unavailable"));
    int quotes = -1;
    session() << "SELECT COUNT(*) FROM quotes", soci::into(quotes);
    CHECK(quotes == 0);
}

TEST_CASE_METHOD(quote_funding_fixture,
                 "the expiry sweep takes due quotes oldest expiry first, up to its limit",
                 "[funding][store]") {
    std::vector<std::string> ids;
    std::int64_t start_ms = clock.now_ms();
    for (int i = 0; i < 3; ++i) {
        auto quote = create_quote(session(), services(), config, funded_by("USD"));
        REQUIRE(quote.ok());
        ids.push_back(quote->id);
        clock.advance_ms(10'000);
    }
    auto status_of = [&](const std::string& id) {
        auto quote = find_quote(session(), config.owner, id);
        REQUIRE(quote.has_value());
        return quote->status;
    };
    // The quotes expire 60 s after creation, 10 s apart: at +75 s the first two are due.
    clock.set_ms(start_ms + 75'000);
    CHECK(expire_due_quotes(session(), services(), 1) == 1);
    CHECK(status_of(ids[0]) == "EXPIRED");
    CHECK(status_of(ids[1]) == "PENDING");
    CHECK(expire_due_quotes(session(), services(), 10) == 1);
    CHECK(status_of(ids[1]) == "EXPIRED");
    CHECK(expire_due_quotes(session(), services(), 10) == 0);
    CHECK(status_of(ids[2]) == "PENDING");
}
