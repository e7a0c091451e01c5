#include "ledger/customers/account_details.hpp"

#include <openssl/sha.h>

#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <map>

#include "ledger/base/countries.hpp"
#include "ledger/base/time_format.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

constexpr std::size_t name_chars_max = 256;

// Thrown inside this file only, caught by validate_account_details and returned as a value.
struct details_failure {
    details_error error;
};

[[noreturn]] void malformed(std::string field, std::string message) {
    throw details_failure{{details_problem::malformed, std::move(field), std::move(message)}};
}
[[noreturn]] void invalid(std::string field, std::string message) {
    throw details_failure{
        {details_problem::invalid_identifier, std::move(field), std::move(message)}};
}

bool all_digits(std::string_view text) {
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}
bool is_upper_alnum(char c) {
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
}
bool is_lower_alnum(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z');
}
std::string to_upper(std::string text) {
    for (auto& c : text) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c;
    return text;
}
std::string to_lower(std::string text) {
    for (auto& c : text) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
    return text;
}
std::string without(std::string_view text, std::string_view drop) {
    std::string out;
    for (char c : text) {
        if (drop.find(c) == std::string_view::npos) out.push_back(c);
    }
    return out;
}

// Reads the fields of one JSON object with paths for messages.
class reader {
public:
    reader(const json::object& object, std::string prefix)
        : object_(object), prefix_(std::move(prefix)) {}

    std::string path(std::string_view key) const { return prefix_ + "." + std::string(key); }
    bool has(std::string_view key) const {
        auto* value = object_.if_contains(key);
        return value && !value->is_null();
    }
    std::optional<std::string> optional_string(std::string_view key,
                                               std::size_t chars_max = name_chars_max) const {
        auto* value = object_.if_contains(key);
        if (!value || value->is_null()) return std::nullopt;
        if (!value->is_string()) malformed(path(key), "must be a string");
        std::string_view text = value->as_string();
        if (text.size() > chars_max) {
            malformed(path(key), "must be at most " + std::to_string(chars_max) + " characters");
        }
        if (text.find('\0') != std::string_view::npos) malformed(path(key), "must not contain NUL");
        return std::string(text);
    }
    std::string required_string(std::string_view key,
                                std::size_t chars_max = name_chars_max) const {
        auto value = optional_string(key, chars_max);
        if (!value) malformed(path(key), "is required");
        if (value->empty()) malformed(path(key), "must not be empty");
        return *value;
    }
    std::optional<std::string> optional_enum(
        std::string_view key, std::initializer_list<std::string_view> allowed) const {
        auto value = optional_string(key, 64);
        if (!value) return std::nullopt;
        for (auto candidate : allowed) {
            if (*value == candidate) return value;
        }
        std::string list;
        for (auto candidate : allowed) list += (list.empty() ? "" : ", ") + std::string(candidate);
        malformed(path(key), "must be one of " + list);
    }
    std::string required_enum(std::string_view key,
                              std::initializer_list<std::string_view> allowed) const {
        auto value = optional_enum(key, allowed);
        if (!value) malformed(path(key), "is required");
        return *value;
    }
    const json::object* optional_object(std::string_view key) const {
        auto* value = object_.if_contains(key);
        if (!value || value->is_null()) return nullptr;
        if (!value->is_object()) malformed(path(key), "must be an object");
        return &value->as_object();
    }

private:
    const json::object& object_;
    std::string prefix_;
};

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

constexpr std::string_view bech32_charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
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

bool is_date_of_birth(std::string_view text, std::int64_t now_ms) {
    if (!is_calendar_date(text)) return false;
    auto ms = parse_timestamp_ms(text);
    return ms && *ms <= now_ms && text >= "1900-01-01";
}

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

bool is_e164(std::string_view text) {
    return text.size() >= 3 && text.size() <= 16 && text[0] == '+' && text[1] >= '1' &&
           text[1] <= '9' && all_digits(text.substr(1));
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

bool is_uuid_text(std::string_view text) {
    if (text.size() != 36) return false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        char c = text[i];
        bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
        if (dash ? c != '-' : !hex) return false;
    }
    return true;
}

