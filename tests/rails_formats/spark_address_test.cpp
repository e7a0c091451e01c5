// Spark addresses (bech32m) and lightning addresses, plus the bech32/bech32m codec itself.
#include "plugins/spark/spark_address.hpp"

#include <catch2/catch.hpp>

#include "rails/rail_sdk/formats/text.hpp"
#include "rails/rail_sdk/lightning/bech32.hpp"

using namespace corridor::spark;
using namespace corridor::lightning;
using corridor::formats::hex_encode;

namespace {
const std::string generator_key =
    "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";
const std::string bolt11_key = "03e7156ae33b0a208d0744199163177e909e80176e55d97a2f221ede0f934dd9ad";

std::array<std::uint8_t, 33> key_of(const std::string& hex) {
    std::vector<std::uint8_t> bytes;
    corridor::formats::hex_decode(hex, bytes);
    std::array<std::uint8_t, 33> out{};
    std::copy(bytes.begin(), bytes.end(), out.begin());
    return out;
}
}  // namespace

TEST_CASE("bech32: BIP-173 and BIP-350 valid strings", "[bech32]") {
    // Valid checksums listed in BIP-173 and BIP-350.
    for (const char* text :
         {"A12UEL5L", "a12uel5l", "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
          "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w"}) {
        auto decoded = bech32_decode(text, bip173_length_max);
        INFO(text);
        REQUIRE(decoded.ok());
        CHECK(decoded->variant == bech32_variant::bech32);
    }
    for (const char* text :
         {"A1LQFN3A", "a1lqfn3a", "abcdef1l7aum6echk45nj3s0wdvt2fg8x9yrzpqzd3ryx", "?1v759aa"}) {
        auto decoded = bech32_decode(text, bip173_length_max);
        INFO(text);
        REQUIRE(decoded.ok());
        CHECK(decoded->variant == bech32_variant::bech32m);
    }
    auto split = bech32_decode("split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w", 90);
    CHECK(bech32_encode(split->hrp, split->words, split->variant) ==
          "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w");
}

TEST_CASE("bech32: BIP-173 invalid strings", "[bech32]") {
    CHECK(bech32_decode(" 1nwldj5", 90).error().code == "bad_character");
    CHECK(bech32_decode("pzry9x0s0muk", 90).error().code == "no_separator");
    CHECK(bech32_decode("1pzry9x0s0muk", 90).error().code == "empty_hrp");
    CHECK(bech32_decode("x1b4n0q5v", 90).error().code == "bad_character");
    CHECK(bech32_decode("li1dgmt3", 90).error().code == "too_short");
    CHECK(bech32_decode("A1G7SGD8", 90).error().code == "bad_checksum");
    CHECK(bech32_decode("an84characterslonghumanreadablepartthatcontainsthenumber1andtheexcludedcha"
                        "ractersbio1569pvx",
                        90)
              .error()
              .code == "too_long");
    CHECK(bech32_decode("aBcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw", 90).error().code ==
          "mixed_case");
}

TEST_CASE("spark: addresses computed from the SDK's encoder parse to their key", "[spark]") {
    struct example {
        const char* text;
        spark_network network;
        bool legacy;
        const std::string* key;
    };
    const example examples[] = {
        {"spark1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc489gg2",
         spark_network::mainnet, false, &generator_key},
        {"sparkrt1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc8pt5y4",
         spark_network::regtest, false, &generator_key},
        {"sp1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9ucez8h3s",
         spark_network::mainnet, true, &generator_key},
        {"spark1pgss8ec4dt3nkz3q35r5gxv3vvthayy7sqtku4we0ghjy8k7p7f5mkdd7hmr8s",
         spark_network::mainnet, false, &bolt11_key},
        {"sparkrt1pgss8ec4dt3nkz3q35r5gxv3vvthayy7sqtku4we0ghjy8k7p7f5mkddv34lt0",
         spark_network::regtest, false, &bolt11_key},
    };
    for (const auto& item : examples) {
        INFO(item.text);
        auto parsed = parse_spark_address(item.text);
        REQUIRE(parsed.ok());
        CHECK(parsed->network == item.network);
        CHECK(parsed->legacy_prefix == item.legacy);
        CHECK(hex_encode(parsed->identity_public_key) == *item.key);
        CHECK_FALSE(parsed->has_invoice_fields);
        if (!item.legacy) CHECK(encode_spark_address(item.network, key_of(*item.key)) == item.text);
    }
}

TEST_CASE("spark: malformed addresses are refused", "[spark]") {
    // Checksum broken (last character changed).
    CHECK(
        parse_spark_address("spark1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc489gg3")
            .error()
            .code == "bad_checksum");
    // Same payload under a non-Spark prefix, and as bech32 instead of bech32m.
    auto key = key_of(generator_key);
    std::vector<std::uint8_t> payload{0x0a, 0x21};
    payload.insert(payload.end(), key.begin(), key.end());
    auto words = bytes_to_words(payload.data(), payload.size());
    CHECK(parse_spark_address(bech32_encode("bc", words, bech32_variant::bech32m)).error().code ==
          "unknown_prefix");
    CHECK(parse_spark_address(bech32_encode("spark", words, bech32_variant::bech32)).error().code ==
          "bad_checksum");
    // A key that is not on the curve (x = 5 has no point with an even y? use an all-0xff x).
    auto bad_key = key;
    std::fill(bad_key.begin() + 1, bad_key.end(), 0xff);
    std::vector<std::uint8_t> bad_payload{0x0a, 0x21};
    bad_payload.insert(bad_payload.end(), bad_key.begin(), bad_key.end());
    CHECK(parse_spark_address(bech32_encode("spark",
                                            bytes_to_words(bad_payload.data(), bad_payload.size()),
                                            bech32_variant::bech32m))
              .error()
              .code == "bad_identity_key");
    // A key of 32 bytes.
    std::vector<std::uint8_t> short_payload{0x0a, 0x20};
    short_payload.insert(short_payload.end(), key.begin() + 1, key.end());
    CHECK(parse_spark_address(
              bech32_encode("spark", bytes_to_words(short_payload.data(), short_payload.size()),
                            bech32_variant::bech32m))
              .error()
              .code == "bad_identity_key");
    CHECK_FALSE(parse_spark_address("").ok());
    CHECK_FALSE(parse_spark_address("lnbc1").ok());
}

TEST_CASE("lightning address syntax", "[spark]") {
    for (const char* good : {"alice@example.com", "a.b-c_d+e@pay.example.co.uk", "x@localhost"})
        CHECK(check_lightning_address(good).ok());
    for (const char* bad : {"", "alice", "@example.com", "alice@", "Alice@example.com",
                            "alice@@example.com", "alice@exa mple.com", "alice@-example.com",
                            "alice@example", "alice@example..com", "al ice@example.com"}) {
        INFO(bad);
        CHECK_FALSE(check_lightning_address(bad).ok());
    }
}
