// The spark.so plugin loaded through the ABI.
#include <unistd.h>

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "plugins/spark/spark_address.hpp"
#include "rails/rail_sdk/formats/text.hpp"
#include "rails/rail_sdk/lightning/bolt11.hpp"
#include "tests/rails_formats/plugin_host.hpp"

using corridor::plugin_test::plugin_host;
using namespace corridor::spark;
using namespace corridor::lightning;

namespace {

const std::string test_key_hex = "e126f68f7eafcc8b74f54d269fe206be715000f94dac067d1c04a8ca3b2db734";
const std::string test_payee = "03e7156ae33b0a208d0744199163177e909e80176e55d97a2f221ede0f934dd9ad";
constexpr std::int64_t now_ms = 1773151530000;

// A fresh folder per test case (removed before and after), so no state carries between cases.
struct scratch_dir {
    std::filesystem::path path;
    explicit scratch_dir(const std::string& name)
        : path(std::filesystem::temp_directory_path() /
               ("corridor-spark-" + name + "-" + std::to_string(::getpid()))) {
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~scratch_dir() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
    // The config of a rail on regtest with the test key and its state in this folder.
    std::string config() const {
        return R"({"network":"regtest","node_private_key_hex":")" + test_key_hex +
               R"(","invoice_expiry_seconds":600,"data_dir":")" + path.string() + "\"}";
    }
};

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
    scratch_dir state("config");
    const std::string data_dir = R"(,"data_dir":")" + state.path.string() + "\"}";
    plugin_host host(CORRIDOR_SPARK_PLUGIN);
    CHECK(host.table().account_type_count == 2);
    CHECK(host.create(R"({"network":"regtest"})").error.find("node_private_key") !=
          std::string::npos);
    // Without a folder for its state a retry after a restart could pay twice: refused.
    auto no_state =
        host.create(R"({"network":"regtest","node_private_key_hex":")" + test_key_hex + "\"}");
    CHECK(no_state.status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(no_state.error == "spark config: data_dir is required");
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
    REQUIRE(host.create(R"({"network":"regtest","node_private_key_file":")" + key_file.string() +
                        "\"" + data_dir)
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
    scratch_dir state("funding");
    plugin_host host(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(host.create(state.config()).status == CORRIDOR_RAIL_OK);
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

TEST_CASE("spark plugin: the sandbox's own invoices never end in a failure pattern",
          "[plugins][spark]") {
    // A bech32 checksum ends in 002-005 about once in 8,192 invoices, and a sandbox payer fails
    // such an invoice as its pattern says: 40,000 draws would meet one 99 times in 100.
    scratch_dir state("funding-patterns");
    plugin_host host(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(host.create(state.config()).status == CORRIDOR_RAIL_OK);
    int patterned = 0;
    for (int i = 0; i < 40'000; ++i) {
        auto result = host.funding("BTC", 0, now_ms, "");
        REQUIRE(result.status == CORRIDOR_RAIL_OK);
        std::string invoice(boost::json::parse(result.result)
                                .at(0)
                                .at("accountOrWalletInfo")
                                .at("invoice")
                                .as_string());
        std::string tail = invoice.substr(invoice.size() - 3);
        if (tail == "002" || tail == "003" || tail == "004" || tail == "005") ++patterned;
    }
    CHECK(patterned == 0);
}

TEST_CASE("spark plugin: SPARK_WALLET and LIGHTNING validation", "[plugins][spark]") {
    scratch_dir state("validation");
    plugin_host host(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(host.create(state.config()).status == CORRIDOR_RAIL_OK);
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
    scratch_dir state("payouts");
    plugin_host host(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(host.create(state.config()).status == CORRIDOR_RAIL_OK);
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

namespace {

const std::string key_b = "1111111111111111111111111111111111111111111111111111111111111111";
const std::string key_c = "2222222222222222222222222222222222222222222222222222222222222222";

struct network_dir {
    std::filesystem::path path = std::filesystem::temp_directory_path() /
                                 ("corridor-spark-net-" + std::to_string(::getpid()));
    network_dir() {
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~network_dir() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
    std::string config(const std::string& key) const {
        return R"({"network":"regtest","node_private_key_hex":")" + key +
               R"(","sandbox_network_dir":")" + path.string() + R"(","sandbox_timeout_ms":5000,)" +
               R"("data_dir":")" + state_of(key).string() + "\"}";
    }
    // Each node's own state folder, named by its key.
    std::filesystem::path state_of(const std::string& key) const {
        return path / ("node-" + key.substr(0, 8));
    }
};

std::string funding_invoice(plugin_host& host, std::int64_t amount, const std::string& reference) {
    auto funding = host.funding("BTC", amount, now_ms, reference);
    REQUIRE(funding.status == CORRIDOR_RAIL_OK);
    return std::string(boost::json::parse(funding.result)
                           .at(0)
                           .at("accountOrWalletInfo")
                           .at("invoice")
                           .as_string());
}

std::string lightning(const std::string& invoice_text) {
    return "{\"invoice\":\"" + invoice_text + "\"}";
}

std::string hash_of(const std::string& invoice_text) {
    return corridor::formats::hex_encode(decode_invoice(invoice_text)->fields.payment_hash);
}

}  // namespace

TEST_CASE("spark plugin: an invoice is paid through the sandbox network at most once",
          "[plugins][spark][network]") {
    network_dir network;
    plugin_host payee(CORRIDOR_SPARK_PLUGIN), payer(CORRIDOR_SPARK_PLUGIN),
        other(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(payee.create(network.config(key_b)).status == CORRIDOR_RAIL_OK);
    REQUIRE(payer.create(network.config(test_key_hex)).status == CORRIDOR_RAIL_OK);
    REQUIRE(other.create(network.config(key_c)).status == CORRIDOR_RAIL_OK);
    std::string invoice_text = funding_invoice(payee, 0, "REF-B");
    std::string hash = hash_of(invoice_text);

    REQUIRE(payer
                .initiate("op-1", CORRIDOR_RAIL_PAYOUT, "LIGHTNING", lightning(invoice_text), "BTC",
                          2500, now_ms)
                .status == CORRIDOR_RAIL_OK);
    auto paid = payer.reports_of("op-1");
    REQUIRE(paid.size() == 1);
    CHECK(paid[0].outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);
    CHECK(paid[0].rail_reference == hash);
    std::filesystem::path record = network.path / "payments" / (hash + ".json");
    REQUIRE(std::filesystem::exists(record));
    std::ifstream in(record);
    std::stringstream text;
    text << in.rdbuf();
    auto written = boost::json::parse(text.str()).as_object();
    CHECK(written.at("amountMsat").to_number<std::int64_t>() == 2'500'000);
    CHECK(written.at("invoice").as_string() == invoice_text);
    CHECK(written.at("payer").as_string() == test_payee);
    CHECK(written.at("payerOperationId").as_string() == "op-1");
    // No temporary file is left behind.
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(network.path / "payments")) {
        CHECK(entry.path().filename().string().front() != '.');
        ++files;
    }
    CHECK(files == 1);

    // The same invoice again, by the same payer or another: refused with the rail's reason.
    for (auto* host : {&payer, &other}) {
        REQUIRE(host->initiate("op-2", CORRIDOR_RAIL_PAYOUT, "LIGHTNING", lightning(invoice_text),
                               "BTC", 2500, now_ms)
                    .status == CORRIDOR_RAIL_OK);
        auto refused = host->reports_of("op-2");
        REQUIRE(refused.size() == 1);
        CHECK(refused[0].outcome == CORRIDOR_RAIL_OUTCOME_FAILED);
        CHECK(refused[0].failure == CORRIDOR_RAIL_FAILURE_REJECTED);
        CHECK(refused[0].rail_reason_code == "INVOICE_ALREADY_PAID");
        CHECK(refused[0].failure_reason == "LIGHTNING_PAYMENT_FAILED");
        CHECK(refused[0].message == "invoice " + hash + " was already paid");
    }
    // The host retrying op-1 in the same run hears the same outcome (after a restart: below).
    REQUIRE(payer
                .initiate("op-1", CORRIDOR_RAIL_PAYOUT, "LIGHTNING", lightning(invoice_text), "BTC",
                          2500, now_ms)
                .status == CORRIDOR_RAIL_OK);
    CHECK(payer.reports_of("op-1").back().outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);
    // ...but another node retrying with the payer's operation id is another payer.
    REQUIRE(other
                .initiate("op-1", CORRIDOR_RAIL_PAYOUT, "LIGHTNING", lightning(invoice_text), "BTC",
                          2500, now_ms)
                .status == CORRIDOR_RAIL_OK);
    CHECK(other.reports_of("op-1").at(0).outcome == CORRIDOR_RAIL_OUTCOME_FAILED);

    // Production never touches the sandbox network: the payout is simulated as before.
    payer.environment = "production";
    std::string fresh = funding_invoice(payee, 0, "REF-P");
    REQUIRE(payer
                .initiate("op-p", CORRIDOR_RAIL_PAYOUT, "LIGHTNING", lightning(fresh), "BTC", 10,
                          now_ms)
                .status == CORRIDOR_RAIL_OK);
    CHECK(payer.reports_of("op-p").at(0).outcome == CORRIDOR_RAIL_OUTCOME_PENDING);
    CHECK_FALSE(std::filesystem::exists(network.path / "payments" / (hash_of(fresh) + ".json")));
    REQUIRE(payer.tick(now_ms + 1000).status == CORRIDOR_RAIL_OK);
    CHECK(payer.reports_of("op-p").back().outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);
}

TEST_CASE("spark plugin: the network's payments of our invoices are received once per run",
          "[plugins][spark][network]") {
    network_dir network;
    plugin_host payee(CORRIDOR_SPARK_PLUGIN), payer(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(payee.create(network.config(key_b)).status == CORRIDOR_RAIL_OK);
    REQUIRE(payer.create(network.config(test_key_hex)).status == CORRIDOR_RAIL_OK);
    std::string any_amount = funding_invoice(payee, 0, "InternalRef-1");
    std::string quote = funding_invoice(payee, 1500, "Q12345");
    std::string payers_own = funding_invoice(payer, 0, "PayerRef");
    // An invoice of a third node that no instance here runs.
    std::string foreign = invoice(ln_network::regtest, std::nullopt, 1773151000);
    int op = 0;
    for (auto [text, amount] :
         {std::pair{any_amount, 2500}, std::pair{quote, 1500}, std::pair{foreign, 700}}) {
        REQUIRE(payer
                    .initiate("op-" + std::to_string(++op), CORRIDOR_RAIL_PAYOUT, "LIGHTNING",
                              lightning(text), "BTC", amount, now_ms)
                    .status == CORRIDOR_RAIL_OK);
    }
    plugin_host third(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(third.create(network.config(key_c)).status == CORRIDOR_RAIL_OK);
    REQUIRE(third
                .initiate("op-own", CORRIDOR_RAIL_PAYOUT, "LIGHTNING", lightning(payers_own), "BTC",
                          321, now_ms)
                .status == CORRIDOR_RAIL_OK);
    // Junk in the folder is named in the log and otherwise ignored.
    std::ofstream(network.path / "payments" / "junk.json") << "not json";

    REQUIRE(payee.tick(now_ms + 5000).status == CORRIDOR_RAIL_OK);
    REQUIRE(payee.incoming.size() == 2);
    std::map<std::string, corridor::plugin_test::recorded_incoming> by_hash;
    for (const auto& arrival : payee.incoming) by_hash[arrival.rail_reference] = arrival;
    const auto& first = by_hash.at(hash_of(any_amount));
    CHECK(first.environment == "sandbox");
    CHECK(first.match_key == hash_of(any_amount));
    CHECK(first.reference == "InternalRef-1");
    CHECK(first.currency == "BTC");
    CHECK(first.amount_minor == 2500);
    CHECK(first.amount_milli_minor == 2'500'000);
    CHECK(first.received_at_ms == now_ms + 5000);
    const auto& second = by_hash.at(hash_of(quote));
    CHECK(second.reference == "Q12345");
    CHECK(second.amount_minor == 1500);
    bool named_junk = false;
    for (const auto& line : payee.logs) named_junk |= line.find("junk.json") != std::string::npos;
    CHECK(named_junk);

    // Nothing twice in one run.
    REQUIRE(payee.tick(now_ms + 6000).status == CORRIDOR_RAIL_OK);
    CHECK(payee.incoming.size() == 2);
    // The payer receives the one payment of its own invoice and nothing else.
    REQUIRE(payer.tick(now_ms + 6000).status == CORRIDOR_RAIL_OK);
    REQUIRE(payer.incoming.size() == 1);
    CHECK(payer.incoming[0].reference == "PayerRef");
    CHECK(payer.incoming[0].amount_minor == 321);
    // A restarted payee reports them again: the host records each arrival once (its key is the
    // payment hash), so the rail keeps no state of its own across runs.
    plugin_host restarted(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(restarted.create(network.config(key_b)).status == CORRIDOR_RAIL_OK);
    REQUIRE(restarted.tick(now_ms + 7000).status == CORRIDOR_RAIL_OK);
    CHECK(restarted.incoming.size() == 2);
}

namespace {

// Spark addresses of made-up keys until one ends in 002 and one in 005, by that ending.
std::map<std::string, std::string> pattern_addresses() {
    std::map<std::string, std::string> by_pattern;
    for (std::uint32_t i = 1; by_pattern.size() < 2 && i < 2'000'000; ++i) {
        bytes32 secret{};
        secret[28] = static_cast<std::uint8_t>(i >> 24);
        secret[29] = static_cast<std::uint8_t>(i >> 16);
        secret[30] = static_cast<std::uint8_t>(i >> 8);
        secret[31] = static_cast<std::uint8_t>(i);
        std::string address =
            encode_spark_address(spark_network::regtest, node_public_key(secret).value());
        std::string tail = address.substr(address.size() - 3);
        if (tail == "002" || tail == "005") by_pattern.emplace(tail, address);
    }
    return by_pattern;
}

}  // namespace

TEST_CASE("spark plugin: sandbox failure patterns on the destination", "[plugins][spark]") {
    scratch_dir state("patterns");
    plugin_host host(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(host.create(state.config()).status == CORRIDOR_RAIL_OK);
    auto by_pattern = pattern_addresses();
    REQUIRE(by_pattern.size() == 2);
    auto wallet = [](const std::string& address) { return "{\"address\":\"" + address + "\"}"; };
    REQUIRE(host.initiate("op-002", CORRIDOR_RAIL_PAYOUT, "SPARK_WALLET",
                          wallet(by_pattern.at("002")), "BTC", 10, now_ms)
                .status == CORRIDOR_RAIL_OK);
    auto failed = host.reports_of("op-002");
    REQUIRE(failed.size() == 1);
    CHECK(failed[0].outcome == CORRIDOR_RAIL_OUTCOME_FAILED);
    CHECK(failed[0].failure == CORRIDOR_RAIL_FAILURE_INSUFFICIENT_FUNDS);
    CHECK(failed[0].rail_reason_code == "INSUFFICIENT_BALANCE");
    CHECK(failed[0].failure_reason == "LIGHTNING_PAYMENT_FAILED");

    REQUIRE(host.initiate("op-005", CORRIDOR_RAIL_PAYOUT, "SPARK_WALLET",
                          wallet(by_pattern.at("005")), "BTC", 10, now_ms)
                .status == CORRIDOR_RAIL_OK);
    CHECK(host.reports_of("op-005").back().outcome == CORRIDOR_RAIL_OUTCOME_PENDING);
    REQUIRE(host.tick(now_ms + 29'000).status == CORRIDOR_RAIL_OK);
    CHECK(host.reports_of("op-005").back().outcome == CORRIDOR_RAIL_OUTCOME_PENDING);
    REQUIRE(host.tick(now_ms + 30'000).status == CORRIDOR_RAIL_OK);
    auto timed_out = host.reports_of("op-005").back();
    CHECK(timed_out.outcome == CORRIDOR_RAIL_OUTCOME_FAILED);
    CHECK(timed_out.failure == CORRIDOR_RAIL_FAILURE_TIMEOUT);
    CHECK(timed_out.failure_reason == "TIMEOUT");

    // In production the same addresses are paid like any other.
    host.environment = "production";
    REQUIRE(host.initiate("op-prod", CORRIDOR_RAIL_PAYOUT, "SPARK_WALLET",
                          wallet(by_pattern.at("002")), "BTC", 10, now_ms)
                .status == CORRIDOR_RAIL_OK);
    CHECK(host.reports_of("op-prod").back().outcome == CORRIDOR_RAIL_OUTCOME_PENDING);
}

TEST_CASE("spark plugin: an invoice of millisatoshis is paid by the satoshis that cover it",
          "[plugins][spark][network]") {
    network_dir network;
    plugin_host payee(CORRIDOR_SPARK_PLUGIN), payer(CORRIDOR_SPARK_PLUGIN);
    // The key that signs the invoices of invoice() above.
    REQUIRE(payee.create(network.config("11" + test_key_hex.substr(2))).status == CORRIDOR_RAIL_OK);
    REQUIRE(payer.create(network.config(test_key_hex)).status == CORRIDOR_RAIL_OK);
    std::string text = invoice(ln_network::regtest, 2'632'500, 1773151000);
    auto short_payout = payer.initiate("op-short", CORRIDOR_RAIL_PAYOUT, "LIGHTNING",
                                       lightning(text), "BTC", 2632, now_ms);
    CHECK(short_payout.status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(short_payout.error ==
          "the amount differs from the invoice's 2632500 msat (a payout of 2633 sat)");
    CHECK(payer
              .initiate("op-long", CORRIDOR_RAIL_PAYOUT, "LIGHTNING", lightning(text), "BTC", 2634,
                        now_ms)
              .status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    REQUIRE(
        payer
            .initiate("op", CORRIDOR_RAIL_PAYOUT, "LIGHTNING", lightning(text), "BTC", 2633, now_ms)
            .status == CORRIDOR_RAIL_OK);
    CHECK(payer.reports_of("op").at(0).outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);
    REQUIRE(payee.tick(now_ms + 1000).status == CORRIDOR_RAIL_OK);
    REQUIRE(payee.incoming.size() == 1);
    CHECK(payee.incoming[0].amount_milli_minor == 2'632'500);
    CHECK(payee.incoming[0].amount_minor == 2632);
    CHECK(payee.incoming[0].reference.empty());  // not a funding invoice: by match key only
    CHECK(payee.incoming[0].match_key ==
          "0001020304050607080900010203040506070809000102030405060708090102");
}

namespace {

// The payment records in the network folder, by file name.
std::vector<std::string> payment_records(const std::filesystem::path& network) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(network / "payments"))
        names.push_back(entry.path().filename().string());
    return names;
}

std::string payer_operation_of(const std::filesystem::path& record) {
    std::ifstream in(record);
    std::stringstream text;
    text << in.rdbuf();
    return std::string(boost::json::parse(text.str()).at("payerOperationId").as_string());
}

std::vector<std::string> lines_of(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

void write_lines(const std::filesystem::path& file, const std::vector<std::string>& lines,
                 const std::string& tail = "") {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    for (const auto& line : lines) out << line << '\n';
    out << tail;
}

const std::string test_wallet =
    R"({"address":"sparkrt1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc8pt5y4"})";

}  // namespace

TEST_CASE("spark plugin: a retry after a crash answers from the log and pays nothing again",
          "[plugins][spark][network][restart]") {
    network_dir network;
    plugin_host payee(CORRIDOR_SPARK_PLUGIN), other(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(payee.create(network.config(key_b)).status == CORRIDOR_RAIL_OK);
    REQUIRE(other.create(network.config(key_c)).status == CORRIDOR_RAIL_OK);
    std::string invoice_text = funding_invoice(payee, 0, "REF-R");
    std::string hash = hash_of(invoice_text);
    std::string fresh = funding_invoice(payee, 0, "REF-F");

    // Before the crash: an invoice paid through the network, a wallet payout still PENDING, and
    // an invoice another node paid first (FAILED).
    REQUIRE(other
                .initiate("other-op", CORRIDOR_RAIL_PAYOUT, "LIGHTNING", lightning(fresh), "BTC", 7,
                          now_ms)
                .status == CORRIDOR_RAIL_OK);
    std::vector<corridor::plugin_test::recorded_report> before;
    {
        plugin_host payer(CORRIDOR_SPARK_PLUGIN);
        REQUIRE(payer.create(network.config(test_key_hex)).status == CORRIDOR_RAIL_OK);
        for (auto [id, type, account] : {std::tuple{"op-ln", "LIGHTNING", lightning(invoice_text)},
                                         std::tuple{"op-wallet", "SPARK_WALLET", test_wallet},
                                         std::tuple{"op-late", "LIGHTNING", lightning(fresh)}})
            REQUIRE(
                payer.initiate(id, CORRIDOR_RAIL_PAYOUT, type, account, "BTC", 7, now_ms).status ==
                CORRIDOR_RAIL_OK);
        before = payer.reports;
        // The instance goes away without a tick or any shutdown hook: only what initiate wrote.
    }
    REQUIRE(before.size() == 3);
    CHECK(before[0].outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);
    CHECK(before[1].outcome == CORRIDOR_RAIL_OUTCOME_PENDING);
    CHECK(before[2].outcome == CORRIDOR_RAIL_OUTCOME_FAILED);
    CHECK(before[2].rail_reason_code == "INVOICE_ALREADY_PAID");

    plugin_host restarted(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(restarted.create(network.config(test_key_hex)).status == CORRIDOR_RAIL_OK);
    REQUIRE(restarted
                .initiate("op-ln", CORRIDOR_RAIL_PAYOUT, "LIGHTNING", lightning(invoice_text),
                          "BTC", 7, now_ms + 60'000)
                .status == CORRIDOR_RAIL_OK);
    REQUIRE(restarted
                .initiate("op-wallet", CORRIDOR_RAIL_PAYOUT, "SPARK_WALLET", test_wallet, "BTC", 7,
                          now_ms + 60'000)
                .status == CORRIDOR_RAIL_OK);
    REQUIRE(restarted
                .initiate("op-late", CORRIDOR_RAIL_PAYOUT, "LIGHTNING", lightning(fresh), "BTC", 7,
                          now_ms + 60'000)
                .status == CORRIDOR_RAIL_OK);
    REQUIRE(restarted.reports.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        INFO(before[i].operation_id);
        CHECK(restarted.reports[i].operation_id == before[i].operation_id);
        CHECK(restarted.reports[i].outcome == before[i].outcome);
        CHECK(restarted.reports[i].rail_reference == before[i].rail_reference);
        CHECK(restarted.reports[i].failure == before[i].failure);
        CHECK(restarted.reports[i].rail_reason_code == before[i].rail_reason_code);
        CHECK(restarted.reports[i].message == before[i].message);
    }
    CHECK(restarted.reports[0].rail_reference == hash);
    // One payment of the invoice, ours, and one of the other node's: nothing paid again.
    CHECK(payment_records(network.path).size() == 2);
    CHECK(payer_operation_of(network.path / "payments" / (hash + ".json")) == "op-ln");
    CHECK(payer_operation_of(network.path / "payments" / (hash_of(fresh) + ".json")) == "other-op");
    // The wallet payout's wait resumes: the next tick settles it, under the same transfer id.
    REQUIRE(restarted.tick(now_ms + 61'000).status == CORRIDOR_RAIL_OK);
    auto settled = restarted.reports_of("op-wallet");
    REQUIRE(settled.size() == 2);
    CHECK(settled[1].outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);
    CHECK(settled[1].rail_reference == before[1].rail_reference);
    // The payee receives each invoice's one payment.
    REQUIRE(payee.tick(now_ms + 62'000).status == CORRIDOR_RAIL_OK);
    CHECK(payee.incoming.size() == 2);

    // A retry naming another destination or amount is not this operation: refused, nothing paid.
    auto other_amount = restarted.initiate("op-ln", CORRIDOR_RAIL_PAYOUT, "LIGHTNING",
                                           lightning(invoice_text), "BTC", 8, now_ms);
    CHECK(other_amount.status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(other_amount.error ==
          "operation op-ln was initiated before with another destination or amount");
    CHECK(restarted
              .initiate("op-wallet", CORRIDOR_RAIL_PAYOUT, "LIGHTNING", lightning(invoice_text),
                        "BTC", 7, now_ms)
              .status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(payment_records(network.path).size() == 2);
    // A new operation paying the invoice again is another payment: refused as already paid.
    REQUIRE(restarted
                .initiate("op-again", CORRIDOR_RAIL_PAYOUT, "LIGHTNING", lightning(invoice_text),
                          "BTC", 7, now_ms)
                .status == CORRIDOR_RAIL_OK);
    CHECK(restarted.reports_of("op-again").at(0).rail_reason_code == "INVOICE_ALREADY_PAID");
}

TEST_CASE(
    "spark plugin: a crash between logging a payout and its outcome is settled by the network",
    "[plugins][spark][network][restart]") {
    network_dir network;
    plugin_host payee(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(payee.create(network.config(key_b)).status == CORRIDOR_RAIL_OK);
    std::string paid_text = funding_invoice(payee, 0, "REF-PAID");
    std::string unpaid_text = funding_invoice(payee, 0, "REF-UNPAID");
    std::filesystem::path log = network.state_of(test_key_hex) / "state" / "payouts.log";
    {
        plugin_host payer(CORRIDOR_SPARK_PLUGIN);
        REQUIRE(payer.create(network.config(test_key_hex)).status == CORRIDOR_RAIL_OK);
        for (auto [id, text] :
             {std::pair{"op-paid", paid_text}, std::pair{"op-unpaid", unpaid_text}})
            REQUIRE(payer
                        .initiate(id, CORRIDOR_RAIL_PAYOUT, "LIGHTNING", lightning(text), "BTC", 9,
                                  now_ms)
                        .status == CORRIDOR_RAIL_OK);
    }
    // The crash came after each payout was logged as started and before its outcome was: keep
    // the two "started" lines only. op-paid reached the network; op-unpaid did not (its record
    // is removed, as if the crash came before the payment).
    auto lines = lines_of(log);
    REQUIRE(lines.size() == 4);
    std::vector<std::string> started;
    for (const auto& line : lines)
        if (line.find("\"type\":\"started\"") != std::string::npos) started.push_back(line);
    REQUIRE(started.size() == 2);
    write_lines(log, started);
    std::filesystem::remove(network.path / "payments" / (hash_of(unpaid_text) + ".json"));
    REQUIRE(payment_records(network.path).size() == 1);

    plugin_host restarted(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(restarted.create(network.config(test_key_hex)).status == CORRIDOR_RAIL_OK);
    for (auto [id, text] : {std::pair{"op-paid", paid_text}, std::pair{"op-unpaid", unpaid_text}}) {
        INFO(id);
        REQUIRE(restarted
                    .initiate(id, CORRIDOR_RAIL_PAYOUT, "LIGHTNING", lightning(text), "BTC", 9,
                              now_ms + 1000)
                    .status == CORRIDOR_RAIL_OK);
        auto reports = restarted.reports_of(id);
        REQUIRE(reports.size() == 1);
        // The network's record of this node's same operation counts as its success.
        CHECK(reports[0].outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);
        CHECK(reports[0].rail_reference == hash_of(text));
        CHECK(payer_operation_of(network.path / "payments" / (hash_of(text) + ".json")) == id);
    }
    CHECK(payment_records(network.path).size() == 2);
    // Both outcomes are in the log now: a third run answers without asking the network.
    CHECK(lines_of(log).size() == 4);
}

TEST_CASE("spark plugin: a torn last line is cut, a damaged line stops the rail",
          "[plugins][spark][restart]") {
    scratch_dir state("damaged");
    std::filesystem::path log = state.path / "state" / "payouts.log";
    std::string reference;
    {
        plugin_host host(CORRIDOR_SPARK_PLUGIN);
        REQUIRE(host.create(state.config()).status == CORRIDOR_RAIL_OK);
        REQUIRE(host.initiate("op-1", CORRIDOR_RAIL_PAYOUT, "SPARK_WALLET", test_wallet, "BTC", 5,
                              now_ms)
                    .status == CORRIDOR_RAIL_OK);
        REQUIRE(host.tick(now_ms + 1000).status == CORRIDOR_RAIL_OK);
        reference = host.reports_of("op-1").back().rail_reference;
    }
    auto intact = lines_of(log);
    REQUIRE(intact.size() == 2);

    SECTION("a crash in the middle of an append: the torn line is cut and the rail carries on") {
        // An append that never returned: initiate never answered OK for op-2, nothing was paid.
        write_lines(log, intact, R"({"type":"started","id":"op-2","accountTy)");
        plugin_host host(CORRIDOR_SPARK_PLUGIN);
        REQUIRE(host.create(state.config()).status == CORRIDOR_RAIL_OK);
        bool warned = false;
        for (const auto& line : host.logs)
            warned |= line.find("torn last line") != std::string::npos;
        CHECK(warned);
        REQUIRE(host.initiate("op-1", CORRIDOR_RAIL_PAYOUT, "SPARK_WALLET", test_wallet, "BTC", 5,
                              now_ms)
                    .status == CORRIDOR_RAIL_OK);
        CHECK(host.reports_of("op-1").at(0).outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);
        CHECK(host.reports_of("op-1").at(0).rail_reference == reference);
        // op-2 was never handed over: it starts now, as a new payout.
        REQUIRE(host.initiate("op-2", CORRIDOR_RAIL_PAYOUT, "SPARK_WALLET", test_wallet, "BTC", 6,
                              now_ms)
                    .status == CORRIDOR_RAIL_OK);
        CHECK(host.reports_of("op-2").at(0).outcome == CORRIDOR_RAIL_OUTCOME_PENDING);
        CHECK(lines_of(log).size() == 3);
    }
    SECTION("a complete line that does not read: refused, naming the file and the line") {
        std::vector<std::string> damaged = intact;
        damaged.insert(damaged.begin() + 1, "{\"type\":\"started\",\"id\":\"op-9\"}");
        write_lines(log, damaged);
        plugin_host host(CORRIDOR_SPARK_PLUGIN);
        auto refused = host.create(state.config());
        CHECK(refused.status == CORRIDOR_RAIL_INTERNAL);
        CHECK(refused.error.find("payouts.log line 2 is damaged (no accountType)") !=
              std::string::npos);
        write_lines(log, {intact[0], "not json", intact[1]});
        CHECK(host.create(state.config()).error.find("line 2 is damaged (not a JSON object)") !=
              std::string::npos);
    }
    SECTION("lines that contradict each other: refused") {
        write_lines(log, {intact[1], intact[0]});
        plugin_host host(CORRIDOR_SPARK_PLUGIN);
        auto refused = host.create(state.config());
        CHECK(refused.status == CORRIDOR_RAIL_INTERNAL);
        CHECK(refused.error.find("line 1 is damaged (operation op-1 finished but never started)") !=
              std::string::npos);
        write_lines(log, {intact[0], intact[1], intact[1]});
        CHECK(host.create(state.config()).error.find("op-1 finished twice") != std::string::npos);
        write_lines(log, {intact[0], intact[0]});
        CHECK(host.create(state.config()).error.find("op-1 started twice") != std::string::npos);
    }
}

TEST_CASE("spark plugin: a second instance on the same state folder moves no money",
          "[plugins][spark][restart]") {
    scratch_dir state("locked");
    plugin_host owner(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(owner.create(state.config()).status == CORRIDOR_RAIL_OK);
    plugin_host second(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(second.create(state.config()).status == CORRIDOR_RAIL_OK);  // e.g. `plugins list`
    CHECK(second.validate("SPARK_WALLET", "BTC", test_wallet).status == CORRIDOR_RAIL_OK);
    auto refused = second.initiate("op-x", CORRIDOR_RAIL_PAYOUT, "SPARK_WALLET", test_wallet, "BTC",
                                   5, now_ms);
    CHECK(refused.status == CORRIDOR_RAIL_UNAVAILABLE);
    CHECK(refused.error.find("in use by another process") != std::string::npos);
    CHECK(
        owner.initiate("op-x", CORRIDOR_RAIL_PAYOUT, "SPARK_WALLET", test_wallet, "BTC", 5, now_ms)
            .status == CORRIDOR_RAIL_OK);
}

TEST_CASE("spark plugin: sandbox patterns keep their outcome and deadline across a restart",
          "[plugins][spark][restart]") {
    scratch_dir state("pattern-restart");
    auto by_pattern = pattern_addresses();
    REQUIRE(by_pattern.size() == 2);
    auto wallet = [](const std::string& address) { return "{\"address\":\"" + address + "\"}"; };
    std::vector<corridor::plugin_test::recorded_report> before;
    {
        plugin_host host(CORRIDOR_SPARK_PLUGIN);
        REQUIRE(host.create(state.config()).status == CORRIDOR_RAIL_OK);
        for (const char* tail : {"002", "005"})
            REQUIRE(host.initiate(std::string("op-") + tail, CORRIDOR_RAIL_PAYOUT, "SPARK_WALLET",
                                  wallet(by_pattern.at(tail)), "BTC", 10, now_ms)
                        .status == CORRIDOR_RAIL_OK);
        before = host.reports;
    }
    REQUIRE(before.size() == 2);
    plugin_host host(CORRIDOR_SPARK_PLUGIN);
    REQUIRE(host.create(state.config()).status == CORRIDOR_RAIL_OK);
    // 20 s later, the host retries both: the failure again, and the same wait.
    for (const char* tail : {"002", "005"})
        REQUIRE(host.initiate(std::string("op-") + tail, CORRIDOR_RAIL_PAYOUT, "SPARK_WALLET",
                              wallet(by_pattern.at(tail)), "BTC", 10, now_ms + 20'000)
                    .status == CORRIDOR_RAIL_OK);
    REQUIRE(host.reports.size() == 2);
    CHECK(host.reports[0].outcome == CORRIDOR_RAIL_OUTCOME_FAILED);
    CHECK(host.reports[0].rail_reason_code == "INSUFFICIENT_BALANCE");
    CHECK(host.reports[0].rail_reference == before[0].rail_reference);
    CHECK(host.reports[1].outcome == CORRIDOR_RAIL_OUTCOME_PENDING);
    CHECK(host.reports[1].rail_reference == before[1].rail_reference);
    // The 005 deadline counts from the first initiate (30 s), not from the retry.
    REQUIRE(host.tick(now_ms + 29'999).status == CORRIDOR_RAIL_OK);
    CHECK(host.reports.size() == 2);
    REQUIRE(host.tick(now_ms + 30'000).status == CORRIDOR_RAIL_OK);
    auto timed_out = host.reports_of("op-005").back();
    CHECK(timed_out.outcome == CORRIDOR_RAIL_OUTCOME_FAILED);
    CHECK(timed_out.failure == CORRIDOR_RAIL_FAILURE_TIMEOUT);
    CHECK(timed_out.rail_reference == before[1].rail_reference);
}
