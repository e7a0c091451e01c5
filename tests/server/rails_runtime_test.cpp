// The server's rail wiring: configuration into loader settings, and the driver that runs the
// payment engine on a real ledger writer until a transfer completes.
#include "server/rails_runtime.hpp"

#include <catch2/catch.hpp>
#include <chrono>
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
