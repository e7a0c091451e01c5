// The server's rail wiring: configuration into loader settings, and the driver that runs the
// payment engine on a real ledger writer until a transfer completes.
#include "server/workers/rails_runtime.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <thread>

#include "ledger/book/book.hpp"
#include "ledger/store/ledger_writer.hpp"
#include "tests/rails/funded_account.hpp"
#include "tests/support/function_job.hpp"
#include "tests/support/store_fixture.hpp"

namespace corridor {

TEST_CASE("each rail gets its folder under rails.data_dir, the sandbox its timeout, unless set",
          "[server][rails]") {
    service_config config = service_config::defaults("/etc/corridor");
    CHECK(config.rails_data_dir == "/etc/corridor/rail-data");
    config.plugins_dirs = {"/opt/plugins"};
    config.plugins_rails = {"sandbox", "ach"};
    config.sandbox_timeout_seconds = 7;
    config.plugins_sha256 = {{"ach", std::string(64, 'a')}};
    config.plugins_settings = {{"ach", R"({"origin":"1"})"}};
    auto loaded = rail_load_config_of(config);
    CHECK(loaded.plugins_dirs == std::vector<std::string>{"/opt/plugins"});
    CHECK(loaded.rails == config.plugins_rails);
    CHECK(loaded.sha256_pins == config.plugins_sha256);
    CHECK(loaded.settings_json.at("ach") ==
          R"({"origin":"1","data_dir":"/etc/corridor/rail-data/ach"})");
    CHECK(loaded.settings_json.at("sandbox") ==
          R"({"data_dir":"/etc/corridor/rail-data/sandbox","timeout_ms":7000})");
    config.plugins_settings["sandbox"] = R"({"timeout_ms":5,"data_dir":"/srv/sbx"})";
    CHECK(rail_load_config_of(config).settings_json.at("sandbox") ==
          R"({"timeout_ms":5,"data_dir":"/srv/sbx"})");
}

TEST_CASE("a rails data folder is one node: the same id at every start, one process at a time",
          "[server][rails]") {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / ("corridor-node-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    seeded_random random(7);
    std::string id;
    {
        rail_node_lock node(dir.string(), random);
        id = node.id();
        CHECK(id.size() == 32);
        CHECK_THROWS_WITH(rail_node_lock(dir.string(), random),
                          Catch::Contains("another running corridor process uses this folder"));
    }
    rail_node_lock again(dir.string(), random);
    CHECK(again.id() == id);
    rail_node_lock elsewhere((dir / "other").string(), random);
    CHECK(elsewhere.id() != id);
    fs::remove_all(dir);
}

TEST_CASE("the spark rail plays the sandbox timeout too", "[server][rails]") {
    service_config config = service_config::defaults("/srv/corridor");
    config.sandbox_timeout_seconds = 3;
    config.plugins_rails = {"spark"};
    config.plugins_settings = {{"spark", R"({"network":"regtest"})"}};
    CHECK(rail_load_config_of(config).settings_json.at("spark") ==
          R"({"network":"regtest","data_dir":"/srv/corridor/rail-data/spark","sandbox_timeout_ms":3000})");
    config.plugins_settings["spark"] = R"({"sandbox_timeout_ms":9})";
    CHECK(rail_load_config_of(config).settings_json.at("spark") ==
          R"({"sandbox_timeout_ms":9,"data_dir":"/srv/corridor/rail-data/spark"})");
}

TEST_CASE("the spark settings get absolute paths and, off mainnet, a node key made once",
          "[server][rails]") {
    namespace fs = std::filesystem;
    fs::path dir =
        fs::temp_directory_path() / ("corridor-spark-settings-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "conf");
    service_config config = service_config::defaults(".");
    config.plugins_settings = {
        {"spark",
         R"({"network":"regtest","node_private_key_file":"../var/node.key","sandbox_network_dir":"../var/ln"})"}};
    std::string conf_dir = (dir / "conf").string();
    std::string created = prepare_spark_settings(config, conf_dir);
    fs::path key = (dir / "var" / "node.key").lexically_normal();
    CHECK(created == key.string());
    auto settings = boost::json::parse(config.plugins_settings.at("spark")).as_object();
    CHECK(settings.at("node_private_key_file").as_string() == key.string());
    CHECK(settings.at("sandbox_network_dir").as_string() ==
          (dir / "var" / "ln").lexically_normal().string());
    CHECK(settings.at("network").as_string() == "regtest");
    std::string hex;
    std::ifstream(key) >> hex;
    CHECK(hex.size() == 64);
    CHECK(hex.find_first_not_of("0123456789abcdef") == std::string::npos);
    struct stat info {};
    REQUIRE(::stat(key.c_str(), &info) == 0);
    CHECK((info.st_mode & 0777) == 0600);

    // Started again (or by a second process): the key is read, never replaced.
    service_config again = service_config::defaults(".");
    again.plugins_settings = {
        {"spark", R"({"network":"regtest","node_private_key_file":")" + key.string() + R"("})"}};
    CHECK(prepare_spark_settings(again, conf_dir).empty());
    std::string same;
    std::ifstream(key) >> same;
    CHECK(same == hex);

    // A mainnet key is never made up, and an inline key needs no file.
    service_config mainnet = service_config::defaults(".");
    mainnet.plugins_settings = {
        {"spark", R"({"network":"mainnet","node_private_key_file":"absent.key"})"}};
    CHECK(prepare_spark_settings(mainnet, conf_dir).empty());
    CHECK_FALSE(fs::exists(dir / "conf" / "absent.key"));
    service_config inline_key = service_config::defaults(".");
    inline_key.plugins_settings = {
        {"spark",
         R"({"network":"regtest","node_private_key_hex":"11","node_private_key_file":"k"})"}};
    CHECK(prepare_spark_settings(inline_key, conf_dir).empty());
    CHECK_FALSE(fs::exists(dir / "conf" / "k"));

    // No spark settings: nothing to do; settings that are not an object stop start-up.
    service_config none = service_config::defaults(".");
    CHECK(prepare_spark_settings(none, conf_dir).empty());
    CHECK(none.plugins_settings.empty());
    service_config bad = service_config::defaults(".");
    bad.plugins_settings = {{"spark", "[1]"}};
    CHECK_THROWS_WITH(prepare_spark_settings(bad, conf_dir),
                      Catch::Contains("plugins.settings.spark must be a JSON object"));
    fs::remove_all(dir);
}

TEST_CASE("the rail driver completes a transfer-out through the ledger writer",
          "[server][rails][store]") {
    testing::store_fixture f;
    auto currencies = currency_registry::from_json(
        R"({"currencies": [{"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2}]})");
    rail_registry rails;
    rails.add(load_rail_file(std::string(CORRIDOR_PLUGIN_DIR) + "/sandbox.so", "sandbox", "", "{}",
                             nullptr));
    tenant owner{f.make_platform("driver.example"), environment::sandbox};
    account_filter platform_only;
    platform_only.platform_only = true;
    std::string account_id;
    for (const auto& account :
         list_internal_accounts(f.session(), owner, platform_only, {100, std::nullopt, false})
             .items) {
        if (account.currency == "USD") account_id = account.id;
    }
    REQUIRE_FALSE(account_id.empty());
    rail_engine_services services{f.ids, f.random, f.clock, currencies, rails, {}};
    std::string transaction_id;
    {
        write_transaction transaction(f.session());
        book_services book{f.ids, f.random, f.clock};
        std::string settlement =
            ensure_account(f.session(), book, owner, account_kind::settlement, "", "USD");
        REQUIRE(post_transfer(f.session(), book, owner,
                              {settlement, account_id, 500, "USD", "fund", ""})
                    .ok());
        auto begun = begin_transfer_out(
            f.session(), services,
            {owner,
             account_id,
             {"ExternalAccount:x", "", "USD", "US_ACCOUNT", R"({"accountNumber":"42"})"},
             200,
             ""});
        REQUIRE(begun.ok());
        transaction_id = begun->id;
        transaction.commit();
    }
    ledger_writer writer(f.database.url(), 16, 1000);
    rail_driver driver(services, writer, 10);
    std::string status;
    for (int i = 0; i < 500 && status != "COMPLETED"; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        auto session = f.database.open_another();
        status = find_transaction(*session, owner, transaction_id)->status;
    }
    driver.stop();
    writer.stop();
    CHECK(status == "COMPLETED");
    CHECK(*account_balance(f.session(), account_id) == 300);
}

