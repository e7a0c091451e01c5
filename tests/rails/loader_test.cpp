// The rail loader and the host side of the ABI, through plugins built for these tests.
#include "rails/loader.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "ledger/customers/account_details.hpp"

namespace corridor {
namespace {

std::string test_plugin(const std::string& name) {
    return std::string(CORRIDOR_TEST_PLUGIN_DIR) + "/" + name + ".so";
}

struct collected_log final : rail_log_sink {
    void write(const std::string& rail, corridor_rail_log_level level,
               const std::string& message) override {
        lines.push_back(rail + ": " + message);
    }
    std::vector<std::string> lines;
};

std::string load_error(const std::function<void()>& load) {
    try {
        load();
    } catch (const rail_load_error& error) {
        return error.what();
    }
    return "";
}

}  // namespace

TEST_CASE("a good plugin loads and answers through the ABI", "[rails][loader]") {
    collected_log log;
    auto rail = load_rail_file(test_plugin("test_good"), "test_good", "", "{}", &log);
    CHECK(rail->name() == "test_good");
    CHECK(rail->version() == "0.0.1");
    CHECK(rail->abi_major() == CORRIDOR_RAIL_ABI_MAJOR);
    CHECK(rail->abi_minor() == CORRIDOR_RAIL_ABI_MINOR);
    CHECK(rail->account_types() == std::vector<std::string>{"SOLANA_WALLET", "TRON_WALLET"});
    CHECK(rail->serves("SOLANA_WALLET"));
    CHECK_FALSE(rail->serves("US_ACCOUNT"));
    CHECK(log.lines == std::vector<std::string>{"test_good: test rail created"});

    auto valid = rail->validate_account("SOLANA_WALLET", "USD", R"({"accountNumber":"1"})");
    CHECK(valid.ok());
    CHECK(valid.result == R"({"normalised":true})");
    auto invalid = rail->validate_account("SOLANA_WALLET", "USD", R"({})");
    CHECK(invalid.status == rail_status::invalid_argument);
    CHECK(invalid.message == "accountNumber is required");
    CHECK(rail->validate_account("US_ACCOUNT", "USD", "{}").status == rail_status::unsupported);

    auto funding =
        rail->funding_instructions({"sandbox", "InternalAccount:x", "USD", "REF1", 0, 1});
    REQUIRE(funding.ok());
    CHECK(funding.result == R"([{"accountType":"SOLANA_WALLET","reference":"REF1"}])");

    rail_operation_input payout{CORRIDOR_RAIL_PAYOUT,
                                "RailOperation:1",
                                "sandbox",
                                "SOLANA_WALLET",
                                R"({"accountNumber":"1"})",
                                "USD",
                                "",
                                100,
                                1000};
    auto started = rail->initiate(payout);
    REQUIRE(started.ok());
    REQUIRE(started.reports.size() == 1);
    CHECK(started.reports[0].outcome == rail_outcome::settled);
    CHECK(started.reports[0].operation_id == "RailOperation:1");
    CHECK(started.reports[0].rail_reference == "trace-1");

    rail_operation_input pull = payout;
    pull.direction = CORRIDOR_RAIL_PULL;
    pull.operation_id = "RailOperation:2";
    auto pulled = rail->initiate(pull);
    REQUIRE(pulled.reports.size() == 1);
    CHECK(pulled.reports[0].outcome == rail_outcome::pending);
    auto ticked = rail->tick(2000);
    REQUIRE(ticked.reports.size() == 1);
    CHECK(ticked.reports[0].outcome == rail_outcome::failed);
    CHECK(ticked.reports[0].failure == rail_failure::insufficient_funds);
    CHECK(ticked.reports[0].rail_reason_code == "R01");

    auto refused = rail->initiate([&] {
        auto zero = payout;
        zero.amount_minor = 0;
        return zero;
    }());
    CHECK(refused.status == rail_status::invalid_argument);
    CHECK(refused.reports.empty());

    // Every call is counted per hook, and those that did not return OK apart.
    CHECK(rail->stats(rail_hook::create).calls == 1);
    CHECK(rail->stats(rail_hook::validate_account).calls == 3);
    CHECK(rail->stats(rail_hook::validate_account).not_ok == 2);
    CHECK(rail->stats(rail_hook::initiate).calls == 3);
    CHECK(rail->stats(rail_hook::initiate).not_ok == 1);
    CHECK(rail->stats(rail_hook::tick).calls == 1);
}

TEST_CASE("a plugin built for another ABI major version is refused by name", "[rails][loader]") {
    std::string error =
        load_error([] { load_rail_file(test_plugin("test_wrong_major"), "", "", "{}", nullptr); });
    CHECK_THAT(error, Catch::Contains(test_plugin("test_wrong_major")));
    CHECK_THAT(error, Catch::Contains("rail ABI 2.0"));
    CHECK_THAT(error, Catch::Contains("major versions must match"));
}

TEST_CASE("a shared object without the entry symbol is refused", "[rails][loader]") {
    std::string error =
        load_error([] { load_rail_file(test_plugin("test_no_entry"), "", "", "{}", nullptr); });
    CHECK_THAT(error, Catch::Contains(test_plugin("test_no_entry")));
    CHECK_THAT(error, Catch::Contains("corridor_rail_entry"));
}

TEST_CASE("a plugin that throws inside a hook reads as internal and the host carries on",
          "[rails][loader]") {
    collected_log log;
    auto rail = load_rail_file(test_plugin("test_throws"), "test_throws", "", "{}", &log);
    for (int round = 0; round < 3; ++round) {
        auto valid = rail->validate_account("SOLANA_WALLET", "USD", R"({"accountNumber":"1"})");
        CHECK(valid.status == rail_status::internal);
        CHECK(valid.message == "internal error in the rail plugin");
        auto started = rail->initiate({CORRIDOR_RAIL_PAYOUT, "RailOperation:1", "sandbox",
                                       "SOLANA_WALLET", "{}", "USD", "", 100, 1000});
        CHECK(started.status == rail_status::internal);
        CHECK(started.reports.empty());
        CHECK(rail->tick(1000).status == rail_status::internal);
    }
    // The exception's own text reaches the host's log, never the API caller.
    REQUIRE_FALSE(log.lines.empty());
    CHECK(log.lines.back() == "test_throws: test rail throws on purpose");
}

TEST_CASE("a plugin's create hook can refuse its settings", "[rails][loader]") {
    std::string error = load_error(
        [] { load_rail_file(test_plugin("test_good"), "", "", R"({"refuse":true})", nullptr); });
    CHECK_THAT(error, Catch::Contains("create hook failed (invalid_argument): config says refuse"));
}

TEST_CASE("the loader checks a pinned SHA-256 before loading", "[rails][loader]") {
    std::string path = test_plugin("test_good");
    std::string actual = sha256_file_hex(path);
    CHECK(actual.size() == 64);
    CHECK(load_rail_file(path, "", actual, "{}", nullptr)->name() == "test_good");
    std::string wrong(64, '0');
    std::string error = load_error([&] { load_rail_file(path, "", wrong, "{}", nullptr); });
    CHECK_THAT(error, Catch::Contains("its SHA-256 is " + actual + " but the configuration pins " +
                                      wrong));
}

TEST_CASE("load_rails takes names, never paths, and refuses duplicates", "[rails][loader]") {
    rail_load_config config;
    config.plugins_dirs = {CORRIDOR_TEST_PLUGIN_DIR};
    config.rails = {"test_good", "test_silent"};
    auto registry = load_rails(config, nullptr);
    REQUIRE(registry.all().size() == 2);
    CHECK(registry.by_name("test_silent") != nullptr);
    CHECK(registry.by_name("missing") == nullptr);
    // Both serve SOLANA_WALLET: the first configured wins; the sandbox rail is not there.
    CHECK(registry.for_account_type("production", "SOLANA_WALLET")->name() == "test_good");
    CHECK(registry.for_account_type("sandbox", "US_ACCOUNT") == nullptr);

    config.rails = {"../plugins/test_good"};
    CHECK_THAT(load_error([&] { load_rails(config, nullptr); }),
               Catch::Contains("is not a rail name"));
    config.rails = {"test_good", "test_good"};
    CHECK_THAT(load_error([&] { load_rails(config, nullptr); }), Catch::Contains("already uses"));
    config.rails = {"absent"};
    CHECK_THAT(load_error([&] { load_rails(config, nullptr); }),
               Catch::Contains(config.plugins_dirs[0] + "/absent.so: no such file"));
    config.rails = {"test_good"};
    config.sha256_pins = {{"test_silent", std::string(64, '0')}};
    CHECK_THAT(load_error([&] { load_rails(config, nullptr); }),
               Catch::Contains("not in plugins.rails"));

    // A plugin must declare the name it is configured under.
    auto dir = std::filesystem::temp_directory_path() / "corridor-rails-loader-test";
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(test_plugin("test_good"), dir / "renamed.so",
                               std::filesystem::copy_options::overwrite_existing);
    rail_load_config renamed;
    renamed.plugins_dirs = {dir.string()};
    renamed.rails = {"renamed"};
    CHECK_THAT(load_error([&] { load_rails(renamed, nullptr); }),
               Catch::Contains("declares the name \"test_good\" but is configured as \"renamed\""));
    std::filesystem::remove_all(dir);
}

TEST_CASE("the host refuses reports made outside a hook", "[rails][loader]") {
    // A plugin may only report from inside a hook; a report from anywhere else is refused.
    auto rail = load_rail_file(test_plugin("test_good"), "", "", "{}", nullptr);
    corridor_rail_type_report report{};
    report.struct_size = sizeof report;
    report.outcome = CORRIDOR_RAIL_OUTCOME_SETTLED;
    report.operation_id = {"RailOperation:1", 15};
    auto* host = reinterpret_cast<corridor_rail_type_host*>(rail.get());
    CHECK(rail_instance::host_api()->report(host, &report) == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(rail_instance::host_api()->report(host, nullptr) == CORRIDOR_RAIL_INVALID_ARGUMENT);
}

TEST_CASE("unknown status codes read as internal", "[rails][loader]") {
    CHECK(rail_status_from(0) == rail_status::ok);
    CHECK(rail_status_from(5) == rail_status::timeout);
    CHECK(rail_status_from(7) == rail_status::internal);
    CHECK(rail_status_from(-1) == rail_status::internal);
}

TEST_CASE("rail_abi.h does not change without a version bump", "[rails][abi]") {
    // Any edit of the header must bump CORRIDOR_RAIL_ABI_MINOR (additions at the end of a table)
    // or CORRIDOR_RAIL_ABI_MAJOR (anything else), then record the new hash here.
    std::string hash = sha256_file_hex(std::string(CORRIDOR_SOURCE_DIR) + "/rails/rail_abi.h");
    INFO("rail_abi.h SHA-256 is now " << hash);
    CHECK(CORRIDOR_RAIL_ABI_MAJOR == 1);
    CHECK(CORRIDOR_RAIL_ABI_MINOR == 3);
    CHECK(hash == "8c902748cc1ef63a914007dbe9fa842731a1eb3532d5b1835718edc00179c057");
}

TEST_CASE("a plugin built for ABI 1.0 still loads and reads as able to pay out and pull",
          "[rails][loader][abi]") {
    auto rail = load_rail_file(test_plugin("test_abi_1_0"), "test_abi_1_0", "", "{}", nullptr);
    CHECK(rail->abi_major() == 1);
    CHECK(rail->abi_minor() == 0);
    CHECK(rail->capabilities() == (CORRIDOR_RAIL_CAN_PAYOUT | CORRIDOR_RAIL_CAN_PULL));
    CHECK(rail->can(CORRIDOR_RAIL_PULL));
    CHECK(rail->validate_account("POLYGON_WALLET", "USD", "{}").ok());
    rail_operation_input op;
    op.operation_id = "RailOperation:legacy";
    op.amount_minor = 5;
    auto started = rail->initiate(op);
    REQUIRE(started.ok());
    REQUIRE(started.reports.size() == 1);
    CHECK(started.reports[0].outcome == rail_outcome::settled);
    CHECK(started.reports[0].operation_id == "RailOperation:legacy");
}

TEST_CASE("an ABI 1.1 plugin's capabilities are read from its table", "[rails][loader][abi]") {
    auto both = load_rail_file(test_plugin("test_good"), "test_good", "", "{}", nullptr);
    CHECK(both->abi_minor() == CORRIDOR_RAIL_ABI_MINOR);
    CHECK(both->capabilities() ==
          (CORRIDOR_RAIL_CAN_PAYOUT | CORRIDOR_RAIL_CAN_PULL | CORRIDOR_RAIL_SERVES_SANDBOX));
    auto payout_only =
        load_rail_file(test_plugin("test_payout_only"), "test_payout_only", "", "{}", nullptr);
    CHECK(payout_only->capabilities() == (CORRIDOR_RAIL_CAN_PAYOUT | CORRIDOR_RAIL_SERVES_SANDBOX));
    CHECK(payout_only->can(CORRIDOR_RAIL_PAYOUT));
    CHECK_FALSE(payout_only->can(CORRIDOR_RAIL_PULL));
}

TEST_CASE("the shipped rails declare what they can do", "[rails][loader][abi]") {
    auto sandbox = load_rail_file(std::string(CORRIDOR_PLUGIN_DIR) + "/sandbox.so", "sandbox", "",
                                  R"({"timeout_ms":1000})", nullptr);
    CHECK(sandbox->capabilities() == (CORRIDOR_RAIL_CAN_PAYOUT | CORRIDOR_RAIL_CAN_PULL));
    CHECK_FALSE(sandbox->serves_sandbox());
    auto spark = load_rail_file(
        std::string(CORRIDOR_PLUGIN_DIR) + "/spark.so", "spark", "",
        R"({"network":"regtest","node_private_key_hex":"e126f68f7eafcc8b74f54d269fe206be715000f94dac067d1c04a8ca3b2db734",)"
        R"("data_dir":")" +
            (std::filesystem::temp_directory_path() / "corridor-rails-loader-spark").string() +
            "\"}",
        nullptr);
    CHECK(spark->capabilities() == (CORRIDOR_RAIL_CAN_PAYOUT | CORRIDOR_RAIL_SERVES_SANDBOX));
    CHECK(spark->serves_sandbox());
}

TEST_CASE("a plugin built for ABI 1.1 loads under 1.2 and its unknown bits stay unknown",
          "[rails][loader][abi]") {
    auto rail = load_rail_file(test_plugin("test_abi_1_1"), "test_abi_1_1", "", "{}", nullptr);
    CHECK(rail->abi_major() == 1);
    CHECK(rail->abi_minor() == 1);
    CHECK(rail->can(CORRIDOR_RAIL_PAYOUT));
    CHECK(rail->can(CORRIDOR_RAIL_PULL));
    // It carries the bit 1.2 named SERVES_SANDBOX, which meant nothing to a 1.1 plugin.
    CHECK((rail->capabilities() & CORRIDOR_RAIL_SERVES_SANDBOX) != 0);
    CHECK_FALSE(rail->serves_sandbox());
    rail_operation_input op;
    op.operation_id = "RailOperation:v11";
    op.amount_minor = 5;
    auto started = rail->initiate(op);
    REQUIRE(started.ok());
    REQUIRE(started.reports.size() == 1);
    CHECK(started.reports[0].outcome == rail_outcome::settled);
    CHECK(started.incoming.empty());

    // So in the sandbox the simulator keeps LIGHTNING; in production the 1.1 rail serves it.
    rail_registry registry;
    registry.add(load_rail_file(std::string(CORRIDOR_PLUGIN_DIR) + "/sandbox.so", "sandbox", "",
                                "{}", nullptr));
    registry.add(std::move(rail));
    CHECK(registry.for_account_type("sandbox", "LIGHTNING")->name() == "sandbox");
    CHECK(registry.for_account_type("production", "LIGHTNING")->name() == "test_abi_1_1");
}

TEST_CASE("a rail that serves the sandbox itself goes ahead of the simulator there",
          "[rails][loader][abi]") {
    rail_registry registry;
    registry.add(load_rail_file(std::string(CORRIDOR_PLUGIN_DIR) + "/sandbox.so", "sandbox", "",
                                "{}", nullptr));
    registry.add(load_rail_file(test_plugin("test_incoming"), "test_incoming", "", "{}", nullptr));
    CHECK(registry.for_account_type("sandbox", "US_ACCOUNT")->name() == "test_incoming");
    CHECK(registry.for_account_type("production", "US_ACCOUNT")->name() == "test_incoming");
    CHECK(registry.for_account_type("sandbox", "IBAN")->name() == "sandbox");
}

TEST_CASE("report_incoming copies well-formed arrivals from initiate and tick and refuses the rest",
          "[rails][loader][abi]") {
    collected_log log;
    auto rail = load_rail_file(test_plugin("test_incoming"), "test_incoming", "", "{}", &log);
    CHECK(rail->abi_minor() == 3);

    auto ticked = rail->tick(5000);
    REQUIRE(ticked.ok());
    REQUIRE(ticked.incoming.size() == 2);
    const rail_incoming& lightning = ticked.incoming[0];
    CHECK(lightning.environment == "sandbox");
    CHECK(lightning.rail_reference == "lightning-1");
    CHECK(lightning.match_key == "00ff");
    CHECK(lightning.reference.empty());
    CHECK(lightning.currency == "BTC");
    CHECK(lightning.amount_minor == 5);
    CHECK(lightning.amount_milli_minor == 5123);
    CHECK(lightning.received_at_ms == 1000);
    CHECK(lightning.message == "test arrival");
    CHECK(ticked.incoming[1].rail_reference == "bank-1");
    CHECK(ticked.incoming[1].reference == "REF123");
    CHECK(ticked.incoming[1].match_key.empty());
    // Every ill-formed one was refused with INVALID_ARGUMENT (1), each good one taken (0).
    std::vector<std::string> expected = {
        "test_incoming: good-milli=0",        "test_incoming: good-reference=0",
        "test_incoming: short-struct=1",      "test_incoming: null=1",
        "test_incoming: no-rail-reference=1", "test_incoming: no-key-or-reference=1",
        "test_incoming: zero-amount=1",       "test_incoming: milli-disagrees=1",
        "test_incoming: bad-currency=1",      "test_incoming: bad-environment=1"};
    CHECK(log.lines == expected);

    // From initiate too; not from another hook.
    log.lines.clear();
    rail_operation_input op;
    op.operation_id = "RailOperation:in";
    op.amount_minor = 5;
    auto started = rail->initiate(op);
    REQUIRE(started.ok());
    REQUIRE(started.incoming.size() == 1);
    CHECK(started.incoming[0].rail_reference == "during-initiate");
    CHECK(rail->validate_account("US_ACCOUNT", "USD", "{}").ok());
    CHECK(log.lines ==
          std::vector<std::string>{"test_incoming: during-initiate=0", "test_incoming: outside=1"});

    // Outside any hook, and through a host the process does not know, it is refused.
    corridor_rail_type_incoming in{};
    in.struct_size = sizeof in;
    in.environment = {"sandbox", 7};
    in.rail_reference = {"r", 1};
    in.match_key = {"k", 1};
    in.currency = {"BTC", 3};
    in.amount_minor = 1;
    const corridor_rail_host_api* api = rail_instance::host_api();
    REQUIRE(api->magic.table_size >= CORRIDOR_RAIL_HOST_API_SIZE_V1_2);
    auto* host = reinterpret_cast<corridor_rail_type_host*>(rail.get());
    CHECK(api->report_incoming(host, &in) == CORRIDOR_RAIL_INVALID_ARGUMENT);
    int unknown = 0;
    CHECK(api->report_incoming(reinterpret_cast<corridor_rail_type_host*>(&unknown), &in) ==
          CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(api->report_incoming(nullptr, &in) == CORRIDOR_RAIL_INVALID_ARGUMENT);
    rail.reset();  // a destroyed instance is unknown from then on
    CHECK(api->report_incoming(host, &in) == CORRIDOR_RAIL_INVALID_ARGUMENT);
}

}  // namespace corridor

namespace corridor {

TEST_CASE("the host makes data_dir (0700) before create", "[rails][loader]") {
    auto root = std::filesystem::temp_directory_path() / "corridor-loader-data-dir-test";
    std::filesystem::remove_all(root);
    auto dir = root / "rails" / "test_good";
    // test_good writes a file into data_dir from its constructor, and refuses to start if it
    // cannot.
    auto rail = load_rail_file(test_plugin("test_good"), "test_good", "",
                               R"({"data_dir":")" + dir.string() + "\"}", nullptr);
    CHECK(std::filesystem::exists(dir / "created"));
    struct stat info {};
    REQUIRE(::stat(dir.c_str(), &info) == 0);
    CHECK((info.st_mode & 0777) == 0700);
    // An existing folder is used as it is; a path that is a file is refused, named.
    std::ofstream(root / "a-file") << "x";
    std::string error = load_error([&] {
        load_rail_file(test_plugin("test_good"), "", "",
                       R"({"data_dir":")" + (root / "a-file").string() + "\"}", nullptr);
    });
    CHECK_THAT(error, Catch::Contains("its data_dir " + (root / "a-file").string()));
    std::filesystem::remove_all(root);
}

