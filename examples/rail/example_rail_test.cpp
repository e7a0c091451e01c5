// Unit test of the example rail, linked with its source and driven through the SDK's test host:
// a payout settles on host time, a retry after a restart is the same payout, and the sandbox
// failure endings fail it. Exits non-zero on the first failed check.
#include <unistd.h>

#include <corridor/rail_sdk.hpp>
#include <corridor/rail_sdk/test_host.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

extern "C" int32_t corridor_rail_entry(const corridor_rail_host_api*, const corridor_rail_plugin**);

namespace {

int failures = 0;
void check(bool ok, const std::string& what) {
    std::cout << (ok ? "ok   " : "FAIL ") << what << std::endl;
    if (!ok) ++failures;
}

}  // namespace

int main() {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / ("example-rail-test-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::string settings = R"({"settle_after_ms":500,"data_dir":")" + dir.string() + "\"}";
    const std::string account =
        R"({"accountType":"US_ACCOUNT","accountNumber":"123456789","routingNumber":"021000021"})";

    corridor::rail_sdk::test_host host(corridor_rail_entry);
    check(host.create(settings).ok(), "create with settle_after_ms and data_dir");
    check(!host.create(R"({"settle_after_ms":"soon","data_dir":"x"})").ok(),
          "create refuses a bad settle_after_ms");
    check(host.create(settings).ok(), "create again");
    check(host.validate_account("US_ACCOUNT", "USD", account).ok(), "a valid account");
    auto bad = host.validate_account("US_ACCOUNT", "USD", R"({"accountNumber":"12"})");
    check(bad.status == CORRIDOR_RAIL_INVALID_ARGUMENT &&
              bad.message == "accountNumber must be 4 to 17 digits",
          "an invalid account names the field");

    corridor::rail_sdk::test_host::operation_input op;
    op.operation_id = "RailOperation:1";
    op.account_type = "US_ACCOUNT";
    op.account_json = account;
    op.now_ms = 1000;
    auto started = host.initiate(op);
    check(started.ok() && started.reports.size() == 1 &&
              started.reports[0].outcome == CORRIDOR_RAIL_OUTCOME_PENDING,
          "a payout is accepted PENDING");
    std::string reference = started.reports.empty() ? "" : started.reports[0].rail_reference;
    check(host.tick(1400).reports.empty(), "nothing before settle_after_ms");
    auto settled = host.tick(1500);
    check(
        settled.reports.size() == 1 && settled.reports[0].outcome == CORRIDOR_RAIL_OUTCOME_SETTLED,
        "SETTLED once settle_after_ms passed on host time");
    check(host.tick(5000).reports.empty(), "reported once");

    // A restart: a new instance on the same data_dir knows the payout.
    check(host.create(settings).ok(), "restart");
    auto retried = host.initiate(op);
    check(retried.ok() && retried.reports.size() == 1 &&
              retried.reports[0].outcome == CORRIDOR_RAIL_OUTCOME_SETTLED &&
              retried.reports[0].rail_reference == reference,
          "initiated again after the restart: the same payout, not a second one");

    auto failing = op;
    failing.operation_id = "RailOperation:2";
    failing.account_json =
        R"({"accountType":"US_ACCOUNT","accountNumber":"100000002","routingNumber":"021000021"})";
    host.initiate(failing);
    auto failed = host.tick(10000);
    check(failed.reports.size() == 1 && failed.reports[0].outcome == CORRIDOR_RAIL_OUTCOME_FAILED &&
              failed.reports[0].failure == CORRIDOR_RAIL_FAILURE_INSUFFICIENT_FUNDS &&
              failed.reports[0].rail_reason_code == "R01",
          "an account ending in 002 fails with insufficient funds (R01)");
    host.destroy();
    fs::remove_all(dir);
    return failures == 0 ? 0 : 1;
}