TEST_CASE("a slow rail holds up no ledger command: one sent while its hook runs commits first",
          "[server][rails][store]") {
    namespace fs = std::filesystem;
    testing::store_fixture f;
    auto currencies = currency_registry::from_json(
        R"({"currencies": [{"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2}]})");
    fs::path started = fs::temp_directory_path() /
                       ("corridor-slow-rail-" + std::to_string(::getpid()) + ".started");
    fs::remove(started);
    rail_registry rails;
    rails.add(load_rail_file(std::string(CORRIDOR_TEST_PLUGIN_DIR) + "/test_slow.so", "", "",
                             R"({"started_file":")" + started.string() + R"("})", nullptr));
    tenant owner{f.make_platform("slow.example"), environment::sandbox};
    std::string account_id = testing::funded_platform_account(f, owner, "USD", 500);
    rail_engine_services services{f.ids, f.random, f.clock, currencies, rails, {}};
    std::string transaction_id;
    {
        write_transaction transaction(f.session());
        auto begun = begin_transfer_out(
            f.session(), services,
            {owner,
             account_id,
             {"ExternalAccount:slow", "", "USD", "SOLANA_WALLET", R"({"accountNumber":"42"})"},
             200,
             ""});
        REQUIRE(begun.ok());
        transaction_id = begun->id;
        transaction.commit();
    }
    const auto& initiations = rails.by_name("test_slow")->stats(rail_hook::initiate);
    ledger_writer writer(f.database.url(), 16, 1000);
    rail_driver driver(services, writer, 10);
    for (int i = 0; i < 1000 && !fs::exists(started); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(fs::exists(started));  // the driver is inside the plugin's initiate, for a second

    // A money-moving command sent now: it must not wait for the hook.
    book_services book{f.ids, f.random, f.clock};
    std::uint64_t initiations_returned_at_commit = 99;
    auto committed = corridor::testing::submit(writer, [&](soci::session& session) {
        std::string settlement =
            ensure_account(session, book, owner, account_kind::settlement, "", "USD");
        return post_transfer(session, book, owner,
                             {settlement, account_id, 1, "USD", "fund", ""})
            .ok();
    });
    REQUIRE(committed.get());
    initiations_returned_at_commit = initiations.calls.load();
    CHECK(initiations_returned_at_commit == 0);  // the hook was still running

    std::string status;
    for (int i = 0; i < 1000 && status != "COMPLETED"; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        auto session = f.database.open_another();
        status = find_transaction(*session, owner, transaction_id)->status;
    }
    driver.stop();
    writer.stop();
    CHECK(status == "COMPLETED");
    CHECK(initiations.calls.load() == 1);
    CHECK(*account_balance(f.session(), account_id) == 500 - 200 + 1);
    fs::remove(started);
}

}  // namespace corridor

