// The spark.so plugin loaded through the ABI.
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "plugins/common/text.hpp"
#include "plugins/spark/bolt11.hpp"
#include "tests/rails_formats/plugin_host.hpp"

using corridor::plugin_test::plugin_host;
using namespace corridor::spark;

namespace {

const std::string test_key_hex = "e126f68f7eafcc8b74f54d269fe206be715000f94dac067d1c04a8ca3b2db734";
const std::string test_payee = "03e7156ae33b0a208d0744199163177e909e80176e55d97a2f221ede0f934dd9ad";
const std::string config = R"({"network":"regtest","node_private_key_hex":")" + test_key_hex +
                           R"(","invoice_expiry_seconds":600})";
constexpr std::int64_t now_ms = 1773151530000;

bytes32 key_of(const std::string& hex) {
    std::vector<std::uint8_t> bytes;
    corridor::formats::hex_decode(hex, bytes);
    bytes32 key{};
    std::copy(bytes.begin(), bytes.end(), key.begin());
    return key;
}

std::string invoice(ln_network network, std::optional<std::uint64_t> amount_msat,
                    std::uint64_t timestamp, std::uint64_t expiry = 3600) {
    invoice_fields fields;
    fields.network = network;
    fields.amount_msat = amount_msat;
    fields.timestamp = timestamp;
    fields.payment_hash =
        key_of("0001020304050607080900010203040506070809000102030405060708090102");
    fields.payment_secret = key_of(test_key_hex);
    fields.description = "payout";
    fields.expiry_seconds = expiry;
    fields.feature_bits = {8, 14};
    return encode_invoice(fields, key_of("11" + test_key_hex.substr(2))).value();
}

}  // namespace

TEST_CASE("spark plugin: config, node key from a file", "[plugins][spark]") {
    plugin_host host(CORRIDOR_SPARK_PLUGIN);
    CHECK(host.table().account_type_count == 2);
    CHECK(host.create(R"({"network":"regtest"})").error.find("node_private_key") !=
          std::string::npos);
    CHECK(host.create(R"({"network":"moon","node_private_key_hex":")" + test_key_hex + "\"}")
              .status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(host.create(R"({"network":"regtest","node_private_key_hex":"00"})").status ==
          CORRIDOR_RAIL_INVALID_ARGUMENT);
    std::filesystem::path key_file =
        std::filesystem::temp_directory_path() / "corridor-spark-node-key";
    {
        std::ofstream out(key_file);
        out << test_key_hex << "\n";
    }
    REQUIRE(
        host.create(R"({"network":"regtest","node_private_key_file":")" + key_file.string() + "\"}")
            .status == CORRIDOR_RAIL_OK);
    std::filesystem::remove(key_file);
    auto funding = host.funding("BTC", 1500, now_ms, "Quote:1");
    REQUIRE(funding.status == CORRIDOR_RAIL_OK);
    auto info = boost::json::parse(funding.result)
                    .as_array()
                    .at(0)
                    .as_object()["accountOrWalletInfo"]
                    .as_object();
    auto decoded = decode_invoice(std::string(info["invoice"].as_string()));
    REQUIRE(decoded.ok());
    CHECK(corridor::formats::hex_encode(decoded->payee) == test_payee);
}

