// The pix.so plugin loaded through the ABI.
#include <unistd.h>

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <filesystem>

#include "plugins/pix/br_code.hpp"
#include "plugins/pix/end_to_end_id.hpp"
#include "tests/rails_formats/plugin_host.hpp"

using corridor::plugin_test::plugin_host;

namespace {

namespace fs = std::filesystem;

std::string config_in(const fs::path& dir) {
    return R"({"ispb":"12345678","pix_key":"11222333000181","pix_key_type":"CNPJ","tax_id":"11222333000181",)"
           R"("merchant_name":"CORRIDOR SANDBOX","merchant_city":"SAO PAULO","data_dir":")" +
           dir.string() + R"("})";
}

// A new, empty folder for the rail's state each time.
fs::path fresh_dir() {
    static int made = 0;
    fs::path dir =
        fs::temp_directory_path() /
        ("corridor-pix-plugin-" + std::to_string(::getpid()) + "-" + std::to_string(made++));
    fs::remove_all(dir);
    return dir;
}

std::string fresh_config() {
    return config_in(fresh_dir());
}
const std::string account =
    R"({"accountType":"PIX","pixKey":"fulano@example.com.br","pixKeyType":"EMAIL","taxId":"52998224725"})";
constexpr std::int64_t now_ms = 1773151530000;  // 2026-03-10 14:05:30 UTC

}  // namespace

