#pragma once
// BOLT #11 Lightning invoices: decoding with signature verification (or payee recovery), and
// creation signed with a node key. Follows lightning/bolts 11-payment-encoding.md as of 2025,
// including the reader rule that a wrong-length p/h/s/n field fails the invoice.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../formats/result.hpp"
#include "../formats/text.hpp"

namespace corridor::lightning {

using bytes32 = std::array<std::uint8_t, 32>;
using bytes33 = std::array<std::uint8_t, 33>;

enum class ln_network { mainnet, testnet, signet, regtest };

// "bc", "tb", "tbs", "bcrt": what follows "ln" in the human-readable part.
std::string_view currency_prefix(ln_network network);

struct route_hop {
    bytes33 pubkey{};
    std::uint64_t short_channel_id = 0;
    std::uint32_t fee_base_msat = 0;
    std::uint32_t fee_proportional_millionths = 0;
    std::uint16_t cltv_expiry_delta = 0;
};

// version 17 = P2PKH hash, 18 = P2SH hash, 0..16 = witness program.
struct fallback_address {
    std::uint8_t version = 0;
    std::vector<std::uint8_t> program;
};

struct invoice_fields {
    ln_network network = ln_network::mainnet;
    std::optional<std::uint64_t> amount_msat;  // absent: any amount
    std::uint64_t timestamp = 0;               // Unix seconds, 35 bits
    bytes32 payment_hash{};
    bytes32 payment_secret{};
    std::optional<std::string> description;  // exactly one of description / description_hash
    std::optional<bytes32> description_hash;
    std::uint64_t expiry_seconds = 3600;
    std::uint64_t min_final_cltv_expiry_delta = 18;
    std::optional<std::vector<std::uint8_t>> metadata;
    std::vector<fallback_address> fallbacks;
    std::vector<std::vector<route_hop>> routes;  // one entry per r field
    std::vector<unsigned> feature_bits;          // set bits, ascending
    bool explicit_payee = false;                 // write / found an n field
};

struct decoded_invoice {
    std::string hrp;
    invoice_fields fields;
    bytes33 payee{};  // from n, or recovered from the signature
    std::array<std::uint8_t, 64> signature{};
    int recovery_id = 0;
    bytes32 signing_hash{};  // SHA-256 of hrp || data words (padded), what the signature covers
};

struct decode_options {
    // Before lightning/bolts PR #1243 (June 2025) readers skipped p/h/s/n fields of the wrong
    // length instead of failing. Only for reading old invoices; off by default.
    bool skip_wrong_length_fields = false;
};

// Refuses, with a named reason: bad bech32, bech32m, an unknown prefix, a bad amount (unknown
// multiplier, leading zero, sub-millisatoshi 'p' amount, overflow), a short data part, wrong-length
// or conflicting repeated p/s/h/d/n fields, missing p or s, neither or both of d and h, non-UTF-8
// d, non-minimal x/c/9, unknown even feature bits, a signature that does not recover, and a high-S
// signature when an n field names the payee. Without n, a high-S signature is read as its low-S
// twin with the same recovery id (the spec's high-S recovery example).
formats::outcome<decoded_invoice> decode_invoice(std::string_view text,
                                                 decode_options options = {});

// Signs with RFC 6979 nonces (deterministic, low-S). Field order: s, p, d|h, x, c, n, f, r, 9, m;
// x and c are written only when they differ from the defaults 3600 and 18. Refuses a private key
// that is not a valid secp256k1 scalar, a description longer than 639 bytes, a timestamp beyond 35
// bits and both/neither description kinds.
formats::outcome<std::string> encode_invoice(const invoice_fields& fields,
                                             const bytes32& node_private_key);

// An invoice of `fields` paying a fresh payment hash: `draw_payment(fields)` sets its hash and
// secret (from a new preimage that the caller keeps). For the sandbox it draws again, at most
// eight times, while the invoice ends in a sandbox failure pattern (002-005), as its checksum does
// about once in 8,192: a sandbox payer would fail it as that pattern says.
template <class DrawPayment>
formats::outcome<std::string> encode_fresh_invoice(invoice_fields& fields,
                                                   const bytes32& node_private_key, bool sandbox,
                                                   DrawPayment draw_payment) {
    draw_payment(fields);
    auto invoice = encode_invoice(fields, node_private_key);
    for (int drawn = 1;
         invoice && sandbox && formats::sandbox_failure_pattern(invoice.value()) != 0 && drawn < 8;
         ++drawn) {
        draw_payment(fields);
        invoice = encode_invoice(fields, node_private_key);
    }
    return invoice;
}

// The compressed public key of a node private key.
formats::outcome<bytes33> node_public_key(const bytes32& node_private_key);

// The amount part of the human-readable part, shortest form ("2500u", "20m", "9678785340p").
std::string encode_amount(std::uint64_t amount_msat);

// "lnbc..."/"lntb..."/"lntbs..."/"lnbcrt..." with an optional amount; mixed case is refused.
bool looks_like_invoice(std::string_view text);

}  // namespace corridor::lightning