TEST_CASE("a plugin declaring an account type outside the interface's list is refused",
          "[rails][loader]") {
    std::string error =
        load_error([] { load_rail_file(test_plugin("test_unknown_type"), "", "", "{}", nullptr); });
    CHECK_THAT(error, Catch::Contains(test_plugin("test_unknown_type")));
    CHECK_THAT(error, Catch::Contains("declares the account type \"MARS_ACCOUNT\", which is not "
                                      "one of the interface's account types (US_ACCOUNT, "
                                      "USD_ACCOUNT, CLABE,"));
    CHECK_THAT(error, Catch::Contains("BASE_WALLET)"));
}

TEST_CASE("the account types of rail_abi.h are the interface's", "[rails][abi]") {
    std::vector<std::string> interface_types;
    for (auto type : external_account_types()) interface_types.emplace_back(type);
    std::vector<std::string> abi_types = rail_account_types();
    std::sort(interface_types.begin(), interface_types.end());
    std::sort(abi_types.begin(), abi_types.end());
    CHECK(abi_types == interface_types);
}

TEST_CASE("an entry point refusing the host's ABI is named with both versions", "[rails][loader]") {
    std::string error =
        load_error([] { load_rail_file(test_plugin("test_refuses_host"), "", "", "{}", nullptr); });
    CHECK_THAT(error, Catch::Contains(test_plugin("test_refuses_host")));
    CHECK_THAT(error, Catch::Contains("it was built for rail ABI 2.4 and its entry point refused "
                                      "this Corridor's rail ABI 1.3 (status unsupported; the "
                                      "major versions must match)"));
}

