// BOLT #11: every example of lightning/bolts 11-payment-encoding.md (valid and invalid) and our
// own invoices round-tripped through the decoder.
#include "rails/rail_sdk/lightning/bolt11.hpp"

#include <openssl/sha.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "rails/rail_sdk/formats/text.hpp"
#include "rails/rail_sdk/lightning/bech32.hpp"

using namespace corridor::lightning;
using corridor::formats::hex_encode;

namespace {

const std::string spec_payee = "03e7156ae33b0a208d0744199163177e909e80176e55d97a2f221ede0f934dd9ad";
const std::string spec_hash = "0001020304050607080900010203040506070809000102030405060708090102";
const std::string spec_secret = "1111111111111111111111111111111111111111111111111111111111111111";
const std::string cake_hash = "3925b6f67e2c340036ed12093dd44e0368df1b6ea26c53dbe4811f58fd5db8c1";
constexpr std::uint64_t spec_timestamp = 1496314658;

const std::string donation =
    "lnbc1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcy"
    "q5"
    "rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5kgetjypeh2ursdae8g6twvus8g6rfwvs8qun0dfjkxaq9q"
    "rs"
    "gq357wnc5r2ueh7ck6q93dj32dlqnls087fxdwk8qakdyafkq3yap9us6v52vjjsrvywa6rt52cm9r9zqt8r2t7mlcwspy"
    "et"
    "p5h2tztugp9lfyql";
const std::string coffee =
    "lnbc2500u1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqq"
    "sy"
    "qcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpu9qrsgquk0rl77nj30yxdy8j9vdx85fkpmdl"
    "a2"
    "087ne0xh8nhedh8w27kyke0lp53ut353s06fv3qfegext0eh0ymjpf39tuven09sam30g4vgpfna3rh";
const std::string nonsense =
    "lnbc2500u1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqq"
    "sy"
    "qcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpquwpc4curk03c9wlrswe78q4eyqc7d8d0xqzpu9qrsgqhtjpauu9ur7fw2thc"
    "l4"
    "y9vfvh4m9wlfyz2gem29g5ghe2aak2pm3ps8fdhtceqsaagty2vph7utlgj48u0ged6a337aewvraedendscp573dxr";
const std::string hashed =
    "lnbc20m1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsy"
    "qc"
    "yq5rqwzqfqqqsyqcyq5rqwzqfqypqhp58yjmdan79s6qqdhdzgynm4zwqd5d7xmw5fk98klysy043l2ahrqs9qrsgq7ea9"
    "76"
    "txfraylvgzuxs8kgcw23ezlrszfnh8r6qtfpr6cxga50aj6txm9rxrydzd06dfeawfk6swupvz4erwnyutnjq7x39ymw6j"
    "38g"
    "p7ynn44";
const std::string testnet_p2pkh =
    "lntb20m1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygshp58yjmdan79s6qqdhdzgynm"
    "4z"
    "wqd5d7xmw5fk98klysy043l2ahrqspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqfpp3x9et2e"
    "20"
    "v6pu37c5d9vax37wxq72un989qrsgqdj545axuxtnfemtpwkc45hx9d2ft7x04mt8q7y6t0k2dge9e7h8kpy9p34ytyslj"
    "3y"
    "u569aalz2xdk8xkd7ltxqld94u8h2esmsmacgpghe9k8";
const std::string mainnet_routes =
    "lnbc20m1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsy"
    "qc"
    "yq5rqwzqfqqqsyqcyq5rqwzqfqypqhp58yjmdan79s6qqdhdzgynm4zwqd5d7xmw5fk98klysy043l2ahrqsfpp3qjmp7l"
    "wp"
    "agxun9pygexvgpjdc4jdj85fr9yq20q82gphp2nflc7jtzrcazrra7wwgzxqc8u7754cdlpfrmccae92qgzqvzq2ps8pqq"
    "qq"
    "qqpqqqqq9qqqvpeuqafqxu92d8lr6fvg0r5gv0heeeqgcrqlnm6jhphu9y00rrhy4grqszsvpcgpy9qqqqqqgqqqqq7qqz"
    "q9"
    "qrsgqdfjcdk6w3ak5pca9hwfwfh63zrrz06wwfya0ydlzpgzxkn5xagsqz7x9j4jwe7yj7vaf2k9lqsdk45kts2fd0fkr2"
    "8a"
    "m0u4w95tt2nsq76cqw0";
const std::string p2sh =
    "lnbc20m1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygshp58yjmdan79s6qqdhdzgynm"
    "4z"
    "wqd5d7xmw5fk98klysy043l2ahrqspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqfppj3a24vw"
    "u6"
    "r8ejrss3axul8rxldph2q7z99qrsgqz6qsgww34xlatfj6e3sngrwfy3ytkt29d2qttr8qz2mnedfqysuqypgqex4haa2h"
    "8f"
    "x3wnypranf3pdwyluftwe680jjcfp438u82xqphf75ym";
const std::string p2wpkh =
    "lnbc20m1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygshp58yjmdan79s6qqdhdzgynm"
    "4z"
    "wqd5d7xmw5fk98klysy043l2ahrqspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqfppqw508d6"
    "qe"
    "jxtdg4y5r3zarvary0c5xw7k9qrsgqt29a0wturnys2hhxpner2e3plp6jyj8qx7548zr2z7ptgjjc7hljm98xhjym0dg5"
    "2s"
    "drvqamxdezkmqg4gdrvwwnf0kv2jdfnl4xatsqmrnsse";
const std::string p2wsh =
    "lnbc20m1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygshp58yjmdan79s6qqdhdzgynm"
    "4z"
    "wqd5d7xmw5fk98klysy043l2ahrqspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqfp4qrp33g0"
    "q5"
    "c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q9qrsgq9vlvyj8cqvq6ggvpwd53jncp9nwc47xlrsnenq2zp70f"
    "q8"
    "3qlgesn4u3uyf4tesfkkwwfg3qs54qe426hp3tz7z6sweqdjg05axsrjqp9yrrwc";
const std::string p2tr =
    "lnbc20m1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsy"
    "qc"
    "yq5rqwzqfqqqsyqcyq5rqwzqfqypqhp58yjmdan79s6qqdhdzgynm4zwqd5d7xmw5fk98klysy043l2ahrqsfp4pptdvg0"
    "d2"
    "nj99568qn6ssdy4cygnwuxgw2ukmnwgwz7jpqjz2kszs9qrsgqy606dznq28exnydt2r4c29y56xjtn3sk4mhgjtl4pg2y"
    "4a"
    "r3249rq4ajlmj9jy8zvlzw7cr8mggqzm842xfr0v72rswzq9xvr4hknfsqwmn6xd";
const std::string pico =
    "lnbc9678785340p1pwmna7lpp5gc3xfm08u9qy06djf8dfflhugl6p7lgza6dsjxq454gxhj9t7a0sd8dgfkx7cmtwd68y"
    "et"
    "pd5s9xar0wfjn5gpc8qhrsdfq24f5ggrxdaezqsnvda3kkum5wfjkzmfqf3jkgem9wgsyuctwdus9xgrcyqcjcgpzgfskx"
    "6e"
    "qf9hzqnteypzxz7fzypfhg6trddjhygrcyqezcgpzfysywmm5ypxxjemgw3hxjmn8yptk7untd9hxwg3q2d6xjcmtv4ezq"
    "7p"
    "qxgsxzmnyyqcjqmt0wfjjq6t5v4khxsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygsxqyjw5qcq"
    "p"
    "2rzjq0gxwkzc8w6323m55m4jyxcjwmy7stt9hwkwe2qxmy8zpsgg7jcuwz87fcqqeuqqqyqqqqlgqqqqn3qq9q9qrsgqrv"
    "gk"
    "pnmps664wgkp43l22qsgdw4ve24aca4nymnxddlnp8vh9v2sdxlu5ywdxefsfvm0fq3sesf08uf6q9a2ke0hc9j6z6wlxg"
    "5z"
    "5kqpu2v9wz";
const std::string beans =
    "lnbc25m1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5vdhkven9v5sxyetpdeess"
    "p5"
    "zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygs9q5sqqqqqqqqqqqqqqqqsgq2a25dxl5hrntdtn6zvy"
    "dt"
    "7d66hyzsyhqs4wdynavys42xgl6sgx9c4g7me86a27t07mdtfry458rtjr0v92cnmswpsjscgt2vcse3sgpz3uapa";
const std::string beans_upper =
    "LNBC25M1PVJLUEZPP5QQQSYQCYQ5RQWZQFQQQSYQCYQ5RQWZQFQQQSYQCYQ5RQWZQFQYPQDQ5VDHKVEN9V5SXYETPDEESS"
    "P5"
    "ZYG3ZYG3ZYG3ZYG3ZYG3ZYG3ZYG3ZYG3ZYG3ZYG3ZYG3ZYG3ZYGS9Q5SQQQQQQQQQQQQQQQQSGQ2A25DXL5HRNTDTN6ZVY"
    "DT"
    "7D66HYZSYHQS4WDYNAVYS42XGL6SGX9C4G7ME86A27T07MDTFRY458RTJR0V92CNMSWPSJSCGT2VCSE3SGPZ3UAPA";
const std::string beans_ignored_fields =
    "lnbc25m1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5vdhkven9v5sxyetpdeess"
    "p5"
    "zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygs9q5sqqqqqqqqqqqqqqqqsgq2qrqqqfppnqqqqqqqqq"
    "qq"
    "qqqqqqqqqqqqqqqqqqqqqppnqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqpp4qqqqqqqqqqqqqqqq"
    "qq"
    "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqhpnqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqhp4qq"
    "qq"
    "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqspnqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"
    "qq"
    "qqqqqqqsp4qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqnp5qqqqqqqqqqqqqqqqqqqqqqqqqqqq"
    "qq"
    "qqqqqqqqqqqqqqqqqqqqqqnpkqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqz599y53s3ujmcfj"
    "p5"
    "xrdap68qxymkqphwsexhmhr8wdz5usdzkzrse33chw6dlp3jhuhge9ley7j2ayx36kawe7kmgg8sv5ugdyusdcqzn8z9x";
const std::string metadata =
    "lnbc10m1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdp9wpshjmt9de6zqmt9w3skg"
    "ct5"
    "vysxjmnnd9jx2mq8q8a04uqsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygs9q2gqqqqqqsgq7hf"
    "8he"
    "7ecf7n4ffphs6awl9t6676rrclv9ckg3d3ncn7fct63p6s365duk5wrk202cfy3aj5xnnp5gs3vrdvruverwwq7yzhkf5a"
    "3xq"
    "pd05wjc";
const std::string high_s_recovery =
    "lnbc1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcy"
    "q5"
    "rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5kgetjypeh2ursdae8g6twvus8g6rfwvs8qun0dfjkxaq9q"
    "rs"
    "gq357wnc5r2ueh7ck6q93dj32dlqnls087fxdwk8qakdyafkq3yap2r09nt4ndd0unm3z9u5t48y6ucv4r5sg7lk98c77c"
    "tv"
    "jczkspk5qprc90gx";

bytes32 spec_private_key() {
    std::vector<std::uint8_t> bytes;
    corridor::formats::hex_decode(
        "e126f68f7eafcc8b74f54d269fe206be715000f94dac067d1c04a8ca3b2db734", bytes);
    bytes32 key{};
    std::copy(bytes.begin(), bytes.end(), key.begin());
    return key;
}

bytes32 bytes32_of(const std::string& hex) {
    std::vector<std::uint8_t> bytes;
    REQUIRE(corridor::formats::hex_decode(hex, bytes));
    REQUIRE(bytes.size() == 32);
    bytes32 out{};
    std::copy(bytes.begin(), bytes.end(), out.begin());
    return out;
}

decoded_invoice decode_ok(const std::string& text, decode_options options = {}) {
    auto decoded = decode_invoice(text, options);
    INFO(text);
    if (!decoded) FAIL(decoded.error().code + ": " + decoded.error().message);
    return decoded.value();
}

std::string decode_error(const std::string& text) {
    auto decoded = decode_invoice(text);
    INFO(text);
    REQUIRE_FALSE(decoded.ok());
    return decoded.error().code;
}

void check_spec_common(const decoded_invoice& invoice) {
    CHECK(hex_encode(invoice.payee) == spec_payee);
    CHECK(hex_encode(invoice.fields.payment_secret) == spec_secret);
    CHECK(invoice.fields.timestamp == spec_timestamp);
}

}  // namespace

