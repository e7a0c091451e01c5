// One validation path for customer input: POST and PATCH /customers, the bulk CSV import and the
// hosted KYC page all read a customer through these functions.
#include "server/api/customer_input.hpp"

#include <algorithm>
#include <boost/json.hpp>

#include "ledger/base/countries.hpp"
#include "ledger/base/time_format.hpp"
#include "ledger/base/uma_address.hpp"
#include "server/api/errors.hpp"
#include "server/api/input.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

constexpr std::size_t name_chars_max = 256;
constexpr std::size_t platform_customer_id_chars_max = 256;
constexpr std::size_t beneficial_owners_max = 25;
const std::vector<std::string_view> customer_types = {"INDIVIDUAL", "BUSINESS"};
const std::vector<std::string_view> owner_types = {
    "DIRECTOR", "CONTROL_PERSON", "BUSINESS_POINT_OF_CONTACT",
    "TRUSTEE",  "SETTLOR",        "GENERAL_PARTNER"};

std::string read_country(const json_fields& fields, std::string_view key, bool required) {
    auto value = fields.optional_string(key, 2);
    if (!value) {
        if (required) fail_field(fields.path(key), "is required");
        return {};
    }
    if (!is_country_code(*value)) {
        fail_field(fields.path(key), "must be an ISO 3166-1 alpha-2 country code such as US");
    }
    return *value;
}

std::optional<std::string> read_birth_date(const json_fields& fields, std::string_view key,
                                           std::int64_t now_ms) {
    auto value = fields.optional_string(key, 10);
    if (!value) return std::nullopt;
    auto ms = parse_timestamp_ms(*value);
    if (!is_calendar_date(*value) || !ms) fail_field(fields.path(key), "must be a date YYYY-MM-DD");
    if (*ms > now_ms || *value < "1900-01-01") {
        fail_field(fields.path(key), "must be a past date after 1900-01-01");
    }
    return value;
}

json::object read_address(const json::object& object, const std::string& path) {
    json_fields fields(object, path);
    json::object address;
    address["line1"] = fields.required_string("line1", name_chars_max);
    for (auto key : {"line2", "city", "state"}) {
        if (auto value = fields.optional_string(key, name_chars_max)) address[key] = *value;
    }
    address["postalCode"] = fields.required_string("postalCode", 32);
    address["country"] = read_country(fields, "country", true);
    return address;
}

std::optional<std::string> read_address_json(const json_fields& fields) {
    const json::object* object = fields.optional_object("address");
    if (!object) return std::nullopt;
    return json::serialize(read_address(*object, fields.path("address")));
}

std::string read_business_info(const json::object& object, const std::string& path, bool create) {
    json_fields fields(object, path);
    json::object info;
    if (create) {
        info["legalName"] = fields.required_string("legalName", name_chars_max);
    } else if (auto name = fields.optional_string("legalName", name_chars_max)) {
        if (name->empty()) fail_field(fields.path("legalName"), "must not be empty");
        info["legalName"] = *name;
    }
    for (auto key : {"registrationNumber", "taxId"}) {
        if (auto value = fields.optional_string(key, 64)) info[key] = *value;
    }
    return json::serialize(info);
}