// ---- the per-type rules ----

struct type_rule {
    std::string_view kind;  // the canonical type the rules are written for
    std::vector<std::string_view> currencies;
    std::vector<std::string_view> rails;  // allowed paymentRails; the first is the default
    bool beneficiary;
};

// Spellings of the interface snapshot and the per-currency names that replaced them.
const std::map<std::string_view, type_rule>& type_rules() {
    static const std::map<std::string_view, type_rule> rules = [] {
        std::map<std::string_view, type_rule> out;
        type_rule us{"US_ACCOUNT", {"USD"}, {"ACH", "WIRE", "RTP", "FEDNOW"}, true};
        type_rule clabe{"CLABE", {"MXN"}, {"SPEI"}, true};
        type_rule pix{"PIX", {"BRL"}, {"PIX"}, true};
        type_rule iban{"IBAN", {"EUR", "GBP"}, {"SEPA", "SEPA_INSTANT", "SWIFT"}, true};
        type_rule upi{"UPI", {"INR"}, {"UPI"}, true};
        out.emplace("US_ACCOUNT", us);
        out.emplace("USD_ACCOUNT", us);
        out.emplace("CLABE", clabe);
        out.emplace("MXN_ACCOUNT", clabe);
        out.emplace("PIX", pix);
        out.emplace("BRL_ACCOUNT", pix);
        out.emplace("IBAN", iban);
        out.emplace("EUR_ACCOUNT", iban);
        out.emplace("UPI", upi);
        out.emplace("INR_ACCOUNT", upi);
        out.emplace("NGN_ACCOUNT",
                    type_rule{"NGN_ACCOUNT", {"NGN"}, {"NIP", "BANK_TRANSFER"}, true});
        out.emplace("CAD_ACCOUNT",
                    type_rule{"CAD_ACCOUNT", {"CAD"}, {"EFT", "INTERAC", "WIRE"}, true});
        out.emplace("GBP_ACCOUNT",
                    type_rule{"GBP_ACCOUNT", {"GBP"}, {"FASTER_PAYMENTS", "BACS", "CHAPS"}, true});
        out.emplace("PHP_ACCOUNT",
                    type_rule{"PHP_ACCOUNT", {"PHP"}, {"INSTAPAY", "PESONET"}, true});
        out.emplace("SGD_ACCOUNT",
                    type_rule{"SGD_ACCOUNT", {"SGD"}, {"FAST", "PAYNOW", "SWIFT"}, true});
        out.emplace("SPARK_WALLET",
                    type_rule{"SPARK_WALLET", {"BTC"}, {"SPARK", "LIGHTNING"}, false});
        out.emplace("LIGHTNING", type_rule{"LIGHTNING", {"BTC"}, {"LIGHTNING"}, false});
        // Stablecoin wallets hold dollar tokens (assetType); their currency is USD.
        out.emplace("SOLANA_WALLET", type_rule{"SOLANA_WALLET", {"USD"}, {"SOLANA"}, false});
        out.emplace("TRON_WALLET", type_rule{"TRON_WALLET", {"USD"}, {"TRON"}, false});
        out.emplace("POLYGON_WALLET", type_rule{"POLYGON_WALLET", {"USD"}, {"POLYGON"}, false});
        out.emplace("BASE_WALLET", type_rule{"BASE_WALLET", {"USD"}, {"BASE"}, false});
        return out;
    }();
    return rules;
}

json::object read_address(const json::object& object, const std::string& path) {
    reader fields(object, path);
    json::object address;
    address["line1"] = fields.required_string("line1");
    for (auto key : {"line2", "city", "state"}) {
        if (auto value = fields.optional_string(key)) address[key] = *value;
    }
    address["postalCode"] = fields.required_string("postalCode", 32);
    auto country = fields.required_string("country", 2);
    if (!is_country_code(country))
        malformed(fields.path("country"), "must be an ISO 3166-1 alpha-2 country code");
    address["country"] = country;
    return address;
}