TEST_CASE("pix plugin: config and account validation", "[plugins][pix]") {
    plugin_host host(CORRIDOR_PIX_PLUGIN);
    CHECK(std::string(host.table().name.ptr, host.table().name.length) == "pix");
    auto bad = host.create(R"({"ispb":"1234","pix_key":"x"})");
    CHECK(bad.status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(bad.error.find("ispb") != std::string::npos);
    CHECK(host.create(R"({"ispb":"12345678","pix_key":"11222333000180","pix_key_type":"CNPJ",)"
                      R"("tax_id":"11222333000181","merchant_name":"A","merchant_city":"B"})")
              .status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    REQUIRE(host.create(fresh_config()).status == CORRIDOR_RAIL_OK);

    auto ok = host.validate("PIX", "BRL", account);
    CHECK(ok.status == CORRIDOR_RAIL_OK);
    CHECK(boost::json::parse(ok.result).as_object()["pixKeyType"] == "EMAIL");
    CHECK(host.validate(
                  "PIX", "",
                  R"({"pixKey":"+5511998765432","pixKeyType":"PHONE","taxId":"11222333000181"})")
              .status == CORRIDOR_RAIL_OK);
    CHECK(
        host.validate(
                "PIX", "",
                R"({"pixKey":"123e4567-e89b-12d3-a456-426655440000","pixKeyType":"RANDOM","taxId":"52998224725"})")
            .status == CORRIDOR_RAIL_OK);

    auto wrong_type = host.validate(
        "PIX", "BRL",
        R"({"pixKey":"fulano@example.com.br","pixKeyType":"CPF","taxId":"52998224725"})");
    CHECK(wrong_type.status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(wrong_type.error.find("pixKey") != std::string::npos);
    auto bad_tax = host.validate(
        "PIX", "BRL",
        R"({"pixKey":"fulano@example.com.br","pixKeyType":"EMAIL","taxId":"52998224726"})");
    CHECK(bad_tax.status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(bad_tax.error.find("taxId") != std::string::npos);
    auto other_holder = host.validate(
        "PIX", "BRL", R"({"pixKey":"29537995593","pixKeyType":"CPF","taxId":"52998224725"})");
    CHECK(other_holder.status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(other_holder.error.find("holder's own tax id") != std::string::npos);
    CHECK(host.validate("PIX", "BRL",
                        R"({"pixKey":"52998224725","pixKeyType":"CPF","taxId":"52998224725"})")
              .status == CORRIDOR_RAIL_OK);
    CHECK(host.validate("PIX", "BRL",
                        R"({"pixKey":"a@b.c","pixKeyType":"IBAN","taxId":"52998224725"})")
              .status == CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(host.validate("PIX", "BRL", R"({"pixKeyType":"EMAIL"})").status ==
          CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(host.validate("PIX", "USD", account).status == CORRIDOR_RAIL_UNSUPPORTED);
    CHECK(host.validate("US_ACCOUNT", "BRL", account).status == CORRIDOR_RAIL_UNSUPPORTED);
}

TEST_CASE("pix plugin: funding instructions carry a valid BR Code", "[plugins][pix]") {
    plugin_host host(CORRIDOR_PIX_PLUGIN);
    REQUIRE(host.create(fresh_config()).status == CORRIDOR_RAIL_OK);
    auto result = host.funding("BRL", 12'345, now_ms, "Quote:0190-ab_cd");
    REQUIRE(result.status == CORRIDOR_RAIL_OK);
    auto info = boost::json::parse(result.result)
                    .as_array()
                    .at(0)
                    .as_object()["accountOrWalletInfo"]
                    .as_object();
    CHECK(info["pixKey"] == "11222333000181");
    auto code = corridor::pix::parse_br_code(std::string(info["brCode"].as_string()));
    REQUIRE(code.ok());
    CHECK(code->pix_key == "11222333000181");
    CHECK(code->amount_cents == 12'345u);
    CHECK(code->txid == "Quote0190abcd");
    CHECK(code->merchant_name == "CORRIDOR SANDBOX");
    auto any_amount = host.funding("BRL", 0, now_ms, "");
    REQUIRE(any_amount.status == CORRIDOR_RAIL_OK);
    auto open = corridor::pix::parse_br_code(std::string(boost::json::parse(any_amount.result)
                                                             .as_array()
                                                             .at(0)
                                                             .as_object()["accountOrWalletInfo"]
                                                             .as_object()["brCode"]
                                                             .as_string()));
    CHECK_FALSE(open->amount_cents.has_value());
    CHECK(open->txid == "***");
    CHECK(host.funding("USD", 1, now_ms, "x").status == CORRIDOR_RAIL_UNSUPPORTED);
}

TEST_CASE("pix plugin: a payout gets an EndToEndId and settles on the next tick",
          "[plugins][pix]") {
    plugin_host host(CORRIDOR_PIX_PLUGIN);
    REQUIRE(host.create(fresh_config()).status == CORRIDOR_RAIL_OK);
    REQUIRE(
        host.initiate("op-1", CORRIDOR_RAIL_PAYOUT, "PIX", account, "BRL", 5'000, now_ms).status ==
        CORRIDOR_RAIL_OK);
    auto pending = host.reports_of("op-1");
    REQUIRE(pending.size() == 1);
    CHECK(pending[0].outcome == CORRIDOR_RAIL_OUTCOME_PENDING);
    const std::string e2e = pending[0].rail_reference;
    CHECK(corridor::pix::check_end_to_end_id(e2e).ok());
    CHECK(e2e.substr(0, 21) == "E12345678202603101405");
    // A retry keeps the same EndToEndId.
    REQUIRE(
        host.initiate("op-1", CORRIDOR_RAIL_PAYOUT, "PIX", account, "BRL", 5'000, now_ms).status ==
        CORRIDOR_RAIL_OK);
    CHECK(host.reports_of("op-1").back().rail_reference == e2e);

    CHECK(host.initiate("op-pull", CORRIDOR_RAIL_PULL, "PIX", account, "BRL", 1, now_ms).status ==
          CORRIDOR_RAIL_UNSUPPORTED);
    CHECK(host.initiate("op-usd", CORRIDOR_RAIL_PAYOUT, "PIX", account, "USD", 1, now_ms).status ==
          CORRIDOR_RAIL_UNSUPPORTED);
    CHECK(host.initiate("op-zero", CORRIDOR_RAIL_PAYOUT, "PIX", account, "BRL", 0, now_ms).status ==
          CORRIDOR_RAIL_INVALID_ARGUMENT);
    CHECK(
        host.initiate("op-bad", CORRIDOR_RAIL_PAYOUT, "PIX", R"({"pixKey":"x"})", "BRL", 1, now_ms)
            .status == CORRIDOR_RAIL_INVALID_ARGUMENT);

    REQUIRE(host.tick(now_ms + 1000).status == CORRIDOR_RAIL_OK);
    auto settled = host.reports_of("op-1").back();
    CHECK(settled.outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);
    CHECK(settled.rail_reference == e2e);
    CHECK(host.reports_of("op-pull").empty());
    // Two payouts never share an EndToEndId.
    REQUIRE(
        host.initiate("op-2", CORRIDOR_RAIL_PAYOUT, "PIX", account, "BRL", 5'000, now_ms).status ==
        CORRIDOR_RAIL_OK);
    CHECK(host.reports_of("op-2").back().rail_reference != e2e);
}

TEST_CASE("pix plugin: after a restart a retry gets the same EndToEndId and settles",
          "[plugins][pix]") {
    fs::path dir = fresh_dir();
    std::string e2e;
    {
        plugin_host host(CORRIDOR_PIX_PLUGIN);
        REQUIRE(host.create(config_in(dir)).status == CORRIDOR_RAIL_OK);
        REQUIRE(host.initiate("op-1", CORRIDOR_RAIL_PAYOUT, "PIX", account, "BRL", 5'000, now_ms)
                    .status == CORRIDOR_RAIL_OK);
        e2e = host.reports_of("op-1").at(0).rail_reference;
        // A second instance on the folder (a `plugins list` beside the server) pays nothing.
        plugin_host other(CORRIDOR_PIX_PLUGIN);
        REQUIRE(other.create(config_in(dir)).status == CORRIDOR_RAIL_OK);
        CHECK(
            other.initiate("op-2", CORRIDOR_RAIL_PAYOUT, "PIX", account, "BRL", 1, now_ms).status ==
            CORRIDOR_RAIL_UNAVAILABLE);
    }  // gone before SPI's answer was reported
    plugin_host restarted(CORRIDOR_PIX_PLUGIN);
    REQUIRE(restarted.create(config_in(dir)).status == CORRIDOR_RAIL_OK);
    REQUIRE(
        restarted
            .initiate("op-1", CORRIDOR_RAIL_PAYOUT, "PIX", account, "BRL", 5'000, now_ms + 60'000)
            .status == CORRIDOR_RAIL_OK);
    CHECK(restarted.reports_of("op-1").at(0).rail_reference == e2e);
    REQUIRE(restarted.tick(now_ms + 61'000).status == CORRIDOR_RAIL_OK);
    CHECK(restarted.reports_of("op-1").back().outcome == CORRIDOR_RAIL_OUTCOME_SETTLED);
    CHECK(restarted.reports_of("op-1").back().rail_reference == e2e);
    fs::remove_all(dir);
}
