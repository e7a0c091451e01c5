#include "plugins/pix/br_code.hpp"

#include <map>

#include "rails/rail_sdk/formats/text.hpp"
#include "plugins/pix/crc16.hpp"
#include "plugins/pix/pix_key.hpp"

namespace corridor::pix {
namespace {

using formats::make_error;

constexpr std::string_view pix_gui = "br.gov.bcb.pix";

void put_field(std::string& out, std::string_view id, std::string_view value) {
    out += id;
    if (value.size() < 10) out += '0';
    out += std::to_string(value.size());
    out += value;
}

bool ascii(std::string_view text) {
    for (char c : text)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e)
            return false;
    return true;
}

std::string amount_text(std::uint64_t cents) {
    std::string fraction = std::to_string(cents % 100);
    if (fraction.size() < 2) fraction.insert(0, "0");
    return std::to_string(cents / 100) + "." + fraction;
}

// "10", "10.5", "10.50", "0.00": at most two decimals, no sign, no exponent.
formats::outcome<std::uint64_t> parse_amount(std::string_view text) {
    std::size_t dot = text.find('.');
    std::string_view whole = text.substr(0, dot);
    std::string_view fraction = dot == std::string_view::npos ? "" : text.substr(dot + 1);
    if (text.empty() || text.size() > 13 || !formats::all_digits(whole) ||
        (dot != std::string_view::npos &&
         (fraction.empty() || fraction.size() > 2 || !formats::all_digits(fraction))))
        return make_error("bad_amount", "field 54 is a decimal amount with at most 2 decimals");
    std::uint64_t cents = 0;
    for (char c : whole) cents = cents * 10 + static_cast<std::uint64_t>(c - '0');
    cents *= 100;
    if (!fraction.empty()) cents += static_cast<std::uint64_t>(fraction[0] - '0') * 10;
    if (fraction.size() == 2) cents += static_cast<std::uint64_t>(fraction[1] - '0');
    return cents;
}

using tlv_map = std::map<std::string, std::string, std::less<>>;

// Reads TLV fields in order; repeated ids are refused.
formats::outcome<tlv_map> read_tlv(std::string_view text, std::string_view where,
                                   std::vector<std::string>* order = nullptr) {
    tlv_map fields;
    std::size_t at = 0;
    while (at < text.size()) {
        if (text.size() - at < 4 || !formats::all_digits(text.substr(at, 4)))
            return make_error("bad_tlv", std::string(where) + ": a field header is not 4 digits");
        std::string id(text.substr(at, 2));
        std::size_t length =
            static_cast<std::size_t>(std::stoi(std::string(text.substr(at + 2, 2))));
        if (length > text.size() - at - 4)
            return make_error("bad_tlv",
                              std::string(where) + ": field " + id + " runs past the end");
        if (!fields.emplace(id, std::string(text.substr(at + 4, length))).second)
            return make_error("bad_tlv", std::string(where) + ": field " + id + " appears twice");
        if (order) order->push_back(id);
        at += 4 + length;
    }
    return fields;
}

formats::verdict check_code(const br_code& code) {
    bool has_key = !code.pix_key.empty();
    if (has_key == !code.location_url.empty())
        return make_error("bad_account", "a BR Code has either a PIX key or a location URL");
    if (has_key) {
        if (auto type = infer_pix_key_type(code.pix_key); !type) return type.error();
    }
    if (code.location_url.rfind("https://", 0) == 0 || code.location_url.rfind("http://", 0) == 0)
        return make_error("bad_url", "the location URL is written without its scheme");
    for (auto [text, name] : {std::pair{&code.merchant_name, "merchant name"},
                              std::pair{&code.merchant_city, "merchant city"},
                              std::pair{&code.additional_info, "additional info"},
                              std::pair{&code.location_url, "location URL"},
                              std::pair{&code.postal_code, "postal code"}})
        if (!ascii(*text))
            return make_error("bad_character", std::string(name) + " must be printable ASCII");
    if (code.merchant_name.empty() || code.merchant_name.size() > 25)
        return make_error("bad_merchant_name", "the merchant name has 1 to 25 characters");
    if (code.merchant_city.empty() || code.merchant_city.size() > 15)
        return make_error("bad_merchant_city", "the merchant city has 1 to 15 characters");
    bool txid_ok = code.txid == "***" || (!code.txid.empty() && code.txid.size() <= 25);
    for (char c : code.txid) txid_ok = txid_ok && (code.txid == "***" || formats::is_alnum(c));
    if (!txid_ok) return make_error("bad_txid", "the txid has 1 to 25 letters or digits, or ***");
    if (code.merchant_category.size() != 4 || !formats::all_digits(code.merchant_category))
        return make_error("bad_merchant_category", "the merchant category code has 4 digits");
    if (code.amount_cents && amount_text(*code.amount_cents).size() > 13)
        return make_error("bad_amount", "the amount has more than 13 characters");
    return formats::valid;
}

}  // namespace