std::string read_country(const reader& fields, std::string_view key, bool required) {
    auto value =
        required ? std::optional(fields.required_string(key, 2)) : fields.optional_string(key, 2);
    if (!value) return {};
    if (!is_country_code(*value))
        malformed(fields.path(key), "must be an ISO 3166-1 alpha-2 country code such as US");
    return *value;
}

// INDIVIDUAL {fullName, birthDate, nationality, address?} or BUSINESS {legalName,
// registrationNumber?, taxId?, address?}; both may carry email, phoneNumber, countryOfResidence.
json::object read_beneficiary(const json::object& object, const std::string& path,
                              std::int64_t now_ms, std::string& name) {
    reader fields(object, path);
    auto type = fields.required_enum("beneficiaryType", {"INDIVIDUAL", "BUSINESS"});
    json::object out{{"beneficiaryType", type}};
    bool individual = type == "INDIVIDUAL";
    for (auto key : {"fullName", "birthDate", "nationality"}) {
        if (!individual && fields.has(key))
            malformed(fields.path(key), "applies to INDIVIDUAL beneficiaries only");
    }
    for (auto key : {"legalName", "registrationNumber", "taxId"}) {
        if (individual && fields.has(key))
            malformed(fields.path(key), "applies to BUSINESS beneficiaries only");
    }
    if (individual) {
        name = fields.required_string("fullName");
        out["fullName"] = name;
        auto birth = fields.required_string("birthDate", 10);
        if (!is_date_of_birth(birth, now_ms)) {
            malformed(fields.path("birthDate"), "must be a past date YYYY-MM-DD after 1900-01-01");
        }
        out["birthDate"] = birth;
        out["nationality"] = read_country(fields, "nationality", true);
    } else {
        name = fields.required_string("legalName");
        out["legalName"] = name;
        for (auto key : {"registrationNumber", "taxId"}) {
            if (auto value = fields.optional_string(key, 64)) out[key] = *value;
        }
    }
    if (auto email = fields.optional_string("email", 254)) {
        if (!is_email(*email)) malformed(fields.path("email"), "must be an e-mail address");
        out["email"] = *email;
    }
    if (auto phone = fields.optional_string("phoneNumber", 16)) {
        if (!is_e164(*phone))
            malformed(fields.path("phoneNumber"), "must be E.164, e.g. +14155550100");
        out["phoneNumber"] = *phone;
    }
    if (fields.has("countryOfResidence"))
        out["countryOfResidence"] = read_country(fields, "countryOfResidence", true);
    if (const json::object* address = fields.optional_object("address")) {
        out["address"] = read_address(*address, fields.path("address"));
    }
    return out;
}

// What each type contributes: its normalised fields, identity and primary identifier.
struct type_result {
    json::object info;
    std::string identity;
    std::string primary;
};

std::string digits_field(const reader& fields, std::string_view key, std::size_t min,
                         std::size_t max, std::string_view what) {
    auto value = fields.required_string(key, 64);
    if (!all_digits(value) || value.size() < min || value.size() > max) {
        std::string count =
            min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max);
        invalid(fields.path(key), std::string(what) + " must be " + count + " digits");
    }
    return value;
}