bool is_e164(const std::string& text) {
    if (text.size() < 3 || text.size() > 16 || text[0] != '+' || text[1] < '1' || text[1] > '9') {
        return false;
    }
    return std::all_of(text.begin() + 1, text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string read_beneficial_owners(const json::array& list, const std::string& path,
                                   std::int64_t now_ms) {
    if (list.size() > beneficial_owners_max) {
        fail_field(path, "must list at most " + std::to_string(beneficial_owners_max) + " owners");
    }
    json::array owners;
    for (std::size_t i = 0; i < list.size(); ++i) {
        std::string item_path = path + "[" + std::to_string(i) + "]";
        if (!list[i].is_object()) fail_field(item_path, "must be an object");
        json_fields fields(list[i].as_object(), item_path);
        json::object owner;
        owner["fullName"] = fields.required_string("fullName", name_chars_max);
        auto type = fields.optional_enum("individualType", owner_types);
        if (!type) fail_field(fields.path("individualType"), "is required");
        owner["individualType"] = *type;
        if (auto email = fields.optional_string("emailAddress", 254)) {
            if (email->find('@') == std::string::npos) {
                fail_field(fields.path("emailAddress"), "must be an e-mail address");
            }
            owner["emailAddress"] = *email;
        }
        if (auto phone = fields.optional_string("phoneNumber", 16)) {
            if (!is_e164(*phone))
                fail_field(fields.path("phoneNumber"), "must be E.164, e.g. +14155550100");
            owner["phoneNumber"] = *phone;
        }
        for (auto key : {"taxId", "title"}) {
            if (auto value = fields.optional_string(key, name_chars_max)) owner[key] = *value;
        }
        if (auto birth = read_birth_date(fields, "birthDate", now_ms)) owner["birthDate"] = *birth;
        if (fields.has("nationality"))
            owner["nationality"] = read_country(fields, "nationality", true);
        if (const json::object* address = fields.optional_object("address")) {
            owner["address"] = read_address(*address, fields.path("address"));
        }
        if (fields.has("percentageOwnership")) {
            const auto& value = list[i].as_object().at("percentageOwnership");
            if (!value.is_number() || value.to_number<double>() < 0 ||
                value.to_number<double>() > 100) {
                fail_field(fields.path("percentageOwnership"), "must be a number from 0 to 100");
            }
            owner["percentageOwnership"] = value;
        }
        owners.push_back(std::move(owner));
    }
    return json::serialize(owners);
}

}  // namespace

// Every field of the customer bodies (POST and PATCH) the interface defines, type-checked before
// the customer type decides which of them apply.
constexpr field_shape address_shape[] = {
    {"line1", json_kind::string},      {"line2", json_kind::string},
    {"city", json_kind::string},       {"state", json_kind::string},
    {"postalCode", json_kind::string}, {"country", json_kind::string}};
constexpr field_shape business_info_shape[] = {{"legalName", json_kind::string},
                                               {"registrationNumber", json_kind::string},
                                               {"taxId", json_kind::string}};
constexpr field_shape beneficial_owner_shape[] = {{"fullName", json_kind::string},
                                                  {"individualType", json_kind::string},
                                                  {"emailAddress", json_kind::string},
                                                  {"phoneNumber", json_kind::string},
                                                  {"taxId", json_kind::string},
                                                  {"title", json_kind::string},
                                                  {"birthDate", json_kind::string},
                                                  {"nationality", json_kind::string},
                                                  {"address", json_kind::object, address_shape},
                                                  {"percentageOwnership", json_kind::number}};
constexpr field_shape customer_shape[] = {
    {"platformCustomerId", json_kind::string},
    {"customerType", json_kind::string},
    {"umaAddress", json_kind::string},
    {"fullName", json_kind::string},
    {"birthDate", json_kind::string},
    {"nationality", json_kind::string},
    {"address", json_kind::object, address_shape},
    {"businessInfo", json_kind::object, business_info_shape},
    {"beneficialOwners", json_kind::array, beneficial_owner_shape, json_kind::object},
};

void check_customer_shape(const json::object& body) {
    check_shape(body, customer_shape);
}

customer_fields read_customer_fields(const json::object& body, const std::string& customer_type,
                                     const std::string& uma_domain, bool create,
                                     std::int64_t now_ms) {
    json_fields fields(body);
    customer_fields out;
    if (auto address = fields.optional_string("umaAddress", 128)) {
        auto parsed = parse_uma_address(*address);
        if (!parsed) {
            fail(error_code::invalid_uma_address,
                 "umaAddress: must be $user@domain, the user part a-z 0-9 - _ . +, at most 64 "
                 "characters",
                 json::object{{"field", "umaAddress"}});
        }
        if (parsed->domain != uma_domain) {
            fail(error_code::invalid_uma_address,
                 "umaAddress: must use the platform's UMA domain " + uma_domain,
                 json::object{{"field", "umaAddress"}});
        }
        out.uma_address = parsed->text();
    }
    out.address_json = read_address_json(fields);
    bool individual = customer_type == "INDIVIDUAL";
    for (auto key : {"fullName", "birthDate", "nationality"}) {
        if (!individual && fields.has(key)) fail_field(key, "applies to INDIVIDUAL customers only");
    }
    for (auto key : {"businessInfo", "beneficialOwners"}) {
        if (individual && fields.has(key)) fail_field(key, "applies to BUSINESS customers only");
    }
    if (individual) {
        out.full_name = fields.optional_string("fullName", name_chars_max);
        if (out.full_name && out.full_name->empty()) fail_field("fullName", "must not be empty");
        out.birth_date = read_birth_date(fields, "birthDate", now_ms);
        if (fields.has("nationality")) out.nationality = read_country(fields, "nationality", true);
        return out;
    }
    const json::object* info = fields.optional_object("businessInfo");
    if (!info && create) fail_field("businessInfo", "is required for BUSINESS customers");
    if (info) out.business_info_json = read_business_info(*info, "businessInfo", create);
    if (const json::array* owners = fields.optional_array("beneficialOwners")) {
        out.beneficial_owners_json = read_beneficial_owners(*owners, "beneficialOwners", now_ms);
    }
    return out;
}

json::object render_customer(const customer& item) {
    json::object body{{"id", item.id},
                      {"platformCustomerId", item.platform_customer_id},
                      {"customerType", item.customer_type},
                      {"umaAddress", item.uma_address},
                      {"kycStatus", item.kyc_status}};
    if (item.full_name) body["fullName"] = *item.full_name;
    if (item.birth_date) body["birthDate"] = *item.birth_date;
    if (item.nationality) body["nationality"] = *item.nationality;
    if (item.address_json) body["address"] = json::parse(*item.address_json);
    if (item.business_info_json) body["businessInfo"] = json::parse(*item.business_info_json);
    if (item.beneficial_owners_json) {
        body["beneficialOwners"] = json::parse(*item.beneficial_owners_json);
    }
    body["isDeleted"] = item.is_deleted;
    body["createdAt"] = format_timestamp_ms(item.created_at_ms);
    body["updatedAt"] = format_timestamp_ms(item.updated_at_ms);
    return body;
}

[[noreturn]] void fail_customer(customer_error error, const std::string& id) {
    switch (error) {
        case customer_error::not_found: fail(error_code::user_not_found, "no customer " + id);
        case customer_error::deleted:
            fail(error_code::customer_deleted, "customer " + id + " is deleted");
        case customer_error::uma_address_taken:
            fail(error_code::uma_address_exists, "umaAddress is already taken",
                 json::object{{"field", "umaAddress"}});
        case customer_error::platform_customer_id_taken:
            fail(error_code::platform_customer_id_exists,
                 "another customer already has this platformCustomerId",
                 json::object{{"field", "platformCustomerId"}});
        case customer_error::customer_type_mismatch:
            fail_field("customerType", "does not match the customer's type");
    }
    fail(error_code::internal_error, "internal error");
}

new_customer read_new_customer(const json::object& body, const platform_config& config,
                               std::int64_t now_ms) {
    check_customer_shape(body);
    json_fields fields(body);
    auto type = fields.optional_enum("customerType", customer_types);
    if (!type) fail_field("customerType", "is required (INDIVIDUAL or BUSINESS)");
    new_customer request;
    request.customer_type = *type;
    request.platform_customer_id =
        fields.optional_string("platformCustomerId", platform_customer_id_chars_max);
    if (request.platform_customer_id && request.platform_customer_id->empty()) {
        fail_field("platformCustomerId", "must not be empty");
    }
    // Regulated institutions verify their own customers; others go through Corridor's KYC.
    request.kyc_status = config.is_regulated ? "APPROVED" : "PENDING_REVIEW";
    request.fields = read_customer_fields(body, *type, config.uma_domain, true, now_ms);
    for (const auto& item : config.supported_currencies) {
        request.account_currencies.push_back(item.currency_code);
    }
    return request;
}

}  // namespace corridor
