// The production rail plugins (plugins/ach, pix, spark) through the real loader and the payment
// engine: the registry routes each account type to its rail outside the sandbox, and a PIX payout
// for a production tenant settles through pix.so.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "ledger/book/book.hpp"
#include "ledger/store/database.hpp"
#include "rails/loader.hpp"
#include "rails/payment_engine.hpp"
#include "tests/rails/funded_account.hpp"
#include "tests/support/store_fixture.hpp"

namespace corridor {
namespace {

const std::string pix_settings =
    R"({"ispb":"12345678","pix_key":"11222333000181","pix_key_type":"CNPJ","tax_id":"11222333000181",)"
    R"("merchant_name":"CORRIDOR TEST","merchant_city":"SAO PAULO","data_dir":")" +
    (std::filesystem::temp_directory_path() /
     ("corridor-real-rails-pix-" + std::to_string(::getpid())))
        .string() +
    R"("})";
const std::string spark_settings =
    R"({"network":"regtest","node_private_key_hex":"e126f68f7eafcc8b74f54d269fe206be715000f94dac067d1c04a8ca3b2db734",)"
    R"("data_dir":")" +
    (std::filesystem::temp_directory_path() /
     ("corridor-real-rails-spark-" + std::to_string(::getpid())))
        .string() +
    R"("})";

rail_load_config production_rails() {
    rail_load_config config;
    config.plugins_dirs = {CORRIDOR_PLUGIN_DIR};
    config.rails = {"sandbox", "pix", "spark"};
    config.settings_json = {{"pix", pix_settings}, {"spark", spark_settings}};
    return config;
}

}  // namespace

TEST_CASE("the registry routes account types to the production rails", "[rails][registry]") {
    auto rails = load_rails(production_rails(), nullptr);
    REQUIRE(rails.all().size() == 3);
    CHECK(rails.for_account_type("production", "PIX")->name() == "pix");
    CHECK(rails.for_account_type("production", "SPARK_WALLET")->name() == "spark");
    CHECK(rails.for_account_type("production", "CLABE") == nullptr);  // only the sandbox serves it
    // In the sandbox every account type goes to the simulator.
    CHECK(rails.for_account_type("sandbox", "PIX")->name() == "sandbox");
    CHECK(rails.for_account_type("sandbox", "CLABE")->name() == "sandbox");
}

TEST_CASE("a production PIX payout settles through pix.so", "[store][rails][engine]") {
    testing::store_fixture f;
    auto currencies = currency_registry::from_json(
        R"({"currencies": [{"code": "BRL", "name": "Brazilian Real", "symbol": "R$", "decimals": 2}]})");
    auto rails = load_rails(production_rails(), nullptr);
    new_platform request;
    request.name = "Pix";
    request.uma_domain = "pix.example";
    request.supported_currencies = {{"BRL", 1, 1000000, {"OUTGOING", "INCOMING"}, {}}};
    auto platform = create_platform(f.session(), f.platforms(), request);
    REQUIRE(platform.ok());
    tenant owner{platform.value(), environment::production};
    std::string account_id = testing::funded_platform_account(f, owner, "BRL", 5000);

    rail_engine_services services{f.ids, f.random, f.clock, currencies, rails, {}};
    payment_engine engine(services);
    external_account_ref destination{
        "ExternalAccount:pix", "", "BRL", "PIX",
        R"({"accountType":"PIX","pixKey":"fulano@example.com.br","pixKeyType":"EMAIL","taxId":"52998224725"})"};
    auto drive = [&] {
        write_transaction transaction(f.session());
        engine.drive(f.session());
        transaction.commit();
    };
    drive();  // the rails' first tick: the next one is due a tick interval (1 s for pix) later
    std::string transaction_id;
    {
        write_transaction transaction(f.session());
        auto begun = begin_transfer_out(f.session(), services,
                                        {owner, account_id, destination, 1234, "rent"});
        REQUIRE(begun.ok());
        transaction_id = begun->id;
        transaction.commit();
    }
    auto op = [&] {
        return *find_rail_operation_by_transaction(f.session(), owner, transaction_id);
    };
    CHECK(op().rail == "pix");
    drive();
    CHECK(op().status == "PENDING");
    CHECK_FALSE(op().rail_reference.empty());  // the EndToEndId
    f.clock.advance_ms(1000);
    drive();
    CHECK(op().status == "SETTLED");
    CHECK(find_transaction(f.session(), owner, transaction_id)->status == "COMPLETED");
    CHECK(*account_balance(f.session(), account_id) == 5000 - 1234);
    CHECK(audit_book(f.session()).empty());

    // A malformed PIX key is refused before anything is written.
    destination.account_json =
        R"({"accountType":"PIX","pixKey":"fulano@example.com.br","pixKeyType":"CPF","taxId":"52998224725"})";
    write_transaction transaction(f.session());
    auto refused =
        begin_transfer_out(f.session(), services, {owner, account_id, destination, 1, ""});
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == rail_payment_error::account_invalid);
    CHECK_THAT(refused.error().message, Catch::Contains("is not valid for rail pix"));

    // PIX has no pull (ABI 1.1 capabilities): a transfer-in is refused up front, pointing the
    // payer to the funding instructions, and nothing reaches the rail.
    CHECK(rails.by_name("pix")->capabilities() == CORRIDOR_RAIL_CAN_PAYOUT);
    CHECK_FALSE(rails.by_name("spark")->can(CORRIDOR_RAIL_PULL));
    destination.account_json =
        R"({"accountType":"PIX","pixKey":"fulano@example.com.br","pixKeyType":"EMAIL","taxId":"52998224725"})";
    auto initiations = rails.by_name("pix")->stats(rail_hook::initiate).calls.load();
    auto pull = begin_transfer_in(f.session(), services, {owner, destination, account_id, 100, ""});
    REQUIRE_FALSE(pull.ok());
    CHECK(pull.error().code == rail_payment_error::direction_unsupported);
    CHECK(pull.error().field == "source.accountId");
    CHECK_THAT(pull.error().message, Catch::Contains("fundingPaymentInstructions"));
    CHECK(rails.by_name("pix")->stats(rail_hook::initiate).calls.load() == initiations);
}

TEST_CASE("ach pulls; the sandbox both pays out and pulls", "[rails][registry]") {
    rail_load_config config;
    config.plugins_dirs = {CORRIDOR_PLUGIN_DIR};
    config.rails = {"sandbox", "ach"};
    auto dir = std::filesystem::temp_directory_path() / "corridor-ach-capabilities";
    std::filesystem::create_directories(dir);
    config.settings_json = {
        {"ach",
         R"({"odfi_routing":"021000021","company_id":"1234567890","data_dir":")" + dir.string() +
             R"(","outbox_dir":")" + (dir / "out").string() + R"(","inbox_dir":")" +
             (dir / "in").string() +
             R"(","funding_account_number":"123456789","funding_routing_number":"021000021"})"}};
    auto rails = load_rails(config, nullptr);
    CHECK(rails.by_name("ach")->capabilities() ==
          (CORRIDOR_RAIL_CAN_PAYOUT | CORRIDOR_RAIL_CAN_PULL));
    CHECK(rails.by_name("sandbox")->capabilities() ==
          (CORRIDOR_RAIL_CAN_PAYOUT | CORRIDOR_RAIL_CAN_PULL));
    std::filesystem::remove_all(dir);
}

}  // namespace corridor
