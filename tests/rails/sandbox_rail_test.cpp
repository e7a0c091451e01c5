// The sandbox rail plugin (plugins/sandbox), loaded through the real loader: the interface's
// failure patterns with the reason codes each real rail would give.
#include <catch2/catch.hpp>
#include <utility>

#include "rails/loader.hpp"

namespace corridor {
namespace {

std::unique_ptr<rail_instance> load_sandbox(std::int64_t timeout_ms = 30000) {
    return load_rail_file(std::string(CORRIDOR_PLUGIN_DIR) + "/sandbox.so", "sandbox", "",
                          R"({"timeout_ms":)" + std::to_string(timeout_ms) + "}", nullptr);
}

rail_operation_input operation(const std::string& type, const std::string& field,
                               const std::string& value,
                               corridor_rail_direction direction = CORRIDOR_RAIL_PAYOUT) {
    static int counter = 0;
    rail_operation_input op;
    op.direction = direction;
    op.operation_id = "RailOperation:" + std::to_string(++counter);
    op.environment = "sandbox";
    op.account_type = type;
    op.account_json = R"({")" + field + R"(":")" + value + R"("})";
    op.currency = "USD";
    op.amount_minor = 1000;
    op.now_ms = 1000000;
    return op;
}

}  // namespace

TEST_CASE("the sandbox settles identifiers without a failure pattern", "[rails][sandbox]") {
    auto rail = load_sandbox();
    for (const auto& value : {"123456789", "000000001", "1002x", "02"}) {
        INFO(value);
        auto started = rail->initiate(operation("US_ACCOUNT", "accountNumber", value));
        REQUIRE(started.ok());
        REQUIRE(started.reports.size() == 1);
        CHECK(started.reports[0].outcome == rail_outcome::settled);
        CHECK_FALSE(started.reports[0].rail_reference.empty());
    }
}

TEST_CASE("the sandbox fails 002, 003 and 004 with each rail's reason code", "[rails][sandbox]") {
    struct expectation {
        std::string type, field, value;
        corridor_rail_direction direction;
        rail_failure failure;
        std::string code, reason;
    };
    const std::vector<expectation> cases = {
        {"US_ACCOUNT", "accountNumber", "9876543002", CORRIDOR_RAIL_PULL,
         rail_failure::insufficient_funds, "R01", ""},
        {"US_ACCOUNT", "accountNumber", "9876543003", CORRIDOR_RAIL_PAYOUT,
         rail_failure::account_invalid, "R03", ""},
        {"US_ACCOUNT", "accountNumber", "9876543004", CORRIDOR_RAIL_PULL, rail_failure::rejected,
         "R10", ""},
        {"US_ACCOUNT", "accountNumber", "9876543004", CORRIDOR_RAIL_PAYOUT, rail_failure::rejected,
         "R23", ""},
        {"PIX", "pixKey", "user002", CORRIDOR_RAIL_PAYOUT, rail_failure::insufficient_funds, "AM04",
         ""},
        {"PIX", "pixKey", "user003", CORRIDOR_RAIL_PAYOUT, rail_failure::account_invalid, "AC03",
         ""},
        {"PIX", "pixKey", "user004", CORRIDOR_RAIL_PAYOUT, rail_failure::rejected, "DS04", ""},
        {"CLABE", "clabeNumber", "002010077777777003", CORRIDOR_RAIL_PAYOUT,
         rail_failure::account_invalid, "01", ""},
        {"CLABE", "clabeNumber", "002010077777777004", CORRIDOR_RAIL_PAYOUT, rail_failure::rejected,
         "02", ""},
        {"IBAN", "iban", "GB82WEST12345698765002", CORRIDOR_RAIL_PAYOUT,
         rail_failure::insufficient_funds, "AM04", ""},
        {"IBAN", "iban", "GB82WEST12345698765003", CORRIDOR_RAIL_PAYOUT,
         rail_failure::account_invalid, "AC04", ""},
        {"SPARK_WALLET", "address", "sparkrt1abc002", CORRIDOR_RAIL_PAYOUT,
         rail_failure::insufficient_funds, "INSUFFICIENT_BALANCE", "LIGHTNING_PAYMENT_FAILED"},
        {"LIGHTNING", "invoice", "lnbcrt1xyz003", CORRIDOR_RAIL_PAYOUT,
         rail_failure::account_invalid, "INCORRECT_PAYMENT_DETAILS", "LIGHTNING_PAYMENT_FAILED"},
        {"SPARK_WALLET", "address", "sparkrt1abc004", CORRIDOR_RAIL_PULL, rail_failure::rejected,
         "RISK_SCREENING_FAILED", ""},
        {"UPI", "vpa", "name002@okbank", CORRIDOR_RAIL_PAYOUT, rail_failure::none, "",
         ""},  // ends in "ank"
        {"UPI", "vpa", "9876543002", CORRIDOR_RAIL_PAYOUT, rail_failure::insufficient_funds,
         "INSUFFICIENT_FUNDS", ""},
    };
    auto rail = load_sandbox();
    for (const auto& c : cases) {
        INFO(c.type << " " << c.value);
        auto started = rail->initiate(operation(c.type, c.field, c.value, c.direction));
        REQUIRE(started.ok());
        REQUIRE(started.reports.size() == 1);
        const auto& report = started.reports[0];
        if (c.failure == rail_failure::none) {
            CHECK(report.outcome == rail_outcome::settled);
            continue;
        }
        CHECK(report.outcome == rail_outcome::failed);
        CHECK(report.failure == c.failure);
        CHECK(report.rail_reason_code == c.code);
        CHECK(report.failure_reason == c.reason);
    }
}

TEST_CASE("the sandbox keeps 005 pending for its timeout, then fails it", "[rails][sandbox]") {
    auto rail = load_sandbox(30000);
    auto pix = operation("PIX", "pixKey", "+5511999990005");
    auto ach = operation("US_ACCOUNT", "accountNumber", "123005");
    for (auto* op : {&pix, &ach}) {
        auto started = rail->initiate(*op);
        REQUIRE(started.reports.size() == 1);
        CHECK(started.reports[0].outcome == rail_outcome::pending);
    }
    CHECK(rail->tick(pix.now_ms + 29999).reports.empty());
    auto ticked = rail->tick(pix.now_ms + 30000);
    REQUIRE(ticked.reports.size() == 2);
    for (const auto& report : ticked.reports) {
        CHECK(report.outcome == rail_outcome::failed);
        CHECK(report.failure == rail_failure::timeout);
        CHECK(report.failure_reason == "TIMEOUT");
        CHECK(report.rail_reason_code ==
              (report.operation_id == pix.operation_id ? "AB03" : "TIMEOUT"));
    }
    CHECK(rail->tick(pix.now_ms + 60000).reports.empty());
}

TEST_CASE("the sandbox validates the primary identifier of each account type", "[rails][sandbox]") {
    auto rail = load_sandbox();
    CHECK(rail->validate_account("CLABE", "MXN", R"({"clabeNumber":"002010077777777771"})").ok());
    CHECK(
        rail->validate_account("LIGHTNING", "BTC", R"({"lightningAddress":"satoshi@example.com"})")
            .ok());
    auto missing = rail->validate_account("CLABE", "MXN", R"({"accountNumber":"1"})");
    CHECK(missing.status == rail_status::invalid_argument);
    CHECK(missing.message == "accountInfo.clabeNumber is required for CLABE");
    auto not_json = rail->validate_account("PIX", "BRL", "not json");
    CHECK(not_json.status == rail_status::invalid_argument);
    CHECK(not_json.message == "accountInfo must be a JSON object");
    CHECK(rail->initiate(operation("IBAN", "bic", "x")).status == rail_status::invalid_argument);
}

TEST_CASE("the sandbox refuses bad settings at load", "[rails][sandbox]") {
    CHECK_THROWS_WITH(load_rail_file(std::string(CORRIDOR_PLUGIN_DIR) + "/sandbox.so", "sandbox",
                                     "", R"({"timeout_ms":"soon"})", nullptr),
                      Catch::Contains("timeout_ms must be a non-negative integer"));
}

TEST_CASE("the sandbox gives funding instructions for every currency it receives",
          "[rails][sandbox]") {
    auto rail = load_sandbox();
    auto usd = rail->funding_instructions({"sandbox", "InternalAccount:x", "USD", "UMA-REF", 0, 1});
    REQUIRE(usd.ok());
    CHECK_THAT(usd.result, Catch::Contains(R"("accountType":"US_ACCOUNT")"));
    CHECK_THAT(usd.result, Catch::Contains(R"("routingNumber":"021000021")"));
    CHECK_THAT(usd.result, Catch::Contains(R"("reference":"UMA-REF")"));
    const std::pair<const char*, const char*> expected[] = {
        {"EUR", R"("iban":"DE89370400440532013000")"},
        {"GBP", R"("sortCode":"040004")"},
        {"MXN", R"("clabeNumber":"002010077777777771")"},
        {"BRL", R"("accountType":"PIX")"},
        {"INR", R"("vpa":"corridor.sandbox@upi")"},
        {"NGN", R"("accountType":"NGN_ACCOUNT")"},
        {"CAD", R"("accountType":"CAD_ACCOUNT")"},
        {"SGD", R"("swiftCode":"DBSSSGSG")"},
        {"PHP", R"("accountType":"PHP_ACCOUNT")"},
        {"BTC", R"("accountType":"SPARK_WALLET")"}};
    for (const auto& [currency, field] : expected) {
        auto answer =
            rail->funding_instructions({"sandbox", "InternalAccount:x", currency, "R-1", 5, 1});
        INFO(currency << ": " << answer.result);
        REQUIRE(answer.ok());
        CHECK_THAT(answer.result, Catch::Contains(field));
        CHECK_THAT(answer.result, Catch::Contains(R"("reference":"R-1")"));
        CHECK_THAT(answer.result, Catch::Contains(R"("isPlatformAccount":true)"));
    }
    CHECK(rail->funding_instructions({"sandbox", "InternalAccount:x", "JPY", "R", 0, 1}).status ==
          rail_status::unsupported);
}

}  // namespace corridor
