#include "ledger/customers/account_identifiers.hpp"

#include <openssl/sha.h>

#include <algorithm>
#include <array>
#include <map>

#include "ledger/base/countries.hpp"
#include "ledger/customers/details_text.hpp"

namespace corridor {
using namespace details_parsing;
namespace {

// ---- check digits ----

bool cpf_like_all_equal(std::string_view text) {
    return std::all_of(text.begin(), text.end(), [&](char c) { return c == text.front(); });
}

int mod11_digit(int sum) {
    int r = sum % 11;
    return r < 2 ? 0 : 11 - r;
}

// ISO 13616 lengths per country (the IBAN registry).
const std::map<std::string_view, int>& iban_lengths() {
    static const std::map<std::string_view, int> lengths = {
        {"AD", 24}, {"AE", 23}, {"AL", 28}, {"AT", 20}, {"AZ", 28}, {"BA", 20}, {"BE", 16},
        {"BG", 22}, {"BH", 22}, {"BR", 29}, {"BY", 28}, {"CH", 21}, {"CR", 22}, {"CY", 28},
        {"CZ", 24}, {"DE", 22}, {"DK", 18}, {"DO", 28}, {"EE", 20}, {"EG", 29}, {"ES", 24},
        {"FI", 18}, {"FO", 18}, {"FR", 27}, {"GB", 22}, {"GE", 22}, {"GI", 23}, {"GL", 18},
        {"GR", 27}, {"GT", 28}, {"HR", 21}, {"HU", 28}, {"IE", 22}, {"IL", 23}, {"IQ", 23},
        {"IS", 26}, {"IT", 27}, {"JO", 30}, {"KW", 30}, {"KZ", 20}, {"LB", 28}, {"LC", 32},
        {"LI", 21}, {"LT", 20}, {"LU", 20}, {"LV", 21}, {"LY", 25}, {"MC", 27}, {"MD", 24},
        {"ME", 22}, {"MK", 19}, {"MR", 27}, {"MT", 31}, {"MU", 30}, {"NL", 18}, {"NO", 15},
        {"PK", 24}, {"PL", 28}, {"PS", 29}, {"PT", 25}, {"QA", 29}, {"RO", 24}, {"RS", 22},
        {"SA", 24}, {"SC", 31}, {"SD", 18}, {"SE", 24}, {"SI", 19}, {"SK", 24}, {"SM", 27},
        {"ST", 25}, {"SV", 28}, {"TL", 23}, {"TN", 24}, {"TR", 26}, {"UA", 29}, {"VA", 22},
        {"VG", 24}, {"XK", 20},
    };
    return lengths;
}

constexpr std::string_view base58_alphabet =
    "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

std::uint32_t bech32_polymod(const std::vector<std::uint8_t>& values) {
    static constexpr std::uint32_t generator[5] = {0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd,
                                                   0x2a1462b3};
    std::uint32_t checksum = 1;
    for (auto value : values) {
        std::uint32_t top = checksum >> 25;
        checksum = ((checksum & 0x1ffffff) << 5) ^ value;
        for (int i = 0; i < 5; ++i) {
            if ((top >> i) & 1) checksum ^= generator[i];
        }
    }
    return checksum;
}

// 5-bit words to bytes; nullopt when the padding is not zero or longer than 4 bits.
std::optional<std::vector<std::uint8_t>> words_to_bytes(const std::vector<std::uint8_t>& words) {
    std::vector<std::uint8_t> out;
    std::uint32_t accumulator = 0;
    int bits = 0;
    for (auto word : words) {
        accumulator = (accumulator << 5) | word;
        bits += 5;
        while (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<std::uint8_t>((accumulator >> bits) & 0xff));
        }
    }
    if (bits >= 5 || (accumulator & ((1u << bits) - 1)) != 0) return std::nullopt;
    return out;
}

// Base58 to bytes (leading '1's are zero bytes); nullopt on a character outside the alphabet.
std::optional<std::vector<std::uint8_t>> base58_decode(std::string_view text) {
    std::vector<std::uint8_t> number;  // big-endian base 256
    for (char c : text) {
        auto digit = base58_alphabet.find(c);
        if (digit == std::string_view::npos) return std::nullopt;
        unsigned carry = static_cast<unsigned>(digit);
        for (auto it = number.rbegin(); it != number.rend(); ++it) {
            carry += static_cast<unsigned>(*it) * 58;
            *it = static_cast<std::uint8_t>(carry & 0xff);
            carry >>= 8;
        }
        while (carry > 0) {
            number.insert(number.begin(), static_cast<std::uint8_t>(carry & 0xff));
            carry >>= 8;
        }
    }
    std::size_t zeros = 0;
    while (zeros < text.size() && text[zeros] == '1') ++zeros;
    number.insert(number.begin(), zeros, 0);
    return number;
}

bool is_dns_name(std::string_view text) {
    if (text.empty() || text.size() > 253 || text.find('.') == std::string_view::npos) return false;
    std::size_t start = 0;
    while (start <= text.size()) {
        auto dot = text.find('.', start);
        std::string_view label = text.substr(
            start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-')
            return false;
        for (char c : label) {
            if (!is_lower_alnum(c) && c != '-') return false;
        }
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    return true;
}

}  // namespace

bool is_email(std::string_view text) {
    auto at = text.find('@');
    if (at == std::string_view::npos || at == 0 || text.find('@', at + 1) != std::string_view::npos)
        return false;
    std::string_view domain = text.substr(at + 1);
    auto dot = domain.rfind('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 2 > domain.size()) return false;
    auto ok = [](char c) {
        return is_lower_alnum(c) || (c >= 'A' && c <= 'Z') ||
               std::string_view("._%+-").find(c) != std::string_view::npos;
    };
    return std::all_of(text.begin(), text.begin() + static_cast<long>(at), ok) &&
           std::all_of(domain.begin(), domain.end(), [](char c) {
               return is_lower_alnum(c) || (c >= 'A' && c <= 'Z') || c == '.' || c == '-';
           });
}

bool is_aba_routing_number(std::string_view digits) {
    if (digits.size() != 9 || !all_digits(digits)) return false;
    int prefix = (digits[0] - '0') * 10 + (digits[1] - '0');
    bool prefix_ok = prefix <= 12 || (prefix >= 21 && prefix <= 32) ||
                     (prefix >= 61 && prefix <= 72) || prefix == 80;
    static constexpr int weights[9] = {3, 7, 1, 3, 7, 1, 3, 7, 1};
    int sum = 0;
    for (int i = 0; i < 9; ++i) sum += weights[i] * (digits[i] - '0');
    return prefix_ok && sum % 10 == 0;
}

bool is_clabe(std::string_view digits) {
    if (digits.size() != 18 || !all_digits(digits)) return false;
    static constexpr int weights[3] = {3, 7, 1};
    int sum = 0;
    for (int i = 0; i < 17; ++i) sum += ((digits[i] - '0') * weights[i % 3]) % 10;
    return (10 - sum % 10) % 10 == digits[17] - '0';
}

bool is_cpf(std::string_view digits) {
    if (digits.size() != 11 || !all_digits(digits) || cpf_like_all_equal(digits)) return false;
    int sum = 0;
    for (int i = 0; i < 9; ++i) sum += (digits[i] - '0') * (10 - i);
    int first = mod11_digit(sum);
    sum = 0;
    for (int i = 0; i < 9; ++i) sum += (digits[i] - '0') * (11 - i);
    sum += first * 2;
    return first == digits[9] - '0' && mod11_digit(sum) == digits[10] - '0';
}

bool is_cnpj(std::string_view text) {
    if (text.size() != 14 || !all_digits(text.substr(12)) || cpf_like_all_equal(text)) return false;
    if (!std::all_of(text.begin(), text.begin() + 12, is_upper_alnum)) return false;
    static constexpr int first_weights[12] = {5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2};
    static constexpr int second_weights[13] = {6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2};
    int sum = 0;
    for (int i = 0; i < 12; ++i) sum += (text[i] - '0') * first_weights[i];
    int first = mod11_digit(sum);
    sum = 0;
    for (int i = 0; i < 12; ++i) sum += (text[i] - '0') * second_weights[i];
    sum += first * second_weights[12];
    return first == text[12] - '0' && mod11_digit(sum) == text[13] - '0';
}

bool is_iban(std::string_view iban) {
    if (iban.size() < 15 || iban.size() > 34 ||
        !std::all_of(iban.begin(), iban.end(), is_upper_alnum))
        return false;
    auto length = iban_lengths().find(iban.substr(0, 2));
    if (length == iban_lengths().end() || static_cast<int>(iban.size()) != length->second)
        return false;
    if (!all_digits(iban.substr(2, 2))) return false;
    std::string moved = std::string(iban.substr(4)) + std::string(iban.substr(0, 4));
    int remainder = 0;
    for (char c : moved) {
        int value = c <= '9' ? c - '0' : c - 'A' + 10;
        remainder = value >= 10 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
    }
    return remainder == 1;
}

bool is_bic(std::string_view text) {
    if (text.size() != 8 && text.size() != 11) return false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        bool letter = c >= 'A' && c <= 'Z';
        if (i < 6 ? !letter : !is_upper_alnum(c)) return false;
    }
    return is_country_code(text.substr(4, 2));
}

bool is_upi_vpa(std::string_view text) {
    auto at = text.find('@');
    if (at == std::string_view::npos || text.find('@', at + 1) != std::string_view::npos)
        return false;
    std::string_view handle = text.substr(0, at), psp = text.substr(at + 1);
    if (handle.empty() || handle.size() > 256 || psp.size() < 2 || psp.size() > 64) return false;
    bool handle_ok = std::all_of(handle.begin(), handle.end(), [](char c) {
        return is_lower_alnum(c) || c == '.' || c == '_' || c == '-';
    });
    bool psp_ok = std::all_of(psp.begin(), psp.end(), [](char c) { return c >= 'a' && c <= 'z'; });
    return handle_ok && psp_ok;
}

std::optional<bech32_decoded> bech32_decode(std::string_view text, bech32_variant variant) {
    bool lower = false, upper = false;
    for (char c : text) {
        if (c < 33 || c > 126) return std::nullopt;
        lower |= c >= 'a' && c <= 'z';
        upper |= c >= 'A' && c <= 'Z';
    }
    if (lower && upper) return std::nullopt;
    std::string folded = to_lower(std::string(text));
    auto separator = folded.rfind('1');
    if (separator == std::string::npos || separator == 0 || separator + 7 > folded.size())
        return std::nullopt;
    bech32_decoded out;
    out.hrp = folded.substr(0, separator);
    std::vector<std::uint8_t> values;
    for (char c : out.hrp) values.push_back(static_cast<std::uint8_t>(c >> 5));
    values.push_back(0);
    for (char c : out.hrp) values.push_back(static_cast<std::uint8_t>(c & 31));
    for (std::size_t i = separator + 1; i < folded.size(); ++i) {
        auto word = bech32_charset.find(folded[i]);
        if (word == std::string_view::npos) return std::nullopt;
        values.push_back(static_cast<std::uint8_t>(word));
        out.words.push_back(static_cast<std::uint8_t>(word));
    }
    std::uint32_t expected = variant == bech32_variant::bech32 ? 1 : 0x2bc830a3;
    if (bech32_polymod(values) != expected) return std::nullopt;
    out.words.resize(out.words.size() - 6);
    return out;
}

bool is_spark_address(std::string_view text) {
    auto decoded = bech32_decode(text, bech32_variant::bech32m);
    if (!decoded) return false;
    static constexpr std::array<std::string_view, 10> prefixes = {
        "spark", "sparkt", "sparkrt", "sparks", "sparkl", "sp", "spt", "sprt", "sps", "spl"};
    if (std::find(prefixes.begin(), prefixes.end(), decoded->hrp) == prefixes.end()) return false;
    auto bytes = words_to_bytes(decoded->words);
    // Field 1 of the SparkAddress message: the 33-byte compressed identity key.
    return bytes && bytes->size() >= 35 && (*bytes)[0] == 0x0a && (*bytes)[1] == 0x21 &&
           ((*bytes)[2] == 0x02 || (*bytes)[2] == 0x03);
}

bool is_bolt11_invoice_shape(std::string_view text) {
    auto decoded = bech32_decode(text, bech32_variant::bech32);
    if (!decoded || !decoded->hrp.starts_with("ln")) return false;
    std::string_view rest = std::string_view(decoded->hrp).substr(2);
    bool network = false;
    for (std::string_view prefix : {"bcrt", "tbs", "bc", "tb"}) {
        if (rest.starts_with(prefix)) {
            rest.remove_prefix(prefix.size());
            network = true;
            break;
        }
    }
    if (!network) return false;
    if (!rest.empty()) {
        char multiplier = rest.back();
        std::string_view amount = rest;
        if (std::string_view("munp").find(multiplier) != std::string_view::npos)
            amount.remove_suffix(1);
        if (!all_digits(amount) || amount.front() == '0') return false;
        if (multiplier == 'p' && amount.back() != '0') return false;  // sub-millisatoshi
    }
    // A 35-bit timestamp (7 words) and the 520-bit signature (104 words) at least.
    return decoded->words.size() >= 7 + 104;
}

bool is_lightning_address(std::string_view text) {
    auto at = text.find('@');
    if (at == std::string_view::npos || at == 0 || at > 64) return false;
    std::string_view user = text.substr(0, at);
    bool user_ok = std::all_of(user.begin(), user.end(), [](char c) {
        return is_lower_alnum(c) || c == '-' || c == '_' || c == '.' || c == '+';
    });
    return user_ok && is_dns_name(text.substr(at + 1));
}

bool is_solana_address(std::string_view text) {
    if (text.size() < 32 || text.size() > 44) return false;
    auto bytes = base58_decode(text);
    return bytes && bytes->size() == 32;
}

bool is_tron_address(std::string_view text) {
    if (text.size() != 34 || text.front() != 'T') return false;
    auto bytes = base58_decode(text);
    if (!bytes || bytes->size() != 25 || (*bytes)[0] != 0x41) return false;
    unsigned char first[SHA256_DIGEST_LENGTH], second[SHA256_DIGEST_LENGTH];
    SHA256(bytes->data(), 21, first);
    SHA256(first, sizeof first, second);
    return std::equal(second, second + 4, bytes->begin() + 21);
}

bool is_evm_address(std::string_view text) {
    if (text.size() != 42 || !text.starts_with("0x")) return false;
    return std::all_of(text.begin() + 2, text.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    });
}

}  // namespace corridor
