// The CSV record to customer mapping of the bulk import: header checks, per-type required columns,
// the rules of POST /customers reported in the CSV's column names, and the error entry.
#include "server/api/bulk_import.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

using namespace corridor;

namespace {

const std::vector<std::string> header = {"umaAddress",
                                         "platformCustomerId",
                                         "customerType",
                                         "fullName",
                                         "birthDate",
                                         "addressLine1",
                                         "city",
                                         "state",
                                         "postalCode",
                                         "country",
                                         "businessLegalName"};

platform_config config() {
    platform_config out;
    out.uma_domain = "acme.example";
    out.supported_currencies = {{"USD", 1, 100, {"OUTGOING"}, {}}};
    return out;
}

std::vector<std::string> row(std::string type = "INDIVIDUAL", std::string birth = "1990-01-02",
                             std::string country = "US") {
    return {"$ana@acme.example", "p1",   type, "Ana",   birth,
            "1 Main St",         "Town", "CA", "94000", country,
            "Acme LLC"};
}

api_error refusal(const std::vector<std::string>& fields) {
    auto columns = read_bulk_csv_header(header);
    try {
        read_bulk_csv_customer(columns, fields, config(), 1760313600000);
    } catch (const api_error& error) {
        return error;
    }
    FAIL("the row was accepted");
    return {};
}

std::string field_of(const api_error& error) {
    auto* field = error.details.if_contains("field");
    return field ? std::string(field->as_string()) : "";
}

}  // namespace

TEST_CASE("bulk CSV header needs the common columns once each", "[bulk]") {
    CHECK(read_bulk_csv_header(header).find("country") == 9u);
    CHECK(read_bulk_csv_header({" umaAddress", "platformCustomerId ", "customerType", "extra"})
              .names.size() == 4);
    CHECK_THROWS_AS(read_bulk_csv_header({"umaAddress", "customerType"}), api_error);
    CHECK_THROWS_AS(
        read_bulk_csv_header({"umaAddress", "umaAddress", "platformCustomerId", "customerType"}),
        api_error);
    CHECK_THROWS_AS(read_bulk_csv_header({"umaAddress", "", "platformCustomerId", "customerType"}),
                    api_error);
}

TEST_CASE("bulk CSV rows become the customers POST /customers would create", "[bulk]") {
    auto columns = read_bulk_csv_header(header);
    auto person = read_bulk_csv_customer(columns, row(), config(), 1760313600000);
    CHECK(person.customer_type == "INDIVIDUAL");
    CHECK(person.platform_customer_id == "p1");
    CHECK(person.fields.uma_address == "$ana@acme.example");
    CHECK(person.fields.full_name == "Ana");
    CHECK(person.kyc_status == "PENDING_REVIEW");
    CHECK(person.account_currencies == std::vector<std::string>{"USD"});
    auto address = boost::json::parse(*person.fields.address_json);
    CHECK(address.at("line1") == "1 Main St");
    CHECK(address.at("country") == "US");

    auto company = read_bulk_csv_customer(columns, row("BUSINESS", ""), config(), 1760313600000);
    CHECK(boost::json::parse(*company.fields.business_info_json).at("legalName") == "Acme LLC");
    CHECK_FALSE(company.fields.full_name);
}

TEST_CASE("bulk CSV row errors name the CSV column", "[bulk]") {
    CHECK(field_of(refusal(row("INDIVIDUAL", "1990-02-30"))) == "birthDate");
    CHECK(field_of(refusal(row("INDIVIDUAL", ""))) == "birthDate");
    CHECK(field_of(refusal(row("INDIVIDUAL", "1990-01-02", "XX"))) == "country");
    auto bad_country = refusal(row("INDIVIDUAL", "1990-01-02", "USA"));
    CHECK(field_of(bad_country) == "country");
    CHECK(bad_country.message.rfind("country", 0) == 0);
    CHECK(field_of(refusal(row("ROBOT"))) == "customerType");
    auto other_domain = row();
    other_domain[0] = "$ana@elsewhere.example";
    CHECK(refusal(other_domain).code == error_code::invalid_uma_address);
    auto bad_utf8 = row();
    bad_utf8[3] = "An\xff";
    CHECK(field_of(refusal(bad_utf8)) == "fullName");
    CHECK(refusal({"only", "three", "fields"}).message.find("3 fields") != std::string::npos);
    auto company = row("BUSINESS");
    company[10] = "";
    CHECK(field_of(refusal(company)) == "businessLegalName");
}

TEST_CASE("bulk row errors correlate by platformCustomerId, else by row number", "[bulk]") {
    api_error error{error_code::invalid_input, "birthDate: bad",
                    boost::json::object{{"field", "birthDate"}}};
    auto named = bulk_row_error(error, 7, "p-7");
    CHECK(named.code == "INVALID_INPUT");
    CHECK(named.correlation_id == "p-7");
    CHECK(boost::json::parse(named.details_json).at("rowNumber") == 7);
    CHECK(bulk_row_error(error, 8, "").correlation_id == "8");
    CHECK(bulk_row_error(error, 9, "\xff").correlation_id == "9");
}