#ifdef CORRIDOR_SOURCE_DIR
namespace corridor {

TEST_CASE("the shipped configuration loads the four shipped rails with working settings",
          "[server][rails]") {
    namespace fs = std::filesystem;
    auto config = service_config::load_file(
        (fs::path(CORRIDOR_SOURCE_DIR) / "conf" / "corridor.json").string());
    CHECK(config.plugins_rails == std::vector<std::string>{"sandbox", "ach", "pix", "spark"});
    CHECK(fs::path(config.rails_data_dir) == fs::path(CORRIDOR_SOURCE_DIR) / "var" / "rails");
    // As served from this build, with the state kept away from the source tree.
    fs::path dir = fs::temp_directory_path() / ("corridor-shipped-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    config.plugins_dirs = {CORRIDOR_PLUGIN_DIR};
    config.rails_data_dir = dir.string();
    // The Spark node key is made at start-up, as serve does, here in the same folder.
    auto spark = boost::json::parse(config.plugins_settings.at("spark")).as_object();
    spark["node_private_key_file"] = (dir / "spark-node.key").string();
    spark["sandbox_network_dir"] = (dir / "lightning-sandbox").string();
    config.plugins_settings["spark"] = boost::json::serialize(spark);
    CHECK(prepare_spark_settings(config, (fs::path(CORRIDOR_SOURCE_DIR) / "conf").string()) ==
          (dir / "spark-node.key").string());
    {
        auto rails = load_rails(rail_load_config_of(config), nullptr);
        REQUIRE(rails.all().size() == 4);
        CHECK(rails.for_account_type("production", "US_ACCOUNT")->name() == "ach");
        CHECK(rails.for_account_type("production", "PIX")->name() == "pix");
        CHECK(rails.for_account_type("production", "SPARK_WALLET")->name() == "spark");
        CHECK(rails.for_account_type("sandbox", "US_ACCOUNT")->name() == "sandbox");
        for (const auto* currency : {"USD", "BRL", "BTC"}) {
            INFO(currency);
            rail_funding_input request{"production", "InternalAccount:x", currency, "REF1", 0,
                                       1773151200000};
            bool answered = false;
            for (const auto& rail : rails.all())
                if (rail->name() != "sandbox" && rail->funding_instructions(request).ok())
                    answered = true;
            CHECK(answered);
        }
    }
    CHECK(fs::is_directory(dir / "ach" / "state"));
    CHECK(fs::is_directory(dir / "pix" / "state"));
    fs::remove_all(dir);
}

}  // namespace corridor
#endif
