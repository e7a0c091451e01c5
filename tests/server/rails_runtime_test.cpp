// The server's rail wiring: configuration into loader settings, and the driver that runs the
// payment engine on a real ledger writer until a transfer completes.
#include "server/rails_runtime.hpp"

#include <sys/stat.h>

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "ledger/book.hpp"
#include "ledger/ledger_writer.hpp"
#include "tests/support/store_fixture.hpp"

namespace corridor {

TEST_CASE("the sandbox rail's timeout comes from sandbox.timeout_seconds unless set",
          "[server][rails]") {
    service_config config = service_config::defaults(".");
    config.plugins_dir = "/opt/plugins";
    config.plugins_rails = {"sandbox", "ach"};
    config.sandbox_timeout_seconds = 7;
    config.plugins_sha256 = {{"ach", std::string(64, 'a')}};
    config.plugins_settings = {{"ach", R"({"origin":"1"})"}};
    auto loaded = rail_load_config_of(config);
    CHECK(loaded.plugins_dir == "/opt/plugins");
    CHECK(loaded.rails == config.plugins_rails);
    CHECK(loaded.sha256_pins == config.plugins_sha256);
    CHECK(loaded.settings_json.at("ach") == R"({"origin":"1"})");
    CHECK(loaded.settings_json.at("sandbox") == R"({"timeout_ms":7000})");
    config.plugins_settings["sandbox"] = R"({"timeout_ms":5})";
    CHECK(rail_load_config_of(config).settings_json.at("sandbox") == R"({"timeout_ms":5})");
}

TEST_CASE("the spark rail plays the sandbox timeout too", "[server][rails]") {
    service_config config = service_config::defaults(".");
    config.sandbox_timeout_seconds = 3;
    config.plugins_settings = {{"spark", R"({"network":"regtest"})"}};
    CHECK(rail_load_config_of(config).settings_json.at("spark") ==
          R"({"network":"regtest","sandbox_timeout_ms":3000})");
    config.plugins_settings["spark"] = R"({"sandbox_timeout_ms":9})";
    CHECK(rail_load_config_of(config).settings_json.at("spark") == R"({"sandbox_timeout_ms":9})");
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
                              {settlement, account_id, 500, "USD", "fund", "Transaction:x"})
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

}  // namespace corridor
