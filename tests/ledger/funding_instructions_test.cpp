#include "ledger/payments/funding_instructions.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <vector>

namespace corridor {
namespace json = boost::json;
namespace {

// Answers what it is told to and records what it was asked.
class fake_source final : public funding_instruction_source {
public:
    funding_instruction_answer next;
    std::vector<funding_instruction_request> asked;
    funding_instruction_answer instructions(const funding_instruction_request& request) override {
        asked.push_back(request);
        return next;
    }
};

funding_directory configured() {
    return funding_directory::from_json(
        R"({"USD": {"accountType": "US_ACCOUNT", "accountNumber": "4002718830", "routingNumber": "021000021"}})");
}

funding_instruction_request request_for(std::string currency,
                                        environment env = environment::production) {
    return {
        tenant{"Platform:1", env}, "InternalAccount:7", std::move(currency), "REF123456", 2500, 99};
}

json::object rail_entry(const char* type) {
    return json::object{
        {"accountOrWalletInfo", json::object{{"accountType", type}, {"address", "w"}}},
        {"instructionsNotes", "from the rail"}};
}

}  // namespace

TEST_CASE("without a rail source the configured details answer", "[funding]") {
    auto found =
        select_funding_instructions(nullptr, configured(), request_for("USD"), "memo REF123456");
    REQUIRE(found.instructions.size() == 1);
    const auto& entry = found.instructions[0].as_object();
    CHECK(entry.at("accountOrWalletInfo").at("accountNumber") == "4002718830");
    CHECK(entry.at("accountOrWalletInfo").at("reference") == "REF123456");
    CHECK(entry.at("instructionsNotes") == "memo REF123456");
    CHECK(entry.at("isPlatformAccount") == true);

    auto none = select_funding_instructions(nullptr, configured(), request_for("EUR"), "memo");
    CHECK(none.instructions.empty());
    CHECK_THAT(none.problem, Catch::Contains("EUR"));
}

TEST_CASE("the rail serving the currency answers before the configuration", "[funding]") {
    fake_source rails;
    rails.next.outcome = funding_instruction_answer::kind::served;
    rails.next.instructions = json::array{rail_entry("SPARK_WALLET"), rail_entry("LIGHTNING")};
    auto found = select_funding_instructions(
        &rails, configured(), request_for("USD", environment::sandbox), "Send exactly 2500");
    REQUIRE(rails.asked.size() == 1);
    CHECK(rails.asked[0].owner.env == environment::sandbox);
    CHECK(rails.asked[0].account_id == "InternalAccount:7");
    CHECK(rails.asked[0].currency == "USD");
    CHECK(rails.asked[0].amount_minor == 2500);
    CHECK(rails.asked[0].now_ms == 99);
    REQUIRE(found.instructions.size() == 2);
    for (const auto& value : found.instructions) {
        const auto& entry = value.as_object();
        // The ledger's reference and notes, whatever the rail said; the rail's notes follow.
        CHECK(entry.at("accountOrWalletInfo").at("reference") == "REF123456");
        CHECK(entry.at("accountOrWalletInfo").at("address") == "w");
        CHECK(entry.at("instructionsNotes") == "Send exactly 2500. from the rail");
        CHECK(entry.at("isPlatformAccount") == true);
    }
    CHECK(found.instructions[0].at("accountOrWalletInfo").at("accountType") == "SPARK_WALLET");
}

TEST_CASE("a currency no rail serves falls back to the configuration", "[funding]") {
    fake_source rails;  // answers not_served
    auto found = select_funding_instructions(&rails, configured(), request_for("USD"), "memo");
    CHECK(rails.asked.size() == 1);
    REQUIRE(found.instructions.size() == 1);
    CHECK(found.instructions[0].at("accountOrWalletInfo").at("routingNumber") == "021000021");

    auto none = select_funding_instructions(&rails, configured(), request_for("JPY"), "memo");
    CHECK(none.instructions.empty());
    CHECK_THAT(none.problem, Catch::Contains("no funding instructions are configured for JPY"));
}

TEST_CASE("a failing rail gives no instructions rather than the configured ones", "[funding]") {
    fake_source rails;
    rails.next.outcome = funding_instruction_answer::kind::failed;
    rails.next.message = "pix: the PSP did not answer";
    auto found = select_funding_instructions(&rails, configured(), request_for("USD"), "memo");
    CHECK(found.instructions.empty());
    CHECK_THAT(found.problem, Catch::Contains("pix: the PSP did not answer"));
}

TEST_CASE("ill-formed rail instructions are refused", "[funding]") {
    fake_source rails;
    rails.next.outcome = funding_instruction_answer::kind::served;
    SECTION("empty") {
        rails.next.instructions = json::array{};
    }
    SECTION("not objects") {
        rails.next.instructions = json::array{1, 2};
    }
    SECTION("no accountType") {
        rails.next.instructions =
            json::array{json::object{{"accountOrWalletInfo", json::object{{"iban", "x"}}}}};
    }
    SECTION("info not an object") {
        rails.next.instructions = json::array{json::object{{"accountOrWalletInfo", "DE89"}}};
    }
    auto found = select_funding_instructions(&rails, configured(), request_for("USD"), "memo");
    CHECK(found.instructions.empty());
    CHECK_THAT(found.problem, Catch::Contains("ill-formed"));
}

TEST_CASE("the configured details are checked when loaded", "[funding]") {
    CHECK_THROWS(funding_directory::from_json("[]"));
    CHECK_THROWS(funding_directory::from_json(R"({"USD": {"iban": "x"}})"));
    CHECK(configured().has("USD"));
    CHECK_FALSE(configured().has("EUR"));
}

}  // namespace corridor