TEST_CASE("spark plugin: funding instructions carry an invoice signed by the node key",
          "[plugins][spark]") {
    plugin_host host(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(host.create(config).status == CORRIDOR_RAIL_OK);
    auto result = host.funding("BTC", 1500, now_ms, "Quote:0190");
    REQUIRE(result.status == CORRIDOR_RAIL_OK);
    auto info = boost::json::parse(result.result)
                    .as_array()
                    .at(0)
                    .as_object()["accountOrWalletInfo"]
                    .as_object();
    CHECK(info["accountType"] == "SPARK_WALLET");
    CHECK(info["address"] ==
          "sparkrt1pgss8ec4dt3nkz3q35r5gxv3vvthayy7sqtku4we0ghjy8k7p7f5mkddv34lt0");
    auto decoded = decode_invoice(std::string(info["invoice"].as_string()));
    REQUIRE(decoded.ok());
    CHECK(decoded->fields.network == ln_network::regtest);
    CHECK(decoded->fields.amount_msat == 1'500'000u);
    CHECK(decoded->fields.timestamp == 1773151530u);
    CHECK(decoded->fields.expiry_seconds == 600);
    CHECK(decoded->fields.description == "Corridor funding Quote:0190");
    CHECK(corridor::formats::hex_encode(decoded->payee) == test_payee);
    // Each invoice has its own payment hash.
    auto second = host.funding("BTC", 1500, now_ms, "Quote:0190");
    auto other = decode_invoice(std::string(boost::json::parse(second.result)
                                                .as_array()
                                                .at(0)
                                                .as_object()["accountOrWalletInfo"]
                                                .as_object()["invoice"]
                                                .as_string()));
    CHECK(other->fields.payment_hash != decoded->fields.payment_hash);
    auto any = host.funding("BTC", 0, now_ms, "");
    REQUIRE(any.status == CORRIDOR_RAIL_OK);
    CHECK(host.funding("USD", 1, now_ms, "").status == CORRIDOR_RAIL_UNSUPPORTED);
}

TEST_CASE("spark plugin: SPARK_WALLET and LIGHTNING validation", "[plugins][spark]") {
    plugin_host host(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(host.create(config).status == CORRIDOR_RAIL_OK);
    auto wallet = host.validate(
        "SPARK_WALLET", "BTC",
        R"({"address":"sparkrt1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc8pt5y4"})");
    CHECK(wallet.status == CORRIDOR_RAIL_OK);
    CHECK(boost::json::parse(wallet.result).as_object()["identityPublicKey"] ==
          "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798");
    auto mainnet = host.validate(
        "SPARK_WALLET", "BTC",
        R"({"address":"spark1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc489gg2"})");
    CHECK(mainnet.status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(mainnet.error.find("regtest") != std::string::npos);
    CHECK(host.validate("SPARK_WALLET", "BTC", R"({"address":"sparkrt1qqqq"})").status ==
          CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(host.validate("SPARK_WALLET", "USD", "{}").status == CORRIDOR_RAIL_UNSUPPORTED);

    auto ln = host.validate(
        "LIGHTNING", "BTC",
        "{\"invoice\":\"" + invoice(ln_network::regtest, 2'000'000, 1773151000) + "\"}");
    CHECK(ln.status == CORRIDOR_RAIL_OK);
    CHECK(boost::json::parse(ln.result).as_object()["amountMsat"] == 2'000'000);
    auto testnet =
        host.validate("LIGHTNING", "BTC",
                      "{\"invoice\":\"" + invoice(ln_network::testnet, 1000, 1773151000) + "\"}");
    CHECK(testnet.status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(host.validate("LIGHTNING", "BTC", R"({"invoice":"lnbcrt1garbage"})").status ==
          CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(host.validate("LIGHTNING", "BTC", R"({"lightningAddress":"alice@example.com"})").status ==
          CORRIDOR_RAIL_OK);
    CHECK(host.validate("LIGHTNING", "BTC", R"({"lightningAddress":"alice"})").status ==
          CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(host.validate("LIGHTNING", "BTC", "{}").status == CORRIDOR_RAIL_INVALID_ARGUMENT);
}

TEST_CASE("spark plugin: payouts to a wallet and to an invoice", "[plugins][spark]") {
    plugin_host host(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(host.create(config).status == CORRIDOR_RAIL_OK);
    const std::string wallet =
        R"({"address":"sparkrt1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc8pt5y4"})";
    REQUIRE(host.initiate("op-wallet", CORRIDOR_RAIL_PAYOUT, "SPARK_WALLET", wallet, "BTC", 1000,
                          now_ms)
                .status == CORRIDOR_RAIL_OK);
    std::string ln_invoice = invoice(ln_network::regtest, 2'000'000, 1773151000);
    REQUIRE(host.initiate("op-ln", CORRIDOR_RAIL_PAYOUT, "LIGHTNING",
                          "{\"invoice\":\"" + ln_invoice + "\"}", "BTC", 2000, now_ms)
                .status == CORRIDOR_RAIL_OK);
    CHECK(host.reports_of("op-ln").at(0).rail_reference ==
          "0001020304050607080900010203040506070809000102030405060708090102");

    auto mismatch = host.initiate("op-amount", CORRIDOR_RAIL_PAYOUT, "LIGHTNING",
                                  "{\"invoice\":\"" + ln_invoice + "\"}", "BTC", 2001, now_ms);
    CHECK(mismatch.status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(mismatch.error.find("2000000 msat") != std::string::npos);
    CHECK(host.initiate("op-short", CORRIDOR_RAIL_PAYOUT, "LIGHTNING",
                        "{\"invoice\":\"" + ln_invoice + "\"}", "BTC", 1999, now_ms)
              .status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    // An invoice for a part of a satoshi is paid from the whole satoshi that covers it, no more.
    std::string odd_invoice = invoice(ln_network::regtest, 2'000'001, 1773151000);
    CHECK(host.initiate("op-odd", CORRIDOR_RAIL_PAYOUT, "LIGHTNING",
                        "{\"invoice\":\"" + odd_invoice + "\"}", "BTC", 2000, now_ms)
              .status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(host.initiate("op-odd-over", CORRIDOR_RAIL_PAYOUT, "LIGHTNING",
                        "{\"invoice\":\"" + odd_invoice + "\"}", "BTC", 2002, now_ms)
              .status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    REQUIRE(host.initiate("op-odd-ok", CORRIDOR_RAIL_PAYOUT, "LIGHTNING",
                          "{\"invoice\":\"" + odd_invoice + "\"}", "BTC", 2001, now_ms)
                .status == CORRIDOR_RAIL_OK);
    auto expired = host.initiate(
        "op-expired", CORRIDOR_RAIL_PAYOUT, "LIGHTNING",
        "{\"invoice\":\"" + invoice(ln_network::regtest, std::nullopt, 1773140000, 60) + "\"}",
        "BTC", 5, now_ms);
    CHECK(expired.status == CORRIDOR_RAIL_DECLINED);
    CHECK(host.initiate("op-address", CORRIDOR_RAIL_PAYOUT, "LIGHTNING",
                        R"({"lightningAddress":"alice@example.com"})", "BTC", 5, now_ms)
              .status == CORRIDOR_RAIL_UNSUPPORTED);
    CHECK(host.initiate("op-pull", CORRIDOR_RAIL_PULL, "SPARK_WALLET", wallet, "BTC", 5, now_ms)
              .status == CORRIDOR_RAIL_UNSUPPORTED);

    REQUIRE(host.tick(now_ms + 1000).status == CORRIDOR_RAIL_OK);
    CHECK(host.reports_of("op-wallet").back().outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);
    CHECK(host.reports_of("op-ln").back().outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);
    CHECK(host.reports_of("op-expired").empty());
    CHECK(host.reports_of("op-amount").empty());
    CHECK(host.reports_of("op-odd-ok").back().outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);
}
