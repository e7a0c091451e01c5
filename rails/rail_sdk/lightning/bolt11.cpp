#include "rails/rail_sdk/lightning/bolt11.hpp"

#include <openssl/sha.h>
#include <secp256k1_recovery.h>

#include <algorithm>
#include <limits>

#include "rails/rail_sdk/formats/text.hpp"
#include "rails/rail_sdk/lightning/bech32.hpp"
#include "rails/rail_sdk/lightning/secp256k1_context.hpp"

namespace corridor::lightning {
namespace {

using formats::make_error;

// Tag values (the 5-bit type of a tagged field).
constexpr std::uint8_t tag_p = 1, tag_r = 3, tag_9 = 5, tag_x = 6, tag_f = 9, tag_d = 13,
                       tag_s = 16, tag_n = 19, tag_h = 23, tag_c = 24, tag_m = 27;
constexpr std::size_t timestamp_words = 7;
constexpr std::size_t signature_words = 104;
constexpr std::size_t field_length_max_words = 1023;
constexpr std::size_t route_hop_bytes = 51;
// Without a length limit a decoder could be fed megabytes; 7089 is the largest QR code payload.
constexpr std::size_t invoice_length_max = 7089;

// Feature bits BOLT #9 defines for invoices (context 9), both the required and the optional bit.
constexpr unsigned known_invoice_features[] = {8, 9, 14, 15, 16, 17, 24, 25, 48, 49};

struct prefix_entry {
    std::string_view text;
    ln_network network;
};
// Longest first, so "bcrt" wins over "bc" and "tbs" over "tb".
constexpr prefix_entry prefixes[] = {{"bcrt", ln_network::regtest},
                                     {"tbs", ln_network::signet},
                                     {"bc", ln_network::mainnet},
                                     {"tb", ln_network::testnet}};

bytes32 sha256(const std::uint8_t* data, std::size_t size) {
    bytes32 out{};
    SHA256(data, size, out.data());
    return out;
}

bytes32 signing_hash(std::string_view hrp, const std::uint8_t* words, std::size_t count) {
    std::vector<std::uint8_t> message(hrp.begin(), hrp.end());
    auto data = convert_bits(words, count, 5, 8, true).value();
    message.insert(message.end(), data.begin(), data.end());
    return sha256(message.data(), message.size());
}

formats::outcome<std::optional<std::uint64_t>> parse_amount(std::string_view amount) {
    if (amount.empty()) return std::optional<std::uint64_t>{};
    char last = amount.back();
    unsigned __int128 factor_tenths = 0;  // msat per unit, times 10 so that 'p' stays integral
    std::string_view digits = amount;
    switch (last) {
        case 'm': factor_tenths = 1'000'000'000; break;
        case 'u': factor_tenths = 1'000'000; break;
        case 'n': factor_tenths = 1'000; break;
        case 'p': factor_tenths = 1; break;
        default:
            if (!formats::is_digit(last))
                return make_error("bad_multiplier",
                                  std::string("the amount multiplier '") + last + "' is unknown");
            factor_tenths = 1'000'000'000'000;
    }
    if (!formats::is_digit(last)) digits.remove_suffix(1);
    if (!formats::all_digits(digits))
        return make_error("bad_amount", "the amount is not a decimal number");
    if (digits.front() == '0')
        return make_error("bad_amount", "the amount has a leading zero or is zero");
    if (digits.size() > 20) return make_error("bad_amount", "the amount is too large");
    unsigned __int128 value = 0;
    for (char c : digits) value = value * 10 + static_cast<unsigned>(c - '0');
    unsigned __int128 tenths = value * factor_tenths;
    if (tenths % 10 != 0)
        return make_error("sub_millisatoshi",
                          "a 'p' amount must end in 0 (whole millisatoshis only)");
    unsigned __int128 msat = tenths / 10;
    if (msat > std::numeric_limits<std::uint64_t>::max())
        return make_error("bad_amount", "the amount is too large");
    return std::optional<std::uint64_t>{static_cast<std::uint64_t>(msat)};
}

formats::outcome<std::uint64_t> read_uint(const std::uint8_t* words, std::size_t count,
                                          std::string_view name) {
    if (count > 0 && words[0] == 0)
        return make_error("non_minimal_field", std::string("the ") + std::string(name) +
                                                   " field has leading zero words");
    if (count > 12)
        return make_error("field_too_long",
                          std::string("the ") + std::string(name) + " field does not fit 64 bits");
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < count; ++i) value = (value << 5) | words[i];
    return value;
}

std::vector<std::uint8_t> uint_words(std::uint64_t value) {
    std::vector<std::uint8_t> words;
    while (value > 0) {
        words.push_back(static_cast<std::uint8_t>(value & 31));
        value >>= 5;
    }
    std::reverse(words.begin(), words.end());
    return words;
}

template <std::size_t N>
std::array<std::uint8_t, N> to_array(const std::vector<std::uint8_t>& bytes) {
    std::array<std::uint8_t, N> out{};
    std::copy_n(bytes.begin(), N, out.begin());
    return out;
}

std::uint64_t read_be(const std::uint8_t* data, std::size_t size) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < size; ++i) value = (value << 8) | data[i];
    return value;
}