TEST_CASE("a create that throws is refused with the plugin's own words", "[rails][loader]") {
    std::string error = load_error([] {
        load_rail_file(test_plugin("test_good"), "", "", R"({"throw_in_create":true})", nullptr);
    });
    CHECK_THAT(error, Catch::Contains("its create hook failed (internal): internal error in the "
                                      "rail plugin (the plugin logged: create threw on purpose: "
                                      "the settings name no bank)"));
}

TEST_CASE("plugins.dir folders are searched in order", "[rails][loader]") {
    auto first = std::filesystem::temp_directory_path() / "corridor-loader-dirs-test";
    std::filesystem::remove_all(first);
    std::filesystem::create_directories(first);
    std::filesystem::copy_file(test_plugin("test_silent"), first / "test_silent.so");
    rail_load_config config;
    config.plugins_dirs = {first.string(), CORRIDOR_TEST_PLUGIN_DIR};
    config.rails = {"test_silent", "test_good"};
    auto registry = load_rails(config, nullptr);
    CHECK(registry.by_name("test_silent")->file() == (first / "test_silent.so").string());
    CHECK(registry.by_name("test_good")->file() == test_plugin("test_good"));
    config.rails = {"absent"};
    CHECK_THAT(load_error([&] { load_rails(config, nullptr); }),
               Catch::Contains("absent.so: no such file in any folder of plugins.dir (" +
                               first.string() + ", " + CORRIDOR_TEST_PLUGIN_DIR + ")"));
    std::filesystem::remove_all(first);
}

