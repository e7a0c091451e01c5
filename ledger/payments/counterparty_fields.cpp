#include "ledger/payments/counterparty_fields.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

namespace corridor {
namespace {

struct known_key {
    std::string_view field, key;
};
// The UMA SDKs' payerData keys (CounterPartyDataKeys) for the fields that have one.
constexpr known_key known_keys[] = {
    {"FULL_NAME", "name"},
    {"BIRTH_DATE", "birthDate"},
    {"NATIONALITY", "nationality"},
    {"EMAIL", "email"},
    {"PHONE_NUMBER", "phoneNumber"},
    {"COUNTRY_OF_RESIDENCE", "countryOfResidence"},
    {"FI_LEGAL_ENTITY_NAME", "fiLegalEntityName"},
};

}  // namespace

std::string payer_data_key(std::string_view field) {
    for (const auto& known : known_keys) {
        if (known.field == field) return std::string(known.key);
    }
    // Others in lowerCamelCase: POSTAL_ADDRESS -> postalAddress.
    std::string out;
    bool upper = false;
    for (char c : field) {
        if (c == '_') {
            upper = true;
            continue;
        }
        char lowered = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        out.push_back(upper && lowered >= 'a' && lowered <= 'z'
                          ? static_cast<char>(lowered - 'a' + 'A')
                          : lowered);
        upper = false;
    }
    return out;
}

std::optional<std::string> customer_info_field(std::string_view key) {
    if (key == "identifier" || key == "compliance" || key.empty()) return std::nullopt;
    for (const auto& known : known_keys) {
        if (known.key == key) return std::string(known.field);
    }
    // lowerCamelCase -> UPPER_SNAKE; anything else is a key the service has no field for.
    std::string out;
    for (char c : key) {
        if (c >= 'A' && c <= 'Z') {
            out.push_back('_');
            out.push_back(c);
        } else if (c >= 'a' && c <= 'z') {
            out.push_back(static_cast<char>(c - 'a' + 'A'));
        } else {
            return std::nullopt;
        }
    }
    if (out.front() == '_') return std::nullopt;
    return out;
}

boost::json::object counterparty_information_of(std::string_view counterparty_data_json,
                                                boost::json::storage_ptr storage) {
    boost::system::error_code ec;
    auto parsed = boost::json::parse(counterparty_data_json, ec, storage);
    boost::json::object out(storage);
    if (ec || !parsed.is_object()) return out;
    for (const auto& [key, value] : parsed.as_object()) {
        if (auto field = customer_info_field(key)) out[*field] = value;
    }
    return out;
}

}  // namespace corridor