void write_be(std::vector<std::uint8_t>& out, std::uint64_t value, std::size_t size) {
    for (std::size_t i = size; i-- > 0;) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

bool valid_point(const bytes33& key) {
    secp256k1_pubkey parsed;
    return secp256k1_ec_pubkey_parse(secp_context(), &parsed, key.data(), key.size()) == 1;
}

// Reads the tagged fields between the timestamp and the signature into `fields`.
class field_reader {
public:
    field_reader(invoice_fields& fields, decode_options options)
        : fields_(fields), options_(options) {}

    formats::verdict read(const std::uint8_t* words, std::size_t count) {
        std::size_t at = 0;
        while (at < count) {
            if (count - at < 3)
                return make_error("truncated_field", "a tagged field header is cut short");
            std::uint8_t type = words[at];
            std::size_t length = static_cast<std::size_t>(words[at + 1]) * 32 + words[at + 2];
            at += 3;
            if (length > count - at)
                return make_error("truncated_field", "a tagged field runs past the signature");
            auto verdict = read_field(type, words + at, length);
            if (!verdict) return verdict;
            at += length;
        }
        return finish();
    }

private:
    formats::verdict read_field(std::uint8_t type, const std::uint8_t* data, std::size_t length) {
        auto bytes = [&] { return words_to_bytes_truncating(data, length); };
        switch (type) {
            case tag_p: return read_fixed32(data, length, "p", seen_p_, fields_.payment_hash);
            case tag_s: return read_fixed32(data, length, "s", seen_s_, fields_.payment_secret);
            case tag_h: {
                bytes32 hash = fields_.description_hash.value_or(bytes32{});
                auto verdict = read_fixed32(data, length, "h", seen_h_, hash);
                if (verdict && seen_h_) fields_.description_hash = hash;
                return verdict;
            }
            case tag_n: return read_payee(data, length);
            case tag_d: {
                auto text = bytes();
                std::string description(text.begin(), text.end());
                if (fields_.description && *fields_.description != description)
                    return conflicting("d");
                if (!formats::valid_utf8(description))
                    return make_error("bad_description", "the d field is not valid UTF-8");
                fields_.description = std::move(description);
                return formats::valid;
            }
            case tag_x: return read_integer(data, length, "x", fields_.expiry_seconds);
            case tag_c: return read_integer(data, length, "c", fields_.min_final_cltv_expiry_delta);
            case tag_9: return read_features(data, length);
            case tag_m: fields_.metadata = bytes(); return formats::valid;
            case tag_f: return read_fallback(data, length);
            case tag_r: return read_route(bytes());
            default: return formats::valid;  // unknown fields are skipped
        }
    }

    // The reader rules do not forbid repeating a field; repeating it with another value leaves
    // the invoice ambiguous, so that is refused.
    static formats::format_error conflicting(const char* name) {
        return make_error("conflicting_fields",
                          std::string("the invoice has ") + name + " fields with different values");
    }

    formats::verdict read_fixed32(const std::uint8_t* data, std::size_t length, const char* name,
                                  bool& seen, bytes32& out) {
        if (length != 52) {
            if (options_.skip_wrong_length_fields) return formats::valid;
            return make_error("bad_field_length", std::string("the ") + name + " field has " +
                                                      std::to_string(length) +
                                                      " words instead of 52");
        }
        bytes32 value = to_array<32>(words_to_bytes_truncating(data, length));
        if (seen && value != out) return conflicting(name);
        seen = true;
        out = value;
        return formats::valid;
    }

    formats::verdict read_payee(const std::uint8_t* data, std::size_t length) {
        if (length != 53) {
            if (options_.skip_wrong_length_fields) return formats::valid;
            return make_error("bad_field_length",
                              "the n field has " + std::to_string(length) + " words instead of 53");
        }
        bytes33 key = to_array<33>(words_to_bytes_truncating(data, length));
        if (payee_ && *payee_ != key) return conflicting("n");
        if (!valid_point(key))
            return make_error("bad_payee", "the n field is not a valid secp256k1 public key");
        payee_ = key;
        return formats::valid;
    }

    formats::verdict read_integer(const std::uint8_t* data, std::size_t length, const char* name,
                                  std::uint64_t& out) {
        auto value = read_uint(data, length, name);
        if (!value) return value.error();
        out = value.value();
        return formats::valid;
    }

    formats::verdict read_features(const std::uint8_t* data, std::size_t length) {
        if (length > 0 && data[0] == 0)
            return make_error("non_minimal_field", "the 9 field has leading zero words");
        fields_.feature_bits.clear();
        for (std::size_t i = 0; i < length; ++i) {
            for (unsigned bit = 0; bit < 5; ++bit) {
                if (((data[i] >> bit) & 1) == 0) continue;
                unsigned number = static_cast<unsigned>((length - 1 - i) * 5) + bit;
                fields_.feature_bits.push_back(number);
            }
        }
        std::sort(fields_.feature_bits.begin(), fields_.feature_bits.end());
        for (unsigned bit : fields_.feature_bits) {
            bool known =
                std::find(std::begin(known_invoice_features), std::end(known_invoice_features),
                          bit) != std::end(known_invoice_features);
            if (!known && bit % 2 == 0)
                return make_error(
                    "unknown_required_feature",
                    "the invoice requires unknown feature bit " + std::to_string(bit));
        }
        return formats::valid;
    }

    formats::verdict read_fallback(const std::uint8_t* data, std::size_t length) {
        if (length == 0) return formats::valid;
        std::uint8_t version = data[0];
        if (version > 18) return formats::valid;  // unknown versions are skipped
        fallback_address fallback;
        fallback.version = version;
        fallback.program = words_to_bytes_truncating(data + 1, length - 1);
        std::size_t size = fallback.program.size();
        bool hash_form = version == 17 || version == 18;
        if ((hash_form && size != 20) || (!hash_form && (size < 2 || size > 40)))
            return make_error("bad_fallback", "the f field has a program of the wrong length");
        fields_.fallbacks.push_back(std::move(fallback));
        return formats::valid;
    }

    formats::verdict read_route(const std::vector<std::uint8_t>& bytes) {
        if (bytes.empty() || bytes.size() % route_hop_bytes != 0)
            return make_error("bad_route", "the r field is not a whole number of 51-byte hops");
        std::vector<route_hop> route;
        for (std::size_t at = 0; at < bytes.size(); at += route_hop_bytes) {
            const std::uint8_t* hop_bytes = bytes.data() + at;
            route_hop hop;
            std::copy_n(hop_bytes, 33, hop.pubkey.begin());
            hop.short_channel_id = read_be(hop_bytes + 33, 8);
            hop.fee_base_msat = static_cast<std::uint32_t>(read_be(hop_bytes + 41, 4));
            hop.fee_proportional_millionths =
                static_cast<std::uint32_t>(read_be(hop_bytes + 45, 4));
            hop.cltv_expiry_delta = static_cast<std::uint16_t>(read_be(hop_bytes + 49, 2));
            route.push_back(hop);
        }
        fields_.routes.push_back(std::move(route));
        return formats::valid;
    }

    formats::verdict finish() {
        if (!seen_p_) return make_error("missing_payment_hash", "the invoice has no p field");
        if (!seen_s_) return make_error("missing_payment_secret", "the invoice has no s field");
        bool has_d = fields_.description.has_value();
        if (has_d == seen_h_)
            return make_error("bad_description",
                              has_d ? "the invoice has both a d and an h field"
                                    : "the invoice has neither a d nor an h field");
        fields_.explicit_payee = payee_.has_value();
        return formats::valid;
    }

public:
    const std::optional<bytes33>& payee() const { return payee_; }

private:
    std::optional<bytes33> payee_;  // from an n field
    invoice_fields& fields_;
    decode_options options_;
    bool seen_p_ = false, seen_s_ = false, seen_h_ = false;
};

// Verifies the signature against an explicit payee (low-S only) or recovers the payee.
formats::verdict check_signature(decoded_invoice& invoice, const std::optional<bytes33>& payee) {
    const secp256k1_context* context = secp_context();
    secp256k1_ecdsa_recoverable_signature recoverable;
    if (secp256k1_ecdsa_recoverable_signature_parse_compact(
            context, &recoverable, invoice.signature.data(), invoice.recovery_id) != 1)
        return make_error("bad_signature", "the signature is not a valid compact signature");
    if (payee) {
        secp256k1_ecdsa_signature plain;
        secp256k1_ecdsa_recoverable_signature_convert(context, &plain, &recoverable);
        secp256k1_ecdsa_signature normalized;
        if (secp256k1_ecdsa_signature_normalize(context, &normalized, &plain) == 1)
            return make_error("high_s_signature",
                              "the signature is not low-S, which an invoice with an n field needs");
        secp256k1_pubkey key;
        if (secp256k1_ec_pubkey_parse(context, &key, payee->data(), payee->size()) != 1 ||
            secp256k1_ecdsa_verify(context, &plain, invoice.signing_hash.data(), &key) != 1)
            return make_error("bad_signature", "the signature does not match the n field's key");
        invoice.payee = *payee;
        return formats::valid;
    }
    // A high-S signature is read as its low-S twin with the same recovery id. That is what the
    // spec's "public-key recovery with high-S signature" example expects (its payee is the one of
    // the low-S original); recovering with the raw S and that id would give another key.
    secp256k1_ecdsa_signature plain, normalized;
    secp256k1_ecdsa_recoverable_signature_convert(context, &plain, &recoverable);
    if (secp256k1_ecdsa_signature_normalize(context, &normalized, &plain) == 1) {
        std::array<std::uint8_t, 64> low_s{};
        secp256k1_ecdsa_signature_serialize_compact(context, low_s.data(), &normalized);
        secp256k1_ecdsa_recoverable_signature_parse_compact(context, &recoverable, low_s.data(),
                                                            invoice.recovery_id);
    }
    secp256k1_pubkey recovered;
    if (secp256k1_ecdsa_recover(context, &recovered, &recoverable, invoice.signing_hash.data()) !=
        1)
        return make_error("signature_not_recoverable",
                          "no public key can be recovered from the signature");
    std::size_t size = invoice.payee.size();
    secp256k1_ec_pubkey_serialize(context, invoice.payee.data(), &size, &recovered,
                                  SECP256K1_EC_COMPRESSED);
    return formats::valid;
}

formats::outcome<ln_network> parse_hrp(std::string_view hrp, invoice_fields& fields) {
    if (hrp.substr(0, 2) != "ln")
        return make_error("bad_prefix", "the invoice does not start with ln");
    std::string_view rest = hrp.substr(2);
    for (const auto& entry : prefixes) {
        if (rest.substr(0, entry.text.size()) != entry.text) continue;
        auto amount = parse_amount(rest.substr(entry.text.size()));
        if (!amount) return amount.error();
        fields.amount_msat = amount.value();
        return entry.network;
    }
    return make_error("unknown_currency", "the invoice's currency prefix is unknown");
}

}  // namespace

