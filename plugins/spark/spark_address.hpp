#pragma once
// Spark wallet addresses (SPARK_WALLET accounts) and Lightning addresses (user@domain).
// A Spark address is bech32m over the protobuf SparkAddress { bytes identity_public_key = 1;
// SparkInvoiceFields spark_invoice_fields = 2; bytes signature = 3; }; a plain address holds only
// field 1, a 33-byte compressed secp256k1 key.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "rails/rail_sdk/formats/result.hpp"

namespace corridor::spark {

enum class spark_network { mainnet, testnet, regtest, signet, local };

struct spark_address {
    spark_network network = spark_network::mainnet;
    bool legacy_prefix = false;  // sp1... rather than spark1...
    std::array<std::uint8_t, 33> identity_public_key{};
    bool has_invoice_fields = false;  // fields 2/3 present: a Spark invoice, not a plain address
};

std::string_view spark_hrp(spark_network network);  // current prefix, e.g. "spark", "sparkrt"

// Accepts the current and the legacy prefixes; refuses bech32 (not m), unknown prefixes, malformed
// protobuf, a missing or wrong-size identity key, and a key that is not a curve point.
formats::outcome<spark_address> parse_spark_address(std::string_view text);

std::string encode_spark_address(spark_network network,
                                 const std::array<std::uint8_t, 33>& identity_public_key);

// LUD-16 lightning address: user@domain, user in [a-z0-9-_.+], domain a DNS name with a dot
// (or localhost), each label 1..63 letters/digits/hyphens not starting or ending with a hyphen.
formats::verdict check_lightning_address(std::string_view text);

}  // namespace corridor::spark
