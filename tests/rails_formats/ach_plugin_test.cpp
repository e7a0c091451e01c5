// The ach.so plugin loaded through the ABI: validation, funding instructions, payouts and pulls
// written to the outbox at the window's cut-off, settlement, and returns read from the inbox.
#include <algorithm>
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "plugins/ach/nacha_reader.hpp"
#include "tests/rails_formats/plugin_host.hpp"

namespace fs = std::filesystem;
using corridor::plugin_test::plugin_host;

namespace {

// 2026-03-10 (Tuesday) 14:00 UTC = 10:00 EDT, before the 10:30 deadline of window 1.
constexpr std::int64_t morning_ms = 1773151200000;
constexpr std::int64_t deadline_ms = 1773153000000;    // 14:30 UTC
constexpr std::int64_t settlement_ms = 1773162000000;  // 17:00 UTC

fs::path fresh_dir(const std::string& name) {
    fs::path dir = fs::temp_directory_path() /
                   ("corridor-ach-plugin-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::string config_for(const fs::path& dir) {
    boost::json::object config{{"odfi_routing", "121042882"},
                               {"company_id", "1234567890"},
                               {"company_name", "CORRIDOR"},
                               {"immediate_destination", "231380104"},
                               {"destination_name", "CITADEL"},
                               {"data_dir", dir.string()},
                               {"outbox_dir", (dir / "outbox").string()},
                               {"inbox_dir", (dir / "inbox").string()},
                               {"funding_account_number", "9876543210"},
                               {"funding_routing_number", "021000021"},
                               {"funding_bank_name", "Corridor Bank"}};
    return boost::json::serialize(config);
}

const std::string checking_account =
    R"({"accountType":"US_ACCOUNT","accountNumber":"12345678","routingNumber":"231380104",)"
    R"("accountCategory":"CHECKING","beneficiary":{"beneficiaryType":"INDIVIDUAL","fullName":"Jos\u00e9 Silva"}})";
const std::string savings_account =
    R"({"accountType":"US_ACCOUNT","accountNumber":"555-0001","routingNumber":"021000021",)"
    R"("accountCategory":"SAVINGS"})";

std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string left(std::string text, std::size_t width) {
    text.resize(width, ' ');
    return text;
}

std::string digits(std::uint64_t value, std::size_t width) {
    std::string text = std::to_string(value);
    return std::string(width - text.size(), '0') + text;
}

// A return file as the receiving bank would send it: one returned entry (code 21 = return of our
// 22 credit) with its addenda 99 naming our trace number.
std::string return_file(const std::string& original_trace, const std::string& code,
                        std::uint64_t amount) {
    const std::string return_trace = "231380100000001";
    std::vector<std::string> lines{
        "101 121042882 2313801042603111200A094101" + left("CORRIDOR", 23) + left("CITADEL", 23) +
            left("", 8),
        "5200" + left("CORRIDOR", 16) + left("", 20) + "1234567890PPD" + left("PAYOUT", 10) +
            left("", 6) + "260311   123138010" + digits(1, 7),
        "621121042882" + left("12345678", 17) + digits(amount, 10) + left("", 15) +
            left("JOSE SILVA", 22) + "  1" + return_trace,
        "799" + code + original_trace + left("", 6) + "23138010" + left("", 44) + return_trace,
        "8200" + digits(2, 6) + digits(12104288, 10) + digits(0, 12) + digits(amount, 12) +
            "1234567890" + left("", 25) + "23138010" + digits(1, 7),
        "9" + digits(1, 6) + digits(1, 6) + digits(2, 8) + digits(12104288, 10) + digits(0, 12) +
            digits(amount, 12) + left("", 39),
    };
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    for (std::size_t i = lines.size(); i < 10; ++i) text += std::string(94, '9') + "\n";
    return text;
}

}  // namespace

TEST_CASE("ach plugin: table, config and account validation", "[plugins][ach]") {
    plugin_host host(CORRIDOR_ACH_PLUGIN);
    CHECK(std::string(host.table().name.ptr, host.table().name.length) == "ach");
    REQUIRE(host.table().account_type_count == 1);
    CHECK(host.table().tick_interval_ms > 0);

    auto refused = host.create(R"({"odfi_routing":"123456789"})");
    CHECK(refused.status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(refused.error.find("odfi_routing") != std::string::npos);
    CHECK(host.create("not json").status == CORRIDOR_RAIL_INVALID_ARGUMENT);

    fs::path dir = fresh_dir("validate");
    REQUIRE(host.create(config_for(dir)).status == CORRIDOR_RAIL_OK);
    auto ok = host.validate("US_ACCOUNT", "USD", checking_account);
    CHECK(ok.status == CORRIDOR_RAIL_OK);
    auto normalised = boost::json::parse(ok.result).as_object();
    CHECK(normalised["routingNumber"] == "231380104");
    CHECK(normalised["accountCategory"] == "CHECKING");

    auto bad_routing = host.validate(
        "US_ACCOUNT", "USD",
        R"({"accountNumber":"12345678","routingNumber":"231380105","accountCategory":"CHECKING"})");
    CHECK(bad_routing.status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(bad_routing.error.find("routingNumber") != std::string::npos);
    auto missing = host.validate("US_ACCOUNT", "USD", R"({"routingNumber":"231380104"})");
    CHECK(missing.status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(missing.error.find("accountNumber") != std::string::npos);
    CHECK(host.validate("US_ACCOUNT", "USD",
                        R"({"accountNumber":"1","routingNumber":"231380104",)"
                        R"("accountCategory":"BROKERAGE"})")
              .status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(host.validate("US_ACCOUNT", "USD", "[]").status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(host.validate("PIX", "BRL", "{}").status == CORRIDOR_RAIL_UNSUPPORTED);
    CHECK(host.validate("US_ACCOUNT", "EUR", checking_account).status == CORRIDOR_RAIL_UNSUPPORTED);
    fs::remove_all(dir);
}

TEST_CASE("ach plugin: funding instructions name the bank account and reference",
          "[plugins][ach]") {
    plugin_host host(CORRIDOR_ACH_PLUGIN);
    fs::path dir = fresh_dir("funding");
    REQUIRE(host.create(config_for(dir)).status == CORRIDOR_RAIL_OK);
    auto result = host.funding("USD", 10'000, morning_ms, "REF-42");
    REQUIRE(result.status == CORRIDOR_RAIL_OK);
    auto array = boost::json::parse(result.result).as_array();
    REQUIRE(array.size() == 1);
    auto info = array[0].as_object()["accountOrWalletInfo"].as_object();
    CHECK(info["accountType"] == "US_ACCOUNT");
    CHECK(info["accountNumber"] == "9876543210");
    CHECK(info["routingNumber"] == "021000021");
    CHECK(info["bankName"] == "Corridor Bank");
    CHECK(info["referenceCode"] == "REF-42");
    CHECK(host.funding("EUR", 1, morning_ms, "x").status == CORRIDOR_RAIL_UNSUPPORTED);
    fs::remove_all(dir);
}

TEST_CASE("ach plugin: payouts and pulls go out in the window's file, settle, and come back",
          "[plugins][ach]") {
    plugin_host host(CORRIDOR_ACH_PLUGIN);
    fs::path dir = fresh_dir("flow");
    REQUIRE(host.create(config_for(dir)).status == CORRIDOR_RAIL_OK);

    CHECK(host.initiate("op-payout", CORRIDOR_RAIL_PAYOUT, "US_ACCOUNT", checking_account, "USD",
                        12'345, morning_ms, "Transaction:payout-1")
              .status == CORRIDOR_RAIL_OK);
    CHECK(host.initiate("op-pull", CORRIDOR_RAIL_PULL, "US_ACCOUNT", savings_account, "USD", 500,
                        morning_ms + 60'000)
              .status == CORRIDOR_RAIL_OK);
    // A repeated id is a retry: accepted, nothing new queued.
    CHECK(host.initiate("op-payout", CORRIDOR_RAIL_PAYOUT, "US_ACCOUNT", checking_account, "USD",
                        12'345, morning_ms)
              .status == CORRIDOR_RAIL_OK);
    auto declined = host.initiate("op-big", CORRIDOR_RAIL_PAYOUT, "US_ACCOUNT", checking_account,
                                  "USD", 100'000'001, morning_ms);
    CHECK(declined.status == CORRIDOR_RAIL_DECLINED);
    CHECK(host.initiate("op-bad", CORRIDOR_RAIL_PAYOUT, "US_ACCOUNT", R"({"accountNumber":"1"})",
                        "USD", 1, morning_ms)
              .status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(host.initiate("op-eur", CORRIDOR_RAIL_PAYOUT, "US_ACCOUNT", checking_account, "EUR", 1,
                        morning_ms)
              .status == CORRIDOR_RAIL_UNSUPPORTED);
    CHECK(host.reports_of("op-big").empty());
    REQUIRE(host.reports_of("op-payout").size() == 2);
    CHECK(host.reports_of("op-payout")[0].outcome == CORRIDOR_RAIL_OUTCOME_PENDING);

    // Before the deadline nothing is written.
    REQUIRE(host.tick(deadline_ms).status == CORRIDOR_RAIL_OK);
    CHECK(fs::is_empty(dir / "outbox"));

    REQUIRE(host.tick(deadline_ms + 1).status == CORRIDOR_RAIL_OK);
    fs::path file = dir / "outbox" / "20260310-w1.ach";
    REQUIRE(fs::exists(file));
    std::string text = read(file);
    auto parsed = corridor::ach::parse_nacha(text);
    REQUIRE(parsed.ok());
    auto verdict = corridor::ach::check_nacha(parsed.value());
    if (!verdict) FAIL(verdict.error().message);
    REQUIRE(parsed->batches.size() == 2);
    const auto& credit = parsed->batches[0].entries.at(0);
    CHECK(credit.transaction_code == 22);
    CHECK(credit.amount_cents == 12'345);
    CHECK(credit.individual_name == "Jos Silva");
    CHECK(credit.individual_id == "action:payout-1");  // the last 15 characters
    const auto& debit = parsed->batches[1].entries.at(0);
    CHECK(debit.transaction_code == 37);
    CHECK(debit.account_number == "555-0001");
    CHECK(parsed->batches[0].sec_code == "PPD");

    auto payout_reports = host.reports_of("op-payout");
    REQUIRE(payout_reports.size() == 3);
    CHECK(payout_reports[2].outcome == CORRIDOR_RAIL_OUTCOME_PENDING);
    CHECK(payout_reports[2].rail_reference == credit.trace_number);

    REQUIRE(host.tick(settlement_ms).status == CORRIDOR_RAIL_OK);
    CHECK(host.reports_of("op-payout").back().outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);
    CHECK(host.reports_of("op-pull").back().outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);

    // The bank returns the payout as R02 (account closed).
    {
        std::ofstream out(dir / "inbox" / "return-0001.ach", std::ios::binary);
        out << return_file(credit.trace_number, "R02", 12'345);
    }
    {
        std::ofstream out(dir / "inbox" / "garbage.ach", std::ios::binary);
        out << "not a NACHA file\n";
    }
    REQUIRE(host.tick(settlement_ms + 1000).status == CORRIDOR_RAIL_OK);
    auto last = host.reports_of("op-payout").back();
    CHECK(last.outcome == CORRIDOR_RAIL_OUTCOME_RETURNED);
    CHECK(last.failure == CORRIDOR_RAIL_FAILURE_ACCOUNT_INVALID);
    CHECK(last.rail_reason_code == "R02");
    CHECK(last.failure_reason == "COUNTERPARTY_POST_TX_FAILED");
    CHECK(last.message == "Account closed");
    CHECK(fs::exists(dir / "inbox" / "processed" / "return-0001.ach"));
    CHECK(fs::exists(dir / "inbox" / "rejected" / "garbage.ach"));
    CHECK(host.reports_of("op-pull").back().outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);
    fs::remove_all(dir);
}

TEST_CASE("ach plugin: a restart within a window never overwrites the window's file",
          "[plugins][ach]") {
    fs::path dir = fresh_dir("restart");
    for (int run = 0; run < 2; ++run) {
        plugin_host host(CORRIDOR_ACH_PLUGIN);
        REQUIRE(host.create(config_for(dir)).status == CORRIDOR_RAIL_OK);
        REQUIRE(host.initiate("op-" + std::to_string(run), CORRIDOR_RAIL_PAYOUT, "US_ACCOUNT",
                              checking_account, "USD", 100 + run, morning_ms)
                    .status == CORRIDOR_RAIL_OK);
        REQUIRE(host.tick(deadline_ms + 1).status == CORRIDOR_RAIL_OK);
    }
    auto first = corridor::ach::parse_nacha(read(dir / "outbox" / "20260310-w1.ach"));
    auto second = corridor::ach::parse_nacha(read(dir / "outbox" / "20260310-w1-B.ach"));
    REQUIRE(first.ok());
    REQUIRE(second.ok());
    CHECK(first->file_id_modifier == 'A');
    CHECK(second->file_id_modifier == 'B');
    CHECK(first->batches.at(0).entries.at(0).amount_cents == 100);
    CHECK(second->batches.at(0).entries.at(0).amount_cents == 101);
    fs::remove_all(dir);
}

namespace {

// Every origination file in the outbox (names ending .ach), parsed.
std::map<std::string, corridor::ach::nacha_file> outbox_files(const fs::path& dir) {
    std::map<std::string, corridor::ach::nacha_file> out;
    for (const auto& item : fs::directory_iterator(dir / "outbox")) {
        if (item.path().extension() != ".ach") continue;
        auto parsed = corridor::ach::parse_nacha(read(item.path()));
        REQUIRE(parsed.ok());
        out.emplace(item.path().filename().string(), parsed.value());
    }
    return out;
}

// How many entries of every file in the outbox carry each amount (each test gives every
// operation its own amount).
std::map<std::uint64_t, int> entries_by_amount(const fs::path& dir) {
    std::map<std::uint64_t, int> out;
    for (const auto& [name, file] : outbox_files(dir))
        for (const auto& batch : file.batches)
            for (const auto& entry : batch.entries) out[entry.amount_cents] += 1;
    return out;
}

std::vector<std::string> names_in(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& item : fs::directory_iterator(dir)) out.push_back(item.path().filename());
    std::sort(out.begin(), out.end());
    return out;
}

corridor::plugin_test::hook_result pay(plugin_host& host, const std::string& id,
                                       std::int64_t amount, std::int64_t now_ms = morning_ms) {
    return host.initiate(id, CORRIDOR_RAIL_PAYOUT, "US_ACCOUNT", checking_account, "USD", amount,
                         now_ms);
}

}  // namespace

TEST_CASE("ach plugin: the spool survives a restart and each entry goes in exactly one file",
          "[plugins][ach]") {
    fs::path dir = fresh_dir("spool");
    {
        plugin_host first(CORRIDOR_ACH_PLUGIN);
        REQUIRE(first.create(config_for(dir)).status == CORRIDOR_RAIL_OK);
        REQUIRE(pay(first, "op-a", 101).status == CORRIDOR_RAIL_OK);
    }  // the process is gone before the cut-off: nothing was written yet
    CHECK(names_in(dir / "outbox").empty());
    {
        plugin_host second(CORRIDOR_ACH_PLUGIN);
        REQUIRE(second.create(config_for(dir)).status == CORRIDOR_RAIL_OK);
        // The host initiates op-a again after its restart: a retry, answered from the spool.
        REQUIRE(pay(second, "op-a", 101, morning_ms + 60'000).status == CORRIDOR_RAIL_OK);
        REQUIRE(second.reports_of("op-a").size() == 1);
        CHECK(second.reports_of("op-a")[0].outcome == CORRIDOR_RAIL_OUTCOME_PENDING);
        CHECK(second.reports_of("op-a")[0].message == "queued for ACH window 20260310-w1");
        REQUIRE(pay(second, "op-b", 102).status == CORRIDOR_RAIL_OK);
        REQUIRE(second.tick(deadline_ms + 1).status == CORRIDOR_RAIL_OK);
        CHECK(names_in(dir / "outbox") == std::vector<std::string>{"20260310-w1.ach"});
        CHECK(entries_by_amount(dir) == std::map<std::uint64_t, int>{{101, 1}, {102, 1}});
    }
    plugin_host third(CORRIDOR_ACH_PLUGIN);
    REQUIRE(third.create(config_for(dir)).status == CORRIDOR_RAIL_OK);
    // Sent before the restart: the retry names the file and the trace, and queues nothing.
    REQUIRE(pay(third, "op-a", 101, deadline_ms + 5'000).status == CORRIDOR_RAIL_OK);
    auto retried = third.reports_of("op-a");
    REQUIRE(retried.size() == 1);
    CHECK(retried[0].outcome == CORRIDOR_RAIL_OUTCOME_PENDING);
    CHECK(retried[0].message == "sent in 20260310-w1.ach");
    const auto trace = retried[0].rail_reference;
    CHECK(trace.size() == 15);
    REQUIRE(third.tick(deadline_ms + 6'000).status == CORRIDOR_RAIL_OK);
    CHECK(names_in(dir / "outbox") == std::vector<std::string>{"20260310-w1.ach"});
    CHECK(entries_by_amount(dir) == std::map<std::uint64_t, int>{{101, 1}, {102, 1}});
    // The file settles after the restart: reported by the tick, and to any later retry.
    REQUIRE(third.tick(settlement_ms).status == CORRIDOR_RAIL_OK);
    CHECK(third.reports_of("op-b").back().outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);
    REQUIRE(pay(third, "op-a", 101, settlement_ms + 1).status == CORRIDOR_RAIL_OK);
    CHECK(third.reports_of("op-a").back().outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);
    CHECK(third.reports_of("op-a").back().rail_reference == trace);
    CHECK(read(dir / "state" / "spool.log").empty());
    fs::remove_all(dir);
}

TEST_CASE("ach plugin: a crash while a file is written leaves every entry in exactly one file",
          "[plugins][ach]") {
    // The moments a crash can hit a file's commit, rebuilt from what the files hold then: the
    // spool as it was before, and the file still under its temporary name, with or without its
    // manifest (the commit point).
    for (bool manifest_committed : {true, false}) {
        INFO("manifest committed: " << manifest_committed);
        fs::path dir = fresh_dir("commit");
        std::string spool_before;
        {
            plugin_host host(CORRIDOR_ACH_PLUGIN);
            REQUIRE(host.create(config_for(dir)).status == CORRIDOR_RAIL_OK);
            REQUIRE(pay(host, "op-a", 201).status == CORRIDOR_RAIL_OK);
            REQUIRE(pay(host, "op-b", 202).status == CORRIDOR_RAIL_OK);
            spool_before = read(dir / "state" / "spool.log");
            REQUIRE(host.tick(deadline_ms + 1).status == CORRIDOR_RAIL_OK);
        }
        fs::path file = dir / "outbox" / "20260310-w1.ach";
        REQUIRE(fs::exists(file));
        fs::rename(file, dir / "outbox" / "20260310-w1.ach.tmp");
        {
            std::ofstream out(dir / "state" / "spool.log", std::ios::binary | std::ios::trunc);
            out << spool_before;
        }
        if (!manifest_committed) fs::remove(dir / "state" / "files" / "20260310-w1.ach.json");

        plugin_host restarted(CORRIDOR_ACH_PLUGIN);
        REQUIRE(restarted.create(config_for(dir)).status == CORRIDOR_RAIL_OK);
        // Committed: the rename is finished at once. Not committed: the temporary is gone and
        // both entries are spooled again.
        CHECK(fs::exists(file) == manifest_committed);
        CHECK(names_in(dir / "outbox") == (manifest_committed
                                               ? std::vector<std::string>{"20260310-w1.ach"}
                                               : std::vector<std::string>{}));
        CHECK(read(dir / "state" / "spool.log").empty() == manifest_committed);
        REQUIRE(pay(restarted, "op-a", 201, deadline_ms + 2).status == CORRIDOR_RAIL_OK);
        CHECK(restarted.reports_of("op-a").at(0).rail_reference.empty() != manifest_committed);
        REQUIRE(restarted.tick(deadline_ms + 3).status == CORRIDOR_RAIL_OK);
        CHECK(names_in(dir / "outbox") == std::vector<std::string>{"20260310-w1.ach"});
        CHECK(entries_by_amount(dir) == std::map<std::uint64_t, int>{{201, 1}, {202, 1}});
        CHECK(read(dir / "state" / "spool.log").empty());
        fs::remove_all(dir);
    }
}

TEST_CASE("ach plugin: trace numbers carry on from file to file, so a return names one entry",
          "[plugins][ach]") {
    fs::path dir = fresh_dir("traces");
    plugin_host host(CORRIDOR_ACH_PLUGIN);
    REQUIRE(host.create(config_for(dir)).status == CORRIDOR_RAIL_OK);
    REQUIRE(pay(host, "op-1", 301).status == CORRIDOR_RAIL_OK);
    REQUIRE(host.tick(deadline_ms + 1).status == CORRIDOR_RAIL_OK);
    // After window 1's deadline: window 2 of the same day.
    REQUIRE(pay(host, "op-2", 302, deadline_ms + 60'000).status == CORRIDOR_RAIL_OK);
    REQUIRE(host.tick(deadline_ms + 6 * 3600'000).status == CORRIDOR_RAIL_OK);
    auto files = outbox_files(dir);
    REQUIRE(files.size() == 2);
    std::string first = host.reports_of("op-1").back().rail_reference;
    std::string second = host.reports_of("op-2").back().rail_reference;
    CHECK(first == "121042880000001");
    CHECK(second == "121042880000002");
    {
        std::ofstream out(dir / "inbox" / "return-0002.ach", std::ios::binary);
        out << return_file(second, "R03", 302);
    }
    REQUIRE(host.tick(deadline_ms + 6 * 3600'000 + 1000).status == CORRIDOR_RAIL_OK);
    CHECK(host.reports_of("op-2").back().outcome == CORRIDOR_RAIL_OUTCOME_RETURNED);
    CHECK(host.reports_of("op-1").back().outcome != CORRIDOR_RAIL_OUTCOME_RETURNED);
    // A retry after a return hears the settlement and the return again, in that order.
    std::size_t before = host.reports_of("op-2").size();
    REQUIRE(pay(host, "op-2", 302, deadline_ms + 6 * 3600'000 + 2000).status == CORRIDOR_RAIL_OK);
    auto again = host.reports_of("op-2");
    REQUIRE(again.size() == before + 3);
    CHECK(again[before + 1].outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);
    CHECK(again[before + 2].outcome == CORRIDOR_RAIL_OUTCOME_RETURNED);
    CHECK(again[before + 2].rail_reason_code == "R03");
    fs::remove_all(dir);
}

TEST_CASE("ach plugin: a second instance on the same state folder moves no money",
          "[plugins][ach]") {
    fs::path dir = fresh_dir("locked");
    plugin_host owner(CORRIDOR_ACH_PLUGIN);
    REQUIRE(owner.create(config_for(dir)).status == CORRIDOR_RAIL_OK);
    plugin_host other(CORRIDOR_ACH_PLUGIN);
    REQUIRE(other.create(config_for(dir)).status == CORRIDOR_RAIL_OK);  // e.g. `plugins list`
    CHECK(other.validate("US_ACCOUNT", "USD", checking_account).status == CORRIDOR_RAIL_OK);
    auto refused = pay(other, "op-x", 1);
    CHECK(refused.status == CORRIDOR_RAIL_UNAVAILABLE);
    CHECK(refused.error.find("in use by another process") != std::string::npos);
    CHECK(other.tick(deadline_ms + 1).status == CORRIDOR_RAIL_UNAVAILABLE);
    CHECK(pay(owner, "op-x", 1).status == CORRIDOR_RAIL_OK);
    fs::remove_all(dir);
}

TEST_CASE("ach plugin: a damaged state folder stops the rail with the reason", "[plugins][ach]") {
    fs::path dir = fresh_dir("damaged");
    {
        plugin_host host(CORRIDOR_ACH_PLUGIN);
        REQUIRE(host.create(config_for(dir)).status == CORRIDOR_RAIL_OK);
        REQUIRE(pay(host, "op-a", 401).status == CORRIDOR_RAIL_OK);
    }
    {
        std::ofstream out(dir / "state" / "spool.log", std::ios::binary | std::ios::app);
        out << "not json\n";
    }
    plugin_host host(CORRIDOR_ACH_PLUGIN);
    auto refused = host.create(config_for(dir));
    CHECK(refused.status == CORRIDOR_RAIL_INTERNAL);
    CHECK(refused.error.find("spool.log") != std::string::npos);
    fs::remove_all(dir);
}