formats::outcome<std::string> build_br_code(const br_code& code) {
    if (auto verdict = check_code(code); !verdict) return verdict.error();
    std::string account;
    put_field(account, "00", pix_gui);
    if (!code.pix_key.empty()) put_field(account, "01", code.pix_key);
    if (!code.additional_info.empty()) put_field(account, "02", code.additional_info);
    if (!code.location_url.empty()) put_field(account, "25", code.location_url);
    if (account.size() > 99)
        return make_error("too_long", "the merchant account field exceeds 99 characters");
    std::string additional;
    put_field(additional, "05", code.txid);

    std::string out;
    put_field(out, "00", "01");
    if (code.single_use) put_field(out, "01", "12");
    put_field(out, "26", account);
    put_field(out, "52", code.merchant_category);
    put_field(out, "53", "986");
    if (code.amount_cents) put_field(out, "54", amount_text(*code.amount_cents));
    put_field(out, "58", "BR");
    put_field(out, "59", code.merchant_name);
    put_field(out, "60", code.merchant_city);
    if (!code.postal_code.empty()) put_field(out, "61", code.postal_code);
    put_field(out, "62", additional);
    out += "6304";
    out += crc16_hex(crc16_ccitt_false(out));
    return out;
}

formats::outcome<br_code> parse_br_code(std::string_view payload) {
    if (payload.size() < 8 || payload.substr(payload.size() - 8, 4) != "6304")
        return make_error("missing_crc", "a BR Code ends with field 63 (6304 and 4 hex digits)");
    std::string written = formats::lower(payload.substr(payload.size() - 4));
    std::string computed =
        formats::lower(crc16_hex(crc16_ccitt_false(payload.substr(0, payload.size() - 4))));
    if (written != computed)
        return make_error("bad_crc", "the CRC is " +
                                         formats::lower(payload.substr(payload.size() - 4)) +
                                         ", the payload's is " + computed);
    std::vector<std::string> order;
    auto fields = read_tlv(payload, "payload", &order);
    if (!fields) return fields.error();
    if (order.front() != "00" || fields->at("00") != "01")
        return make_error("bad_format_indicator", "field 00 comes first and is 01");
    if (order.back() != "63") return make_error("missing_crc", "field 63 comes last");

    br_code code;
    auto require = [&](const char* id) -> const std::string* {
        auto found = fields->find(id);
        return found == fields->end() ? nullptr : &found->second;
    };
    if (const auto* method = require("01")) {
        if (*method != "11" && *method != "12")
            return make_error("bad_initiation_method", "field 01 is 11 or 12");
        code.single_use = *method == "12";
    }
    const auto* account_text = require("26");
    if (!account_text) return make_error("missing_field", "field 26 (PIX account) is missing");
    auto account = read_tlv(*account_text, "field 26");
    if (!account) return account.error();
    auto gui = account->find("00");
    if (gui == account->end() || formats::lower(gui->second) != pix_gui)
        return make_error("bad_gui", "field 26-00 is br.gov.bcb.pix");
    if (auto key = account->find("01"); key != account->end()) code.pix_key = key->second;
    if (auto info = account->find("02"); info != account->end())
        code.additional_info = info->second;
    if (auto url = account->find("25"); url != account->end()) code.location_url = url->second;
    if (code.pix_key.empty() == code.location_url.empty())
        return make_error("bad_account", "field 26 has either a key (01) or a URL (25)");

    for (const char* id : {"52", "53", "58", "59", "60", "62"})
        if (!require(id))
            return make_error("missing_field", std::string("field ") + id + " is missing");
    code.merchant_category = *require("52");
    if (*require("53") != "986") return make_error("bad_currency", "field 53 is 986 (BRL)");
    if (*require("58") != "BR") return make_error("bad_country", "field 58 is BR");
    code.merchant_name = *require("59");
    code.merchant_city = *require("60");
    if (const auto* postal = require("61")) code.postal_code = *postal;
    if (const auto* amount = require("54")) {
        auto cents = parse_amount(*amount);
        if (!cents) return cents.error();
        code.amount_cents = cents.value();
    }
    auto additional = read_tlv(*require("62"), "field 62");
    if (!additional) return additional.error();
    auto txid = additional->find("05");
    if (txid == additional->end())
        return make_error("missing_field", "field 62-05 (txid) is missing");
    code.txid = txid->second;
    return code;
}

}  // namespace corridor::pix