std::string_view currency_prefix(ln_network network) {
    for (const auto& entry : prefixes)
        if (entry.network == network) return entry.text;
    return "bc";
}

bool looks_like_invoice(std::string_view text) {
    std::string lowered = formats::lower(text.substr(0, 4));
    return lowered == "lnbc" || lowered == "lntb";
}

formats::outcome<decoded_invoice> decode_invoice(std::string_view text, decode_options options) {
    auto parsed = bech32_decode(text, invoice_length_max);
    if (!parsed) return parsed.error();
    if (parsed->variant != bech32_variant::bech32)
        return make_error("bad_checksum", "an invoice uses bech32, not bech32m");
    decoded_invoice invoice;
    invoice.hrp = parsed->hrp;
    auto network = parse_hrp(invoice.hrp, invoice.fields);
    if (!network) return network.error();
    invoice.fields.network = network.value();

    const std::vector<std::uint8_t>& words = parsed->words;
    if (words.size() < timestamp_words + signature_words)
        return make_error("too_short", "the data part is too short for a timestamp and signature");
    for (std::size_t i = 0; i < timestamp_words; ++i)
        invoice.fields.timestamp = (invoice.fields.timestamp << 5) | words[i];

    std::size_t signed_words = words.size() - signature_words;
    field_reader reader(invoice.fields, options);
    auto verdict = reader.read(words.data() + timestamp_words, signed_words - timestamp_words);
    if (!verdict) return verdict.error();

    auto signature = words_to_bytes_truncating(words.data() + signed_words, signature_words);
    std::copy_n(signature.begin(), 64, invoice.signature.begin());
    if (signature[64] > 3) return make_error("bad_signature", "the recovery id is not 0-3");
    invoice.recovery_id = signature[64];
    invoice.signing_hash = signing_hash(invoice.hrp, words.data(), signed_words);
    auto checked = check_signature(invoice, reader.payee());
    if (!checked) return checked.error();
    return invoice;
}