TEST_CASE("load_each_rail carries on past a rail that cannot load, with its error",
          "[rails][loader]") {
    rail_load_config config;
    config.plugins_dirs = {CORRIDOR_TEST_PLUGIN_DIR};
    config.rails = {"test_good", "test_unknown_type"};
    config.settings_json["test_good"] = R"({"throw_in_create":true})";
    auto attempts = load_each_rail(config, nullptr);
    REQUIRE(attempts.size() == 2);
    CHECK_FALSE(attempts[0].rail);
    CHECK_THAT(attempts[0].error, Catch::Contains("create threw on purpose"));
    CHECK_FALSE(attempts[1].rail);
    CHECK_THAT(attempts[1].error, Catch::Contains("MARS_ACCOUNT"));
    config.settings_json.clear();
    config.rails = {"test_good"};
    attempts = load_each_rail(config, nullptr);
    REQUIRE(attempts.size() == 1);
    CHECK(attempts[0].rail);
    CHECK(attempts[0].error.empty());
}

TEST_CASE("a report from a thread of the plugin's own is refused", "[rails][loader]") {
    // test_thread_report settles a payout through a thread it starts inside initiate.
    auto rail = load_rail_file(test_plugin("test_thread_report"), "", "", "{}", nullptr);
    auto started = rail->initiate({CORRIDOR_RAIL_PAYOUT, "RailOperation:t", "sandbox",
                                   "SOLANA_WALLET", R"({"address":"a"})", "USD", "", 100, 1000});
    CHECK(started.ok());
    CHECK(started.reports.empty());
    // The same rail on the hook's thread is heard (test_good shares its source).
    auto good = load_rail_file(test_plugin("test_good"), "", "", "{}", nullptr);
    CHECK(good->initiate({CORRIDOR_RAIL_PAYOUT, "RailOperation:g", "sandbox", "SOLANA_WALLET",
                          R"({"address":"a"})", "USD", "", 100, 1000})
              .reports.size() == 1);
}

TEST_CASE("sandbox operations never reach a rail that does not serve the sandbox",
          "[rails][loader]") {
    rail_registry registry;
    registry.add(load_rail_file(test_plugin("test_production"), "", "", "{}", nullptr));
    CHECK(registry.for_account_type("production", "SOLANA_WALLET")->name() == "test_production");
    CHECK(registry.for_account_type("sandbox", "SOLANA_WALLET") == nullptr);
    // A rail that serves the sandbox itself does get its account types there.
    registry.add(load_rail_file(test_plugin("test_good"), "", "", "{}", nullptr));
    CHECK(registry.for_account_type("sandbox", "SOLANA_WALLET")->name() == "test_good");
    CHECK(registry.for_account_type("production", "SOLANA_WALLET")->name() == "test_production");
}

}  // namespace corridor
