#include "plugins/spark/spark_address.hpp"

#include <secp256k1.h>

#include <algorithm>
#include <vector>

#include "rails/rail_sdk/formats/text.hpp"
#include "rails/rail_sdk/lightning/bech32.hpp"
#include "rails/rail_sdk/lightning/secp256k1_context.hpp"

namespace corridor::spark {
using namespace corridor::lightning;
namespace {

using formats::make_error;

constexpr std::size_t spark_length_max = 1024;

struct hrp_entry {
    std::string_view hrp;
    spark_network network;
    bool legacy;
};
constexpr hrp_entry hrps[] = {
    {"spark", spark_network::mainnet, false},   {"sparkt", spark_network::testnet, false},
    {"sparkrt", spark_network::regtest, false}, {"sparks", spark_network::signet, false},
    {"sparkl", spark_network::local, false},    {"sp", spark_network::mainnet, true},
    {"spt", spark_network::testnet, true},      {"sprt", spark_network::regtest, true},
    {"sps", spark_network::signet, true},       {"spl", spark_network::local, true},
};

// Reads a protobuf varint; false when it runs past the end or exceeds 64 bits.
bool read_varint(const std::vector<std::uint8_t>& bytes, std::size_t& at, std::uint64_t& out) {
    out = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (at >= bytes.size()) return false;
        std::uint8_t byte = bytes[at++];
        out |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0) return true;
    }
    return false;
}

formats::verdict read_payload(const std::vector<std::uint8_t>& bytes, spark_address& out) {
    std::size_t at = 0;
    bool has_key = false;
    while (at < bytes.size()) {
        std::uint64_t tag = 0, length = 0;
        if (!read_varint(bytes, at, tag) || (tag & 7) != 2 || !read_varint(bytes, at, length) ||
            length > bytes.size() - at)
            return make_error("bad_payload", "the address payload is not a SparkAddress message");
        std::uint64_t field = tag >> 3;
        if (field == 1) {
            if (has_key || length != 33)
                return make_error("bad_identity_key", "the identity key must be 33 bytes, once");
            std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(at), 33,
                        out.identity_public_key.begin());
            has_key = true;
        } else if (field == 2 || field == 3) {
            out.has_invoice_fields = true;
        } else {
            return make_error("bad_payload",
                              "the address payload has unknown field " + std::to_string(field));
        }
        at += length;
    }
    if (!has_key) return make_error("bad_identity_key", "the address has no identity key");
    secp256k1_pubkey key;
    if (secp256k1_ec_pubkey_parse(secp_context(), &key, out.identity_public_key.data(), 33) != 1)
        return make_error("bad_identity_key", "the identity key is not a secp256k1 point");
    return formats::valid;
}

bool valid_label(std::string_view label) {
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-')
        return false;
    for (char c : label)
        if (!formats::is_alnum(c) && c != '-') return false;
    return true;
}

}  // namespace

std::string_view spark_hrp(spark_network network) {
    for (const auto& entry : hrps)
        if (entry.network == network && !entry.legacy) return entry.hrp;
    return "spark";
}

formats::outcome<spark_address> parse_spark_address(std::string_view text) {
    auto decoded = bech32_decode(text, spark_length_max);
    if (!decoded) return decoded.error();
    if (decoded->variant != bech32_variant::bech32m)
        return make_error("bad_checksum", "a Spark address uses bech32m, not bech32");
    spark_address out;
    const hrp_entry* match = nullptr;
    for (const auto& entry : hrps)
        if (entry.hrp == decoded->hrp) match = &entry;
    if (!match) return make_error("unknown_prefix", "'" + decoded->hrp + "' is not a Spark prefix");
    out.network = match->network;
    out.legacy_prefix = match->legacy;
    auto bytes = convert_bits(decoded->words.data(), decoded->words.size(), 5, 8, false);
    if (!bytes) return make_error("bad_payload", "the address payload has bad padding");
    auto verdict = read_payload(bytes.value(), out);
    if (!verdict) return verdict.error();
    return out;
}

std::string encode_spark_address(spark_network network,
                                 const std::array<std::uint8_t, 33>& identity_public_key) {
    std::vector<std::uint8_t> payload{0x0a, 0x21};
    payload.insert(payload.end(), identity_public_key.begin(), identity_public_key.end());
    return bech32_encode(spark_hrp(network), bytes_to_words(payload.data(), payload.size()),
                         bech32_variant::bech32m);
}

formats::verdict check_lightning_address(std::string_view text) {
    std::size_t at = text.find('@');
    if (at == std::string_view::npos || text.find('@', at + 1) != std::string_view::npos)
        return make_error("bad_lightning_address", "a lightning address has exactly one '@'");
    std::string_view user = text.substr(0, at);
    std::string_view domain = text.substr(at + 1);
    if (user.empty() || user.size() > 64)
        return make_error("bad_lightning_address", "the user part must have 1 to 64 characters");
    for (char c : user)
        if (!(formats::is_lower(c) || formats::is_digit(c) || c == '-' || c == '_' || c == '.' ||
              c == '+'))
            return make_error("bad_lightning_address",
                              "the user part allows only a-z, 0-9 and - _ . +");
    if (domain.empty() || domain.size() > 253)
        return make_error("bad_lightning_address", "the domain must have 1 to 253 characters");
    std::size_t labels = 0;
    for (std::size_t start = 0;;) {
        std::size_t dot = domain.find('.', start);
        std::string_view label =
            domain.substr(start, dot == std::string_view::npos ? dot : dot - start);
        if (!valid_label(label))
            return make_error("bad_lightning_address", "the domain is not a valid DNS name");
        ++labels;
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    if (labels < 2 && domain != "localhost")
        return make_error("bad_lightning_address", "the domain needs at least two labels");
    return formats::valid;
}

}  // namespace corridor::spark