std::string encode_amount(std::uint64_t amount_msat) {
    struct unit {
        std::uint64_t msat;
        const char* suffix;
    };
    static constexpr unit units[] = {
        {100'000'000'000, ""}, {100'000'000, "m"}, {100'000, "u"}, {100, "n"}};
    for (const auto& candidate : units)
        if (amount_msat % candidate.msat == 0)
            return std::to_string(amount_msat / candidate.msat) + candidate.suffix;
    return std::to_string(amount_msat) + "0p";
}

formats::outcome<bytes33> node_public_key(const bytes32& node_private_key) {
    const secp256k1_context* context = secp_context();
    secp256k1_pubkey key;
    if (secp256k1_ec_pubkey_create(context, &key, node_private_key.data()) != 1)
        return make_error("bad_private_key", "the node private key is not a valid secp256k1 key");
    bytes33 out{};
    std::size_t size = out.size();
    secp256k1_ec_pubkey_serialize(context, out.data(), &size, &key, SECP256K1_EC_COMPRESSED);
    return out;
}

namespace {

void append_field(std::vector<std::uint8_t>& words, std::uint8_t type,
                  const std::vector<std::uint8_t>& data) {
    words.push_back(type);
    words.push_back(static_cast<std::uint8_t>(data.size() >> 5));
    words.push_back(static_cast<std::uint8_t>(data.size() & 31));
    words.insert(words.end(), data.begin(), data.end());
}

template <class Bytes>
std::vector<std::uint8_t> words_of(const Bytes& bytes) {
    return bytes_to_words(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

std::vector<std::uint8_t> feature_words(const std::vector<unsigned>& bits) {
    if (bits.empty()) return {};
    unsigned highest = *std::max_element(bits.begin(), bits.end());
    std::vector<std::uint8_t> words(highest / 5 + 1, 0);
    for (unsigned bit : bits)
        words[words.size() - 1 - bit / 5] |= static_cast<std::uint8_t>(1u << (bit % 5));
    return words;
}

std::vector<std::uint8_t> route_bytes(const std::vector<route_hop>& route) {
    std::vector<std::uint8_t> out;
    for (const auto& hop : route) {
        out.insert(out.end(), hop.pubkey.begin(), hop.pubkey.end());
        write_be(out, hop.short_channel_id, 8);
        write_be(out, hop.fee_base_msat, 4);
        write_be(out, hop.fee_proportional_millionths, 4);
        write_be(out, hop.cltv_expiry_delta, 2);
    }
    return out;
}

formats::verdict check_encodable(const invoice_fields& fields) {
    if (fields.description.has_value() == fields.description_hash.has_value())
        return make_error("bad_description",
                          "an invoice needs exactly one of description and "
                          "description hash");
    if (fields.description &&
        (fields.description->size() > 639 || !formats::valid_utf8(*fields.description)))
        return make_error("bad_description", "the description must be UTF-8 of at most 639 bytes");
    if (fields.timestamp >> 35) return make_error("bad_timestamp", "the timestamp exceeds 35 bits");
    if (fields.amount_msat && *fields.amount_msat == 0)
        return make_error("bad_amount", "an invoice amount must be positive");
    if (fields.metadata && fields.metadata->size() > 639)
        return make_error("bad_metadata", "the metadata must be at most 639 bytes");
    for (const auto& route : fields.routes)
        if (route.empty() || route.size() > 12)
            return make_error("bad_route", "a route hint must have 1 to 12 hops");
    return formats::valid;
}

}  // namespace

formats::outcome<std::string> encode_invoice(const invoice_fields& fields,
                                             const bytes32& node_private_key) {
    auto encodable = check_encodable(fields);
    if (!encodable) return encodable.error();
    auto payee = node_public_key(node_private_key);
    if (!payee) return payee.error();

    std::string hrp = "ln" + std::string(currency_prefix(fields.network));
    if (fields.amount_msat) hrp += encode_amount(*fields.amount_msat);

    std::vector<std::uint8_t> words;
    for (int i = 6; i >= 0; --i)
        words.push_back(static_cast<std::uint8_t>((fields.timestamp >> (5 * i)) & 31));
    append_field(words, tag_s, words_of(fields.payment_secret));
    append_field(words, tag_p, words_of(fields.payment_hash));
    if (fields.description) append_field(words, tag_d, words_of(*fields.description));
    if (fields.description_hash) append_field(words, tag_h, words_of(*fields.description_hash));
    if (fields.expiry_seconds != 3600)
        append_field(words, tag_x, uint_words(fields.expiry_seconds));
    if (fields.min_final_cltv_expiry_delta != 18)
        append_field(words, tag_c, uint_words(fields.min_final_cltv_expiry_delta));
    if (fields.explicit_payee) append_field(words, tag_n, words_of(payee.value()));
    for (const auto& fallback : fields.fallbacks) {
        std::vector<std::uint8_t> data{fallback.version};
        auto program = words_of(fallback.program);
        data.insert(data.end(), program.begin(), program.end());
        append_field(words, tag_f, data);
    }
    for (const auto& route : fields.routes)
        append_field(words, tag_r, words_of(route_bytes(route)));
    if (!fields.feature_bits.empty())
        append_field(words, tag_9, feature_words(fields.feature_bits));
    if (fields.metadata) append_field(words, tag_m, words_of(*fields.metadata));

    bytes32 hash = signing_hash(hrp, words.data(), words.size());
    const secp256k1_context* context = secp_context();
    secp256k1_ecdsa_recoverable_signature signature;
    if (secp256k1_ecdsa_sign_recoverable(context, &signature, hash.data(), node_private_key.data(),
                                         nullptr, nullptr) != 1)
        return make_error("signing_failed", "the invoice could not be signed");
    std::array<std::uint8_t, 65> compact{};
    int recovery_id = 0;
    secp256k1_ecdsa_recoverable_signature_serialize_compact(context, compact.data(), &recovery_id,
                                                            &signature);
    compact[64] = static_cast<std::uint8_t>(recovery_id);
    auto signature_part = words_of(compact);
    words.insert(words.end(), signature_part.begin(), signature_part.end());
    return bech32_encode(hrp, words, bech32_variant::bech32);
}

}  // namespace corridor::lightning
