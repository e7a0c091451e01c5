#include "server/api/bulk_import.hpp"

#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <utility>

#include "ledger/base/time_format.hpp"
#include "ledger/base/utf8.hpp"
#include "server/api/customer_input.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

constexpr std::array<std::string_view, 3> required_for_all = {"umaAddress", "platformCustomerId",
                                                              "customerType"};
constexpr std::array<std::string_view, 7> required_for_individuals = {
    "fullName", "birthDate", "addressLine1", "city", "state", "postalCode", "country"};
constexpr std::array<std::string_view, 6> required_for_businesses = {
    "businessLegalName", "addressLine1", "city", "state", "postalCode", "country"};

// Where a POST /customers field comes from in the CSV, for error details.
constexpr std::array<std::pair<std::string_view, std::string_view>, 9> column_of_field = {{
    {"address.line1", "addressLine1"},
    {"address.line2", "addressLine2"},
    {"address.city", "city"},
    {"address.state", "state"},
    {"address.postalCode", "postalCode"},
    {"address.country", "country"},
    {"businessInfo.legalName", "businessLegalName"},
    {"businessInfo.registrationNumber", "businessRegistrationNumber"},
    {"businessInfo.taxId", "businessTaxId"},
}};

std::string_view value_of(const bulk_csv_columns& columns, const std::vector<std::string>& fields,
                          std::string_view name) {
    auto index = columns.find(name);
    if (!index || *index >= fields.size()) return {};
    return fields[*index];
}

void copy_if_present(json::object& target, std::string_view key, std::string_view value) {
    if (!value.empty()) target[key] = value;
}

// The CSV column name for a field path of the JSON rules, and the message rewritten to use it.
api_error in_csv_terms(api_error error) {
    auto* field = error.details.if_contains("field");
    if (!field || !field->is_string()) return error;
    std::string path(field->as_string());
    for (const auto& [json_path, column] : column_of_field) {
        if (path != json_path) continue;
        if (error.message.starts_with(path)) {
            error.message = std::string(column) + error.message.substr(path.size());
        }
        error.details["field"] = column;
    }
    return error;
}

}  // namespace

std::optional<std::size_t> bulk_csv_columns::find(std::string_view name) const {
    auto found = std::find(names.begin(), names.end(), name);
    if (found == names.end()) return std::nullopt;
    return static_cast<std::size_t>(found - names.begin());
}

bulk_csv_columns read_bulk_csv_header(const std::vector<std::string>& header) {
    bulk_csv_columns columns;
    for (const auto& raw : header) {
        std::string name = raw;
        // Spreadsheet exports often pad header names.
        while (!name.empty() && name.back() == ' ') name.pop_back();
        while (!name.empty() && name.front() == ' ') name.erase(0, 1);
        if (!is_valid_utf8(name)) fail_field("file", "the header row is not valid UTF-8");
        if (name.empty()) fail_field("file", "the header row has an empty column name");
        if (columns.find(name))
            fail_field("file", "the header row names the column " + name + " twice");
        columns.names.push_back(std::move(name));
    }
    std::string missing;
    for (auto name : required_for_all) {
        if (columns.find(name)) continue;
        if (!missing.empty()) missing += ", ";
        missing += name;
    }
    if (!missing.empty()) {
        fail(error_code::invalid_input,
             "file: the header row lacks the required column(s) " + missing,
             json::object{{"field", "file"}, {"missingColumns", missing}});
    }
    return columns;
}

json::object bulk_csv_record_body(const bulk_csv_columns& columns,
                                  const std::vector<std::string>& fields) {
    if (fields.size() != columns.names.size()) {
        fail(error_code::invalid_input, "the row has " + std::to_string(fields.size()) +
                                            " fields; the header has " +
                                            std::to_string(columns.names.size()));
    }
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (!is_valid_utf8(fields[i]) || fields[i].find('\0') != std::string::npos) {
            fail_field(columns.names[i], "is not valid UTF-8 text");
        }
    }
    auto type = value_of(columns, fields, "customerType");
    auto require = [&](auto names, const std::string& why) {
        for (auto name : names) {
            if (value_of(columns, fields, name).empty()) fail_field(name, "is required" + why);
        }
    };
    require(required_for_all, "");
    std::string for_type = " for " + std::string(type) + " customers";
    json::object body;
    body["customerType"] = type;
    body["platformCustomerId"] = value_of(columns, fields, "platformCustomerId");
    body["umaAddress"] = value_of(columns, fields, "umaAddress");
    if (type == "INDIVIDUAL") {
        require(required_for_individuals, for_type);
        body["fullName"] = value_of(columns, fields, "fullName");
        body["birthDate"] = value_of(columns, fields, "birthDate");
        auto email = value_of(columns, fields, "email");
        if (!email.empty() && email.find('@') == std::string_view::npos) {
            fail_field("email", "must be an e-mail address");
        }
    } else if (type == "BUSINESS") {
        require(required_for_businesses, for_type);
        json::object info{{"legalName", value_of(columns, fields, "businessLegalName")}};
        copy_if_present(info, "registrationNumber",
                        value_of(columns, fields, "businessRegistrationNumber"));
        copy_if_present(info, "taxId", value_of(columns, fields, "businessTaxId"));
        body["businessInfo"] = std::move(info);
    }  // any other type is refused by the customer rules, naming customerType
    if (type == "INDIVIDUAL" || type == "BUSINESS") {
        json::object address;
        address["line1"] = value_of(columns, fields, "addressLine1");
        copy_if_present(address, "line2", value_of(columns, fields, "addressLine2"));
        address["city"] = value_of(columns, fields, "city");
        address["state"] = value_of(columns, fields, "state");
        address["postalCode"] = value_of(columns, fields, "postalCode");
        address["country"] = value_of(columns, fields, "country");
        body["address"] = std::move(address);
    }
    return body;
}

new_customer read_bulk_csv_customer(const bulk_csv_columns& columns,
                                    const std::vector<std::string>& fields,
                                    const platform_config& config, std::int64_t now_ms) {
    try {
        return read_new_customer(bulk_csv_record_body(columns, fields), config, now_ms);
    } catch (const api_error& error) {
        throw in_csv_terms(error);
    }
}

bulk_import_row_error bulk_row_error(const api_error& error, std::int64_t row_number,
                                     const std::string& platform_customer_id) {
    bulk_import_row_error out;
    out.row_number = row_number;
    out.code = std::string(name_of(error.code));
    out.message = error.message;
    json::object details = error.details;
    details["rowNumber"] = row_number;
    out.details_json = json::serialize(details);
    out.correlation_id = !platform_customer_id.empty() && is_valid_utf8(platform_customer_id)
                             ? platform_customer_id
                             : std::to_string(row_number);
    return out;
}

json::object render_bulk_import_job(const bulk_import_job& job,
                                    const std::vector<bulk_import_row_error>& errors) {
    json::object body{{"id", job.id},
                      {"status", job.status},
                      {"progress", json::object{{"total", job.total},
                                                {"processed", job.processed},
                                                {"successful", job.successful},
                                                {"failed", job.failed}}}};
    if (!errors.empty()) {
        json::array list;
        for (const auto& error : errors) {
            list.push_back(json::object{{"code", error.code},
                                        {"message", error.message},
                                        {"details", json::parse(error.details_json)},
                                        {"correlationId", error.correlation_id}});
        }
        body["errors"] = std::move(list);
    }
    if (job.completed_at_ms) body["completedAt"] = format_timestamp_ms(*job.completed_at_ms);
    return body;
}

}  // namespace corridor
