#include "ledger/customers/account_details.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <map>

#include "ledger/customers/beneficiary_details.hpp"
#include "ledger/customers/details_reader.hpp"
#include "ledger/customers/details_text.hpp"

namespace corridor {
namespace json = boost::json;
using namespace details_parsing;
namespace {

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
}  // namespace corridor