TEST_CASE("bolt11: donation vector, no amount, signing hash as in the spec", "[bolt11]") {
    auto invoice = decode_ok(donation);
    check_spec_common(invoice);
    CHECK(invoice.fields.network == ln_network::mainnet);
    CHECK_FALSE(invoice.fields.amount_msat.has_value());
    CHECK(hex_encode(invoice.fields.payment_hash) == spec_hash);
    CHECK(invoice.fields.description == "Please consider supporting this project");
    CHECK(invoice.fields.expiry_seconds == 3600);
    CHECK(invoice.fields.min_final_cltv_expiry_delta == 18);
    CHECK(invoice.fields.feature_bits == std::vector<unsigned>{8, 14});
    CHECK(hex_encode(invoice.signing_hash) ==
          "6daf4d488be41ce7cbb487cab1ef2975e5efcea879b20d421f0ef86b07cbb987");
    CHECK(invoice.recovery_id == 1);
    CHECK(hex_encode(invoice.signature).substr(0, 16) == "8d3ce9e28357337f");
    CHECK_FALSE(invoice.fields.explicit_payee);
}

TEST_CASE("bolt11: coffee and nonsense vectors carry amount, UTF-8 description, expiry",
          "[bolt11]") {
    auto cup = decode_ok(coffee);
    check_spec_common(cup);
    CHECK(cup.fields.amount_msat == 250'000'000u);
    CHECK(cup.fields.description == "1 cup coffee");
    CHECK(cup.fields.expiry_seconds == 60);

    auto other = decode_ok(nonsense);
    check_spec_common(other);
    CHECK(other.fields.amount_msat == 250'000'000u);
    CHECK(other.fields.description == "ナンセンス 1杯");
    CHECK(other.fields.expiry_seconds == 60);
}

