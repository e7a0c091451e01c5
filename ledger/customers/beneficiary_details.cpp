#include "ledger/customers/beneficiary_details.hpp"

#include <boost/json.hpp>

#include "ledger/base/countries.hpp"
#include "ledger/base/time_format.hpp"
#include "ledger/customers/account_identifiers.hpp"
#include "ledger/customers/details_reader.hpp"
#include "ledger/customers/details_text.hpp"

namespace corridor::details_parsing {
namespace json = boost::json;
namespace {

bool is_date_of_birth(std::string_view text, std::int64_t now_ms) {
    if (!is_calendar_date(text)) return false;
    auto ms = parse_timestamp_ms(text);
    return ms && *ms <= now_ms && text >= "1900-01-01";
}

bool is_e164(std::string_view text) {
    return text.size() >= 3 && text.size() <= 16 && text[0] == '+' && text[1] >= '1' &&
           text[1] <= '9' && all_digits(text.substr(1));
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

}  // namespace

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

}  // namespace corridor::details_parsing