type_result read_us_account(const reader& fields) {
    type_result out;
    auto account = fields.required_string("accountNumber", 64);
    if (account.size() > 17 || !std::all_of(account.begin(), account.end(), is_upper_alnum) ||
        !std::any_of(account.begin(), account.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        invalid(fields.path("accountNumber"), "must be 1 to 17 digits or upper-case letters");
    }
    auto routing = fields.required_string("routingNumber", 64);
    if (routing.size() != 9 || !all_digits(routing))
        invalid(fields.path("routingNumber"), "must be exactly 9 digits");
    if (!is_aba_routing_number(routing)) {
        invalid(fields.path("routingNumber"),
                "is not a valid ABA routing number (3-7-1 check digit or prefix)");
    }
    out.info["accountNumber"] = account;
    out.info["routingNumber"] = routing;
    out.info["accountCategory"] = fields.required_enum("accountCategory", {"CHECKING", "SAVINGS"});
    if (auto bank = fields.optional_string("bankName")) out.info["bankName"] = *bank;
    out.identity = routing + "/" + account;
    out.primary = account;
    return out;
}

type_result read_clabe(const reader& fields) {
    type_result out;
    auto clabe = digits_field(fields, "clabeNumber", 18, 18, "a CLABE");
    if (!is_clabe(clabe)) invalid(fields.path("clabeNumber"), "has a wrong check digit");
    out.info["clabeNumber"] = clabe;
    if (auto bank = fields.optional_string("bankName")) out.info["bankName"] = *bank;
    out.identity = out.primary = clabe;
    return out;
}

// A PIX key of its declared type, normalised as the DICT stores it.
std::string read_pix_key(const reader& fields, const std::string& type) {
    auto key = fields.required_string("pixKey", 77);
    auto path = fields.path("pixKey");
    if (type == "CPF") {
        std::string digits = without(key, ".-");
        if (digits.size() != 11 || !all_digits(digits) || !is_cpf(digits))
            invalid(path, "is not a valid CPF (11 digits with check digits)");
        return digits;
    }
    if (type == "CNPJ") {
        std::string text = to_upper(without(key, "./-"));
        if (!is_cnpj(text)) invalid(path, "is not a valid CNPJ (14 characters with check digits)");
        return text;
    }
    if (type == "EMAIL") {
        std::string lower = to_lower(key);
        if (!is_email(lower)) invalid(path, "must be an e-mail address of at most 77 characters");
        return lower;
    }
    if (type == "PHONE") {
        // +55, a two-digit area code (11 to 99) and an 8- or 9-digit number.
        bool ok = key.starts_with("+55") && all_digits(key.substr(1)) &&
                  (key.size() == 13 || key.size() == 14) && key[3] != '0';
        if (!ok)
            invalid(path,
                    "must be a Brazilian phone number +55 with area code, e.g. +5511998765432");
        return key;
    }
    std::string lower = to_lower(key);
    if (!is_uuid_text(lower))
        invalid(path, "a RANDOM key must be a UUID such as 123e4567-e89b-12d3-a456-426655440000");
    return lower;
}

type_result read_pix(const reader& fields) {
    type_result out;
    auto type = fields.required_enum("pixKeyType", {"CPF", "CNPJ", "EMAIL", "PHONE", "RANDOM"});
    auto key = read_pix_key(fields, type);
    auto tax = to_upper(without(fields.required_string("taxId", 32), "./-"));
    if (!(tax.size() == 11 && all_digits(tax) && is_cpf(tax)) && !is_cnpj(tax)) {
        invalid(fields.path("taxId"), "must be a valid CPF or CNPJ");
    }
    out.info["pixKey"] = key;
    out.info["pixKeyType"] = type;
    out.info["taxId"] = tax;
    out.identity = type + "/" + key;
    out.primary = key;
    return out;
}

std::string read_bic(const reader& fields, std::string_view key, std::string_view country) {
    auto bic = to_upper(fields.required_string(key, 11));
    if (!is_bic(bic))
        invalid(fields.path(key), "must be a BIC of 8 or 11 characters, e.g. DEUTDEFF");
    if (!country.empty() && bic.substr(4, 2) != country) {
        invalid(fields.path(key), "must be a BIC of a bank in " + std::string(country));
    }
    return bic;
}

type_result read_iban(const reader& fields) {
    type_result out;
    auto iban = to_upper(without(fields.required_string("iban", 64), " "));
    if (iban.size() < 15 || iban.size() > 34)
        invalid(fields.path("iban"), "must be 15 to 34 characters");
    if (!is_iban(iban))
        invalid(fields.path("iban"), "is not a valid IBAN (country length or mod-97 check)");
    out.info["iban"] = iban;
    out.info["swiftBic"] = read_bic(fields, "swiftBic", "");
    if (auto bank = fields.optional_string("bankName")) out.info["bankName"] = *bank;
    out.identity = out.primary = iban;
    return out;
}

type_result read_upi(const reader& fields) {
    type_result out;
    auto vpa = to_lower(fields.required_string("vpa", 255));
    if (!is_upi_vpa(vpa))
        invalid(fields.path("vpa"), "must be a UPI address handle@psp, e.g. name@oksbi");
    out.info["vpa"] = vpa;
    out.identity = out.primary = vpa;
    return out;
}

type_result read_ngn(const reader& fields) {
    type_result out;
    auto account = digits_field(fields, "accountNumber", 10, 10, "a NUBAN account number");
    auto bank = fields.required_string("bankName");
    out.info["accountNumber"] = account;
    out.info["bankName"] = bank;
    out.info["purposeOfPayment"] = fields.required_enum(
        "purposeOfPayment", {"GIFT", "SELF", "GOODS_OR_SERVICES", "EDUCATION", "HEALTH_OR_MEDICAL",
                             "REAL_ESTATE_PURCHASE", "TAX_PAYMENT", "LOAN_PAYMENT", "UTILITY_BILL",
                             "DONATION", "TRAVEL", "OTHER"});
    out.identity = to_upper(bank) + "/" + account;
    out.primary = account;
    return out;
}

type_result read_cad(const reader& fields) {
    type_result out;
    auto bank = digits_field(fields, "bankCode", 3, 3, "an institution number");
    auto branch = digits_field(fields, "branchCode", 5, 5, "a transit (branch) number");
    auto account = digits_field(fields, "accountNumber", 7, 12, "an account number");
    out.info["bankCode"] = bank;
    out.info["branchCode"] = branch;
    out.info["accountNumber"] = account;
    out.identity = bank + "/" + branch + "/" + account;
    out.primary = account;
    return out;
}

type_result read_gbp(const reader& fields) {
    type_result out;
    auto raw = fields.required_string("sortCode", 16);
    std::string sort = without(raw, "-");
    bool hyphens_ok = raw.size() == 6 || (raw.size() == 8 && raw[2] == '-' && raw[5] == '-');
    if (sort.size() != 6 || !all_digits(sort) || !hyphens_ok) {
        invalid(fields.path("sortCode"), "must be 6 digits, optionally as NN-NN-NN");
    }
    auto account = digits_field(fields, "accountNumber", 8, 8, "a UK account number");
    out.info["sortCode"] = sort;
    out.info["accountNumber"] = account;
    out.identity = sort + "/" + account;
    out.primary = account;
    return out;
}

type_result read_php(const reader& fields) {
    type_result out;
    auto bank = fields.required_string("bankName");
    auto account = digits_field(fields, "accountNumber", 6, 20, "a Philippine account number");
    out.info["bankName"] = bank;
    out.info["accountNumber"] = account;
    out.identity = to_upper(bank) + "/" + account;
    out.primary = account;
    return out;
}

type_result read_sgd(const reader& fields) {
    type_result out;
    auto bank = fields.required_string("bankName");
    auto swift = read_bic(fields, "swiftCode", "SG");
    auto account = digits_field(fields, "accountNumber", 6, 20, "a Singapore account number");
    out.info["bankName"] = bank;
    out.info["swiftCode"] = swift;
    out.info["accountNumber"] = account;
    out.identity = swift.substr(0, 8) + "/" + account;
    out.primary = account;
    return out;
}

type_result read_spark(const reader& fields) {
    type_result out;
    auto address = fields.required_string("address", 1024);
    if (!is_spark_address(address)) {
        invalid(fields.path("address"),
                "must be a Spark address (spark1/sparkrt1/sp1... with a valid bech32m checksum)");
    }
    out.info["address"] = to_lower(address);
    out.info["assetType"] = fields.optional_enum("assetType", {"BTC", "USDB"}).value_or("BTC");
    if (auto invoice = fields.optional_string("invoice", 4096)) {
        if (!is_bolt11_invoice_shape(*invoice))
            invalid(fields.path("invoice"), "must be a BOLT #11 invoice");
        out.info["invoice"] = to_lower(*invoice);
    }
    out.identity = out.primary = to_lower(address);
    return out;
}

type_result read_lightning(const reader& fields) {
    type_result out;
    auto invoice = fields.optional_string("invoice", 4096);
    auto offer = fields.optional_string("bolt12", 4096);
    auto address = fields.optional_string("lightningAddress", 320);
    int given = int(invoice.has_value()) + int(offer.has_value()) + int(address.has_value());
    if (given != 1) {
        malformed(fields.path("invoice"),
                  "exactly one of invoice, bolt12 and lightningAddress is required");
    }
    if (invoice) {
        if (!is_bolt11_invoice_shape(*invoice)) {
            invalid(
                fields.path("invoice"),
                "must be a BOLT #11 invoice (lnbc/lntb/lntbs/lnbcrt with a valid bech32 checksum)");
        }
        out.info["invoice"] = to_lower(*invoice);
        out.identity = out.primary = "invoice/" + to_lower(*invoice);
    } else if (offer) {
        std::string lower = to_lower(*offer);
        bool ok = lower.starts_with("lno1") && lower.size() >= 20 &&
                  std::all_of(lower.begin() + 4, lower.end(), [](char c) {
                      return bech32_charset.find(c) != std::string_view::npos;
                  });
        if (!ok) invalid(fields.path("bolt12"), "must be a BOLT #12 offer starting lno1");
        out.info["bolt12"] = lower;
        out.identity = out.primary = "offer/" + lower;
    } else {
        std::string lower = to_lower(*address);
        if (!is_lightning_address(lower)) {
            invalid(fields.path("lightningAddress"), "must be a Lightning address user@domain");
        }
        out.info["lightningAddress"] = lower;
        out.identity = out.primary = "address/" + lower;
    }
    return out;
}

type_result read_wallet(const reader& fields, std::string_view kind) {
    type_result out;
    auto address = fields.required_string("address", 128);
    if (kind == "SOLANA_WALLET") {
        if (!is_solana_address(address))
            invalid(fields.path("address"), "must be a base58 Solana address of 32 bytes");
        out.info["assetType"] =
            fields.optional_enum("assetType", {"USDC", "USDT"}).value_or("USDC");
        out.identity = address;
    } else if (kind == "TRON_WALLET") {
        if (!is_tron_address(address))
            invalid(fields.path("address"), "must be a Tron address (T..., base58check)");
        out.info["assetType"] = fields.optional_enum("assetType", {"USDT"}).value_or("USDT");
        out.identity = address;
    } else {
        if (!is_evm_address(address))
            invalid(fields.path("address"), "must be 0x followed by 40 hex digits");
        out.info["assetType"] = fields.optional_enum("assetType", {"USDC"}).value_or("USDC");
        out.identity = to_lower(address);  // EVM addresses are case-insensitive
    }
    out.info["address"] = address;
    out.primary = address;
    return out;
}

type_result read_type_fields(const reader& fields, std::string_view kind) {
    if (kind == "US_ACCOUNT") return read_us_account(fields);
    if (kind == "CLABE") return read_clabe(fields);
    if (kind == "PIX") return read_pix(fields);
    if (kind == "IBAN") return read_iban(fields);
    if (kind == "UPI") return read_upi(fields);
    if (kind == "NGN_ACCOUNT") return read_ngn(fields);
    if (kind == "CAD_ACCOUNT") return read_cad(fields);
    if (kind == "GBP_ACCOUNT") return read_gbp(fields);
    if (kind == "PHP_ACCOUNT") return read_php(fields);
    if (kind == "SGD_ACCOUNT") return read_sgd(fields);
    if (kind == "SPARK_WALLET") return read_spark(fields);
    if (kind == "LIGHTNING") return read_lightning(fields);
    return read_wallet(fields, kind);
}

json::array read_rails(const json::object& object, const std::string& path, const type_rule& rule) {
    auto* value = object.if_contains("paymentRails");
    if (!value || value->is_null()) return json::array{rule.rails.front()};
    std::string allowed;
    for (auto rail : rule.rails) allowed += (allowed.empty() ? "" : ", ") + std::string(rail);
    if (!value->is_array() || value->as_array().empty()) {
        malformed(path, "must be a non-empty array of " + allowed);
    }
    json::array rails;
    for (const auto& item : value->as_array()) {
        bool known =
            item.is_string() && std::find(rule.rails.begin(), rule.rails.end(),
                                          std::string_view(item.as_string())) != rule.rails.end();
        if (!known) malformed(path, "for this account type must contain only " + allowed);
        if (std::find(rails.begin(), rails.end(), item) == rails.end()) rails.push_back(item);
    }
    return rails;
}

validated_details validate(const json::value& value, std::string_view currency, std::int64_t now_ms,
                           const std::string& path) {
    if (!value.is_object()) malformed(path, "must be an object");
    const json::object& object = value.as_object();
    reader fields(object, path);
    auto type = fields.optional_string("accountType", 64);
    if (!type) malformed(fields.path("accountType"), "is required");
    auto found = type_rules().find(*type);
    if (found == type_rules().end()) {
        std::string list;
        for (auto name : external_account_types())
            list += (list.empty() ? "" : ", ") + std::string(name);
        malformed(fields.path("accountType"), "must be one of " + list);
    }
    const type_rule& rule = found->second;
    if (std::find(rule.currencies.begin(), rule.currencies.end(), currency) ==
        rule.currencies.end()) {
        std::string list;
        for (auto code : rule.currencies) list += (list.empty() ? "" : " or ") + std::string(code);
        malformed("currency", "must be " + list + " for accountType " + *type);
    }
    validated_details out;
    out.account_type = *type;
    auto typed = read_type_fields(fields, rule.kind);
    out.account_info = json::object{{"accountType", *type}};
    out.account_info["paymentRails"] = read_rails(object, fields.path("paymentRails"), rule);
    for (auto& [key, item] : typed.info) out.account_info[key] = std::move(item);
    out.identity = std::string(rule.kind) + "|" + typed.identity;
    out.primary_identifier = typed.primary;
    if (rule.beneficiary) {
        const json::object* beneficiary = fields.optional_object("beneficiary");
        if (!beneficiary)
            malformed(fields.path("beneficiary"), "is required for accountType " + *type);
        std::string name;
        out.account_info["beneficiary"] =
            read_beneficiary(*beneficiary, fields.path("beneficiary"), now_ms, name);
        out.has_beneficiary = true;
        out.beneficiary_name = name;
    } else if (fields.has("beneficiary")) {
        malformed(fields.path("beneficiary"),
                  "does not apply to self-custody wallets (accountType " + *type + ")");
    }
    return out;
}

}  // namespace