TEST_CASE("bolt11: hashed description and fallback vectors", "[bolt11]") {
    auto cake = decode_ok(hashed);
    check_spec_common(cake);
    CHECK(cake.fields.amount_msat == 2'000'000'000u);
    CHECK_FALSE(cake.fields.description.has_value());
    REQUIRE(cake.fields.description_hash.has_value());
    CHECK(hex_encode(*cake.fields.description_hash) == cake_hash);

    struct expected_fallback {
        const std::string* text;
        ln_network network;
        std::uint8_t version;
        std::string program;
    };
    const expected_fallback cases[] = {
        {&testnet_p2pkh, ln_network::testnet, 17, "3172b5654f6683c8fb146959d347ce303cae4ca7"},
        {&p2sh, ln_network::mainnet, 18, "8f55563b9a19f321c211e9b9f38cdf686ea07845"},
        {&p2wpkh, ln_network::mainnet, 0, "751e76e8199196d454941c45d1b3a323f1433bd6"},
        {&p2wsh, ln_network::mainnet, 0,
         "1863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262"},
    };
    for (const auto& expected : cases) {
        auto invoice = decode_ok(*expected.text);
        check_spec_common(invoice);
        CHECK(invoice.fields.network == expected.network);
        CHECK(invoice.fields.amount_msat == 2'000'000'000u);
        CHECK(hex_encode(*invoice.fields.description_hash) == cake_hash);
        REQUIRE(invoice.fields.fallbacks.size() == 1);
        CHECK(invoice.fields.fallbacks[0].version == expected.version);
        CHECK(hex_encode(invoice.fields.fallbacks[0].program) == expected.program);
    }
    auto taproot = decode_ok(p2tr);
    check_spec_common(taproot);
    REQUIRE(taproot.fields.fallbacks.size() == 1);
    CHECK(taproot.fields.fallbacks[0].version == 1);
    CHECK(taproot.fields.fallbacks[0].program.size() == 32);
    CHECK(hex_encode(taproot.signing_hash) ==
          "116fdb0f18352c886deb263f6466eb40e5e6518b80231a1f9df86088bfa48043");
}

TEST_CASE("bolt11: route hints vector", "[bolt11]") {
    auto invoice = decode_ok(mainnet_routes);
    check_spec_common(invoice);
    REQUIRE(invoice.fields.fallbacks.size() == 1);
    CHECK(invoice.fields.fallbacks[0].version == 17);
    CHECK(hex_encode(invoice.fields.fallbacks[0].program) ==
          "04b61f7dc1ea0dc99424464cc4064dc564d91e89");
    REQUIRE(invoice.fields.routes.size() == 1);
    const auto& route = invoice.fields.routes[0];
    REQUIRE(route.size() == 2);
    CHECK(hex_encode(route[0].pubkey) ==
          "029e03a901b85534ff1e92c43c74431f7ce72046060fcf7a95c37e148f78c77255");
    CHECK(route[0].short_channel_id == 0x0102030405060708u);
    CHECK(route[0].fee_base_msat == 1);
    CHECK(route[0].fee_proportional_millionths == 20);
    CHECK(route[0].cltv_expiry_delta == 3);
    CHECK(hex_encode(route[1].pubkey) ==
          "039e03a901b85534ff1e92c43c74431f7ce72046060fcf7a95c37e148f78c77255");
    CHECK(route[1].short_channel_id == 0x030405060708090au);
    CHECK(route[1].fee_base_msat == 2);
    CHECK(route[1].fee_proportional_millionths == 30);
    CHECK(route[1].cltv_expiry_delta == 4);
}

TEST_CASE("bolt11: pico-BTC amount vector", "[bolt11]") {
    auto invoice = decode_ok(pico);
    CHECK(hex_encode(invoice.payee) == spec_payee);
    CHECK(invoice.fields.amount_msat == 967'878'534u);
    CHECK(invoice.fields.timestamp == 1572468703);
    CHECK(hex_encode(invoice.fields.payment_hash) ==
          "462264ede7e14047e9b249da94fefc47f41f7d02ee9b091815a5506bc8abf75f");
    CHECK(invoice.fields.description ==
          "Blockstream Store: 88.85 USD for Blockstream Ledger Nano S x 1, \"Back In My Day\" "
          "Sticker x 2, \"I Got Lightning Working\" Sticker x 2 and 1 more items");
    CHECK(invoice.fields.expiry_seconds == 604800);
    CHECK(invoice.fields.min_final_cltv_expiry_delta == 10);
    REQUIRE(invoice.fields.routes.size() == 1);
    REQUIRE(invoice.fields.routes[0].size() == 1);
    const auto& hop = invoice.fields.routes[0][0];
    CHECK(hex_encode(hop.pubkey) ==
          "03d06758583bb5154774a6eb221b1276c9e82d65bbaceca806d90e20c108f4b1c7");
    CHECK(hop.short_channel_id == ((589390ull << 40) | (3312ull << 16) | 1));
    CHECK(hop.fee_base_msat == 1000);
    CHECK(hop.fee_proportional_millionths == 2500);
    CHECK(hop.cltv_expiry_delta == 40);
}

TEST_CASE("bolt11: feature 99 (odd, unknown) is ignored; upper case decodes the same", "[bolt11]") {
    auto lower = decode_ok(beans);
    auto upper = decode_ok(beans_upper);
    for (const auto* invoice : {&lower, &upper}) {
        check_spec_common(*invoice);
        CHECK(invoice->fields.amount_msat == 2'500'000'000u);
        CHECK(invoice->fields.description == "coffee beans");
        CHECK(invoice->fields.feature_bits == std::vector<unsigned>{8, 14, 99});
    }
    CHECK(upper.signing_hash == lower.signing_hash);
}

TEST_CASE("bolt11: the 'fields which must be ignored' vector follows the 2025 reader rule",
          "[bolt11]") {
    // lightning/bolts PR #1243 turned wrong-length p/h/s/n fields from "skip" into "fail"; the
    // vector predates it. Current readers refuse it; the legacy option reads it as before.
    CHECK(decode_error(beans_ignored_fields) == "bad_field_length");
    auto legacy = decode_ok(beans_ignored_fields, decode_options{.skip_wrong_length_fields = true});
    check_spec_common(legacy);
    CHECK(hex_encode(legacy.fields.payment_hash) == spec_hash);
    CHECK(legacy.fields.description == "coffee beans");
    CHECK(legacy.fields.amount_msat == 2'500'000'000u);
    CHECK(legacy.fields.fallbacks.empty());  // its f field has the unknown version 19
    CHECK(legacy.fields.feature_bits == std::vector<unsigned>{8, 14, 99});
}

TEST_CASE("bolt11: payment metadata vector", "[bolt11]") {
    auto invoice = decode_ok(metadata);
    check_spec_common(invoice);
    CHECK(invoice.fields.amount_msat == 1'000'000'000u);
    CHECK(invoice.fields.description == "payment metadata inside");
    REQUIRE(invoice.fields.metadata.has_value());
    CHECK(hex_encode(*invoice.fields.metadata) == "01fafaf0");
    CHECK(invoice.fields.feature_bits == std::vector<unsigned>{8, 14, 48});
}

TEST_CASE("bolt11: high-S signature without n recovers the right payee", "[bolt11]") {
    auto invoice = decode_ok(high_s_recovery);
    check_spec_common(invoice);
    CHECK(invoice.fields.description == "Please consider supporting this project");
    CHECK(invoice.signing_hash == decode_ok(donation).signing_hash);
}

TEST_CASE("bolt11: every invalid spec vector is refused with its reason", "[bolt11]") {
    struct invalid_case {
        const char* title;
        std::string text;
        std::string code;
    };
    const invalid_case cases[] = {
        {"unknown feature 100",
         "lnbc25m1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5vdhkven9v5sxyetp"
         "dee"
         "ssp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygs9q4psqqqqqqqqqqqqqqqqsgqtqyx5vggf"
         "csll"
         "4wu246hz02kp85x4katwsk9639we5n5yngc3yhqkm35jnjw4len8vrnqnf5ejh0mzj9n3vz2px97evektfm2l6wqc"
         "cp3y"
         "7372",
         "unknown_required_feature"},
        {"bech32 checksum invalid",
         "lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpquwpc4curk03c9w"
         "lrsw"
         "e78q4eyqc7d8d0xqzpuyk0sg5g70me25alkluzd2x62aysf2pyy8edtjeevuv4p2d5p76r4zkmneet7uvyakky2zr"
         "4cus"
         "d45tftc9c5fh0nnqpnl2jfll544esqchsrnt",
         "bad_checksum"},
        {"no separator",
         "pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpquwpc4curk03c9wlrswe78q4e"
         "yqc7"
         "d8d0xqzpuyk0sg5g70me25alkluzd2x62aysf2pyy8edtjeevuv4p2d5p76r4zkmneet7uvyakky2zr4cusd45tft"
         "c9c5"
         "fh0nnqpnl2jfll544esqchsrny",
         "no_separator"},
        {"mixed case",
         "LNBC2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpquwpc4curk03c9w"
         "lrsw"
         "e78q4eyqc7d8d0xqzpuyk0sg5g70me25alkluzd2x62aysf2pyy8edtjeevuv4p2d5p76r4zkmneet7uvyakky2zr"
         "4cus"
         "d45tftc9c5fh0nnqpnl2jfll544esqchsrny",
         "mixed_case"},
        {"signature not recoverable",
         "lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7e"
         "nxv4"
         "jsxqzpusp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygs9qrsgqwgt7mcn5yqw3yx0w94psw"
         "kpq6"
         "j9uh6xfqqqtsk4tnarugeektd4hg5975x9am52rz4qskukxdmjemg92vvqz8nvmsye63r5ykel43pgz7zq0g2",
         "signature_not_recoverable"},
        {"string too short",
         "lnbc1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5"
         "kget"
         "jypeh2ursdae8g6na6hlh",
         "too_short"},
        {"invalid multiplier",
         "lnbc2500x1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7e"
         "nxv4"
         "jsxqzpusp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygs9qrsgqrrzc4cvfue4zp3hggxp47"
         "ag7x"
         "nrlr8vgcmkjxk3j5jqethnumgkpqp23z9jclu3v0a7e0aruz366e9wqdykw6dxhdzcjjhldxq0w6wgqcnu43j",
         "bad_multiplier"},
        {"sub-millisatoshi precision",
         "lnbc2500000001p1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxats"
         "yp3k"
         "7enxv4jsxqzpusp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygs9qrsgq0lzc236j96a95uv"
         "0m3u"
         "mg28gclm5lqxtqqwk32uuk4k6673k6n5kfvx3d2h8s295fad45fdhmusm8sjudfhlf6dcsxmfvkeywmjdkxcp9920"
         "2x",
         "sub_millisatoshi"},
        {"missing s field",
         "lnbc20m1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqhp58yjmdan79s6qqdhd"
         "zgyn"
         "m4zwqd5d7xmw5fk98klysy043l2ahrqs9qrsgq7ea976txfraylvgzuxs8kgcw23ezlrszfnh8r6qtfpr6cxga50a"
         "j6t"
         "xm9rxrydzd06dfeawfk6swupvz4erwnyutnjq7x39ymw6j38gp49qdkj",
         "missing_payment_secret"},
        {"high-S with n field",
         "lnbc25m1p70xwfzpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmw"
         "wd5k"
         "getjypeh2ursdae8g6twvus8g6rfwvs8qun0dfjkxaqnp4q0n326hr8v9zprg8gsvezcch06gfaqqhde2aj730yg0"
         "dur"
         "unfhv66sp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygs9qrsgqsp5zyg3zyg3zyg3zyg3zy"
         "g3z"
         "yg3zyg3zyg3zyg3zyg3zyg3zyg3zygsp5cfzp9ugllvk03rltd6hvndxj26ux6gcxc5azyxk060rj9tzghct5zvjl"
         "ps7"
         "6gx8wpq5yuu79688k8gnm2c0al6v608s96l0xzrrlqqwnzxmu",
         "high_s_signature"},
    };
    for (const auto& invalid : cases) {
        INFO(invalid.title);
        CHECK(decode_error(invalid.text) == invalid.code);
    }
}

TEST_CASE("bolt11: signing reproduces spec vectors 1-4 byte for byte", "[bolt11]") {
    for (const std::string* vector : {&donation, &coffee, &nonsense, &hashed}) {
        auto decoded = decode_ok(*vector);
        auto encoded = encode_invoice(decoded.fields, spec_private_key());
        REQUIRE(encoded.ok());
        CHECK(encoded.value() == *vector);
    }
}

TEST_CASE("bolt11: our invoices round-trip with every field kind", "[bolt11]") {
    invoice_fields fields;
    fields.network = ln_network::regtest;
    fields.amount_msat = 1'500'000;
    fields.timestamp = 1700000000;
    fields.payment_hash = bytes32_of(spec_hash);
    fields.payment_secret = bytes32_of(spec_secret);
    fields.description = "sandbox payout";
    fields.expiry_seconds = 600;
    fields.min_final_cltv_expiry_delta = 40;
    fields.metadata = std::vector<std::uint8_t>{1, 2, 3};
    fields.fallbacks.push_back({0, std::vector<std::uint8_t>(20, 0xab)});
    route_hop hop;
    hop.pubkey[0] = 0x02;
    std::copy_n(bytes32_of(cake_hash).begin(), 32, hop.pubkey.begin() + 1);
    hop.short_channel_id = 123456789;
    hop.fee_base_msat = 1000;
    hop.fee_proportional_millionths = 1;
    hop.cltv_expiry_delta = 144;
    fields.routes.push_back({hop});
    fields.feature_bits = {8, 14, 17};
    fields.explicit_payee = true;

    auto text = encode_invoice(fields, spec_private_key());
    REQUIRE(text.ok());
    CHECK(text->rfind("lnbcrt15u1", 0) == 0);
    auto back = decode_ok(text.value());
    CHECK(hex_encode(back.payee) == spec_payee);
    CHECK(back.fields.explicit_payee);
    CHECK(back.fields.amount_msat == fields.amount_msat);
    CHECK(back.fields.timestamp == fields.timestamp);
    CHECK(back.fields.description == fields.description);
    CHECK(back.fields.expiry_seconds == 600);
    CHECK(back.fields.min_final_cltv_expiry_delta == 40);
    CHECK(back.fields.metadata == fields.metadata);
    REQUIRE(back.fields.fallbacks.size() == 1);
    CHECK(back.fields.fallbacks[0].program == fields.fallbacks[0].program);
    REQUIRE(back.fields.routes.size() == 1);
    CHECK(back.fields.routes[0][0].short_channel_id == 123456789);
    CHECK(back.fields.routes[0][0].cltv_expiry_delta == 144);
    CHECK(back.fields.feature_bits == fields.feature_bits);
    // Our signatures are always low-S, which the n field requires.
    std::uint8_t s_high_byte = back.signature[32];
    CHECK(s_high_byte < 0x80);
}

TEST_CASE("bolt11: tampering breaks the signature or the checksum", "[bolt11]") {
    invoice_fields fields;
    fields.amount_msat = 10'000;
    fields.timestamp = 1700000000;
    fields.payment_hash = bytes32_of(spec_hash);
    fields.payment_secret = bytes32_of(spec_secret);
    fields.description = "x";
    fields.feature_bits = {8, 14};
    fields.explicit_payee = true;
    auto text = encode_invoice(fields, spec_private_key()).value();
    std::string changed = text;
    changed[20] = changed[20] == 'q' ? 'p' : 'q';
    CHECK_FALSE(decode_invoice(changed).ok());
    // Same fields signed by another key but carrying our n field: the signature no longer matches.
    bytes32 other_key = spec_private_key();
    other_key[31] ^= 1;
    fields.explicit_payee = false;
    auto other = decode_ok(encode_invoice(fields, other_key).value());
    CHECK(hex_encode(other.payee) != spec_payee);
}

TEST_CASE("bolt11: amounts and encoder refusals", "[bolt11]") {
    CHECK(encode_amount(250'000'000) == "2500u");
    CHECK(encode_amount(2'000'000'000) == "20m");
    CHECK(encode_amount(967'878'534) == "9678785340p");
    CHECK(encode_amount(100'000'000'000) == "1");
    CHECK(encode_amount(1'500) == "15n");

    invoice_fields fields;
    fields.payment_hash = bytes32_of(spec_hash);
    fields.payment_secret = bytes32_of(spec_secret);
    CHECK(encode_invoice(fields, spec_private_key()).error().code == "bad_description");
    fields.description = "ok";
    fields.description_hash = bytes32_of(cake_hash);
    CHECK(encode_invoice(fields, spec_private_key()).error().code == "bad_description");
    fields.description_hash.reset();
    fields.description = std::string(640, 'a');
    CHECK(encode_invoice(fields, spec_private_key()).error().code == "bad_description");
    fields.description = "ok";
    fields.amount_msat = 0;
    CHECK(encode_invoice(fields, spec_private_key()).error().code == "bad_amount");
    fields.amount_msat.reset();
    CHECK(encode_invoice(fields, bytes32{}).error().code == "bad_private_key");
    fields.timestamp = 1ull << 35;
    CHECK(encode_invoice(fields, spec_private_key()).error().code == "bad_timestamp");
}

namespace {

// An invoice with hand-made tagged fields and an all-zero signature: field errors are found before
// the signature is looked at, so this isolates the field rules.
std::string raw_invoice(const std::string& hrp,
                        const std::vector<std::vector<std::uint8_t>>& fields,
                        bech32_variant variant = bech32_variant::bech32) {
    std::vector<std::uint8_t> words(7, 1);  // timestamp
    for (const auto& field : fields) words.insert(words.end(), field.begin(), field.end());
    words.insert(words.end(), 104, 0);
    return bech32_encode(hrp, words, variant);
}

std::vector<std::uint8_t> field(std::uint8_t type, std::vector<std::uint8_t> data) {
    data.insert(data.begin(), {type, static_cast<std::uint8_t>(data.size() >> 5),
                               static_cast<std::uint8_t>(data.size() & 31)});
    return data;
}

std::vector<std::uint8_t> hash_field(std::uint8_t type, std::uint8_t fill) {
    bytes32 value{};
    value.fill(fill);
    return field(type, bytes_to_words(value.data(), value.size()));
}

std::vector<std::uint8_t> text_field(std::string_view text) {
    return field(13,
                 bytes_to_words(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

const std::vector<std::uint8_t> d_field = text_field("hello");
const std::vector<std::uint8_t> p_field = hash_field(1, 0x01);
const std::vector<std::uint8_t> s_field = hash_field(16, 0x11);

std::string raw_error(const std::string& hrp, const std::vector<std::vector<std::uint8_t>>& fields,
                      bech32_variant variant = bech32_variant::bech32) {
    auto decoded = decode_invoice(raw_invoice(hrp, fields, variant));
    REQUIRE_FALSE(decoded.ok());
    return decoded.error().code;
}

}  // namespace

TEST_CASE("bolt11: field rules on hand-made invoices", "[bolt11]") {
    // The baseline is well formed up to its (zero) signature.
    CHECK(raw_error("lnbc", {p_field, s_field, d_field}) == "signature_not_recoverable");
    CHECK(raw_error("lnbc", {p_field, s_field, d_field}, bech32_variant::bech32m) ==
          "bad_checksum");
    CHECK(raw_error("lnxy", {p_field, s_field, d_field}) == "unknown_currency");
    CHECK(raw_error("bc", {p_field, s_field, d_field}) == "bad_prefix");
    CHECK(raw_error("lnbc0m", {p_field, s_field, d_field}) == "bad_amount");
    CHECK(raw_error("lnbc99999999999999999999m", {p_field, s_field, d_field}) == "bad_amount");
    CHECK(raw_error("lnbc1.5m", {p_field, s_field, d_field}) == "bad_amount");
    CHECK(raw_error("lnbc", {s_field, d_field}) == "missing_payment_hash");
    CHECK(raw_error("lnbc", {p_field, s_field}) == "bad_description");
    CHECK(raw_error("lnbc", {p_field, s_field, d_field, hash_field(23, 0x22)}) ==
          "bad_description");
    // Repeating a field with the same value is tolerated; with another value it is refused.
    CHECK(raw_error("lnbc", {p_field, p_field, s_field, d_field}) == "signature_not_recoverable");
    CHECK(raw_error("lnbc", {p_field, hash_field(1, 0x02), s_field, d_field}) ==
          "conflicting_fields");
    CHECK(raw_error("lnbc", {field(1, std::vector<std::uint8_t>(51, 0)), s_field, d_field}) ==
          "bad_field_length");
    CHECK(raw_error("lnbc", {p_field, s_field, d_field, field(6, {0, 5})}) == "non_minimal_field");
    CHECK(raw_error("lnbc", {p_field, s_field, d_field,
                             field(24, std::vector<std::uint8_t>(13, 1))}) == "field_too_long");
    CHECK(raw_error("lnbc", {p_field, s_field, d_field, field(5, {0, 1})}) == "non_minimal_field");
    CHECK(raw_error("lnbc", {p_field, s_field, d_field,
                             field(3, std::vector<std::uint8_t>(10, 0))}) == "bad_route");
    CHECK(raw_error("lnbc", {p_field, s_field, d_field, field(9, {17, 1, 2})}) == "bad_fallback");
    // Invalid UTF-8 in d (0xff 0xff ...).
    CHECK(raw_error("lnbc", {p_field, s_field, field(13, {31, 31, 31, 31, 31, 31, 31, 31})}) ==
          "bad_description");
    // An n field that is not a curve point.
    bytes33 not_a_point{};
    not_a_point.fill(0xff);
    CHECK(raw_error("lnbc", {p_field, s_field, d_field,
                             field(19, bytes_to_words(not_a_point.data(), not_a_point.size()))}) ==
          "bad_payee");
    // A field running past the signature.
    CHECK(raw_error("lnbc", {p_field, s_field, d_field, {13, 31, 31}}) == "truncated_field");
}