const std::vector<std::string_view>& external_account_types() {
    static const std::vector<std::string_view> names = [] {
        std::vector<std::string_view> out;
        for (const auto& [name, rule] : type_rules()) out.push_back(name);
        return out;
    }();
    return names;
}

result<validated_details, details_error> validate_account_details(const json::value& account_info,
                                                                  std::string_view currency,
                                                                  std::int64_t now_ms,
                                                                  std::string_view path) {
    try {
        return validate(account_info, currency, now_ms, std::string(path));
    } catch (details_failure& failure) {
        return std::move(failure.error);
    }
}

result<validated_details, details_error> bank_reported_us_account(
    const json::object& account_fields, json::object beneficiary, std::string beneficiary_name) {
    try {
        reader fields(account_fields, "accountInfo");
        auto typed = read_us_account(fields);
        validated_details out;
        out.account_type = "US_ACCOUNT";
        out.account_info =
            json::object{{"accountType", "US_ACCOUNT"}, {"paymentRails", json::array{"ACH"}}};
        for (auto& [key, item] : typed.info) out.account_info[key] = std::move(item);
        out.account_info["beneficiary"] = std::move(beneficiary);
        out.identity = "US_ACCOUNT|" + typed.identity;
        out.primary_identifier = typed.primary;
        out.has_beneficiary = true;
        out.beneficiary_name = std::move(beneficiary_name);
        return out;
    } catch (details_failure& failure) {
        return std::move(failure.error);
    }
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
