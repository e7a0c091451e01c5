// Reading client input. Every failure must be an api_error with the right code, and a 400 must name
// the offending field in its message and in details.field, so that a client can fix its request.
#include "server/api/input.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>

#include "ledger/store/page.hpp"
#include "server/api/errors.hpp"

using namespace corridor;
namespace json = boost::json;

namespace {

// Runs `action`, which must throw api_error, and returns the error.
template <class Action>
api_error error_of(Action action) {
    try {
        action();
    } catch (const api_error& error) {
        return error;
    }
    FAIL("no api_error thrown");
    return {};
}

// A 400 INVALID_INPUT naming `field`, with `message` after the field name.
template <class Action>
void check_field_error(Action action, const std::string& field, const std::string& message) {
    api_error error = error_of(action);
    CHECK(error.code == error_code::invalid_input);
    CHECK(http_status_of(error.code) == 400);
    CHECK(error.message == field + ": " + message);
    REQUIRE(error.details.contains("field"));
    CHECK(error.details.at("field") == json::value(field));
}

json::object object_of(const std::string& text) { return json::parse(text).as_object(); }

http_request json_request(std::string body, std::optional<std::string> content_type) {
    http_request request;
    request.method = http_method::post;
    request.target = "/2025-10-13/customers";
    request.body = std::move(body);
    if (content_type) request.headers.emplace_back("content-type", *content_type);
    return request;
}

std::string nested(int depth) {
    std::string text;
    for (int i = 0; i < depth; ++i) text += R"({"a":)";
    text += "1";
    for (int i = 0; i < depth; ++i) text += "}";
    return text;
}

}  // namespace

TEST_CASE("json_fields: strings", "[server][input]") {
    auto body = object_of(R"({"name": "Ada", "empty": "", "number": 5, "nothing": null,
                              "list": ["a"], "long": "abcdef"})");
    json_fields fields(body);
    CHECK(fields.optional_string("name") == "Ada");
    CHECK(fields.required_string("name") == "Ada");
    CHECK_FALSE(fields.optional_string("absent"));
    CHECK_FALSE(fields.optional_string("nothing"));
    CHECK(fields.optional_string("empty") == "");
    CHECK(fields.has("name"));
    CHECK_FALSE(fields.has("nothing"));
    CHECK_FALSE(fields.has("absent"));

    check_field_error([&] { fields.optional_string("number"); }, "number", "must be a string");
    check_field_error([&] { fields.optional_string("list"); }, "list", "must be a string");
    check_field_error([&] { fields.required_string("absent"); }, "absent", "is required");
    check_field_error([&] { fields.required_string("nothing"); }, "nothing", "is required");
    check_field_error([&] { fields.required_string("empty"); }, "empty", "must not be empty");
    CHECK(fields.optional_string("long", 6) == "abcdef");
    check_field_error([&] { fields.optional_string("long", 5); }, "long",
                      "must be at most 5 characters");
    check_field_error([&] { fields.required_string("long", 5); }, "long",
                      "must be at most 5 characters");
}

TEST_CASE("json_fields: strings with NUL are refused, not cut short", "[server][input]") {
    // PostgreSQL's driver ends a string at NUL, so "Ada\u0000Evil" would be stored as "Ada" on
    // PostgreSQL and in full on SQLite; two platform customer ids differing after a NUL would
    // collide. JSON escapes make NUL easy to send, so it is a 400 naming the field.
    auto body = object_of(R"({"name": "Ada\u0000Evil", "tail": "Ada\u0000", "tab": "a\tb"})");
    json_fields fields(body);
    check_field_error([&] { fields.optional_string("name"); }, "name",
                      "must not contain the NUL character");
    check_field_error([&] { fields.required_string("tail"); }, "tail",
                      "must not contain the NUL character");
    const std::vector<std::string_view> allowed = {"Ada"};
    check_field_error([&] { fields.optional_enum("tail", allowed); }, "tail",
                      "must not contain the NUL character");
    CHECK(fields.optional_string("tab") == "a\tb");
}

TEST_CASE("json_fields: nested paths name the whole field", "[server][input]") {
    auto body = object_of(R"({"address": {"line1": 7, "country": "US"}})");
    json_fields top(body);
    const json::object* address = top.optional_object("address");
    REQUIRE(address);
    json_fields fields(*address, top.path("address"));
    CHECK(fields.path("line1") == "address.line1");
    check_field_error([&] { fields.required_string("line1"); }, "address.line1",
                      "must be a string");
    check_field_error([&] { fields.required_string("postalCode"); }, "address.postalCode",
                      "is required");
    json_fields deeper(*address, "beneficialOwners[2].address");
    check_field_error([&] { deeper.optional_int("line1", 0, 5); },
                      "beneficialOwners[2].address.line1", "must be an integer from 0 to 5");
}

TEST_CASE("json_fields: integers in range, never doubles or big unsigned", "[server][input]") {
    auto body = object_of(R"({"zero": 0, "ten": 10, "negative": -1, "double": 1.5,
                              "whole_double": 2.0, "exponent": 1e3, "text": "5", "flag": true,
                              "max": 9223372036854775807, "min": -9223372036854775808,
                              "above": 9223372036854775808, "huge": 18446744073709551615,
                              "beyond": 18446744073709551616, "below": -9223372036854775809})");
    json_fields fields(body);
    const std::string range = "must be an integer from 0 to 10";
    CHECK(fields.optional_int("zero", 0, 10) == 0);
    CHECK(fields.optional_int("ten", 0, 10) == 10);
    CHECK(fields.required_int("ten", 10, 10) == 10);
    CHECK_FALSE(fields.optional_int("absent", 0, 10));
    check_field_error([&] { fields.optional_int("negative", 0, 10); }, "negative", range);
    check_field_error([&] { fields.optional_int("ten", 0, 9); }, "ten",
                      "must be an integer from 0 to 9");
    check_field_error([&] { fields.optional_int("ten", 11, 20); }, "ten",
                      "must be an integer from 11 to 20");
    check_field_error([&] { fields.optional_int("double", 0, 10); }, "double", range);
    check_field_error([&] { fields.optional_int("whole_double", 0, 10); }, "whole_double", range);
    check_field_error([&] { fields.optional_int("exponent", 0, 10000); }, "exponent",
                      "must be an integer from 0 to 10000");
    check_field_error([&] { fields.optional_int("text", 0, 10); }, "text", range);
    check_field_error([&] { fields.optional_int("flag", 0, 10); }, "flag", range);
    check_field_error([&] { fields.required_int("absent", 0, 10); }, "absent", "is required");

    constexpr auto int64_max = std::numeric_limits<std::int64_t>::max();
    constexpr auto int64_min = std::numeric_limits<std::int64_t>::min();
    CHECK(fields.optional_int("max", 0, int64_max) == int64_max);
    CHECK(fields.optional_int("min", int64_min, 0) == int64_min);
    const std::string full = "must be an integer from 0 to 9223372036854775807";
    // Above INT64_MAX: JSON gives an unsigned or a double; neither is an int64 amount.
    check_field_error([&] { fields.optional_int("above", 0, int64_max); }, "above", full);
    check_field_error([&] { fields.optional_int("huge", 0, int64_max); }, "huge", full);
    check_field_error([&] { fields.optional_int("beyond", 0, int64_max); }, "beyond", full);
    check_field_error([&] { fields.optional_int("below", int64_min, 0); }, "below",
                      "must be an integer from -9223372036854775808 to 0");
}

TEST_CASE("json_fields: booleans, enums, objects and arrays", "[server][input]") {
    auto body = object_of(R"({"yes": true, "no": false, "text": "true", "one": 1,
                              "type": "INDIVIDUAL", "lower": "individual", "number": 3,
                              "object": {}, "array": [], "long": ")" +
                          std::string(100, 'X') + R"("})");
    json_fields fields(body);
    CHECK(fields.optional_bool("yes") == true);
    CHECK(fields.optional_bool("no") == false);
    CHECK_FALSE(fields.optional_bool("absent"));
    check_field_error([&] { fields.optional_bool("text"); }, "text", "must be true or false");
    check_field_error([&] { fields.optional_bool("one"); }, "one", "must be true or false");

    const std::vector<std::string_view> types = {"INDIVIDUAL", "BUSINESS"};
    CHECK(fields.optional_enum("type", types) == "INDIVIDUAL");
    CHECK_FALSE(fields.optional_enum("absent", types));
    check_field_error([&] { fields.optional_enum("lower", types); }, "lower",
                      "must be one of INDIVIDUAL, BUSINESS");
    check_field_error([&] { fields.optional_enum("number", types); }, "number", "must be a string");
    check_field_error([&] { fields.optional_enum("long", types); }, "long",
                      "must be at most 64 characters");

    CHECK(fields.optional_object("object") != nullptr);
    CHECK(fields.optional_object("absent") == nullptr);
    check_field_error([&] { fields.optional_object("array"); }, "array", "must be an object");
    check_field_error([&] { fields.optional_object("text"); }, "text", "must be an object");
    CHECK(fields.optional_array("array") != nullptr);
    CHECK(fields.optional_array("absent") == nullptr);
    check_field_error([&] { fields.optional_array("object"); }, "object", "must be an array");
}

TEST_CASE("parse_json_body: media types", "[server][input]") {
    for (const char* type :
         {"application/json", "application/json; charset=utf-8", "application/json;charset=UTF-8",
          "application/json ", "application/merge-patch+json", "application/vnd.corridor+json",
          "Application/JSON", "APPLICATION/JSON; charset=utf-8"}) {
        INFO(type);
        CHECK(parse_json_body(json_request(R"({"a": 1})", type)).at("a") == 1);
    }
    // No Content-Type: read as JSON.
    CHECK(parse_json_body(json_request("{}", std::nullopt)).empty());

    for (const char* type : {"text/plain", "application/xml", "application/x-www-form-urlencoded",
                             "multipart/form-data; boundary=x", "application/jsonp",
                             "application/json-seq", "text/json5"}) {
        INFO(type);
        api_error error = error_of([&] { parse_json_body(json_request(R"({"a": 1})", type)); });
        CHECK(error.code == error_code::unsupported_media_type);
        CHECK(http_status_of(error.code) == 415);
    }
}

TEST_CASE("parse_json_body: malformed, empty, non-object and too deep bodies are 400",
          "[server][input]") {
    auto invalid = [](const std::string& body) {
        api_error error =
            error_of([&] { parse_json_body(json_request(body, "application/json")); });
        CHECK(error.code == error_code::invalid_input);
        return error.message;
    };
    CHECK(invalid("") == "request body is required");
    CHECK(invalid("{") == "request body is not valid JSON");
    CHECK(invalid("   ") == "request body is not valid JSON");
    CHECK(invalid(R"({"a": 1,})") == "request body is not valid JSON");
    CHECK(invalid(R"({"a": 1} {})") == "request body is not valid JSON");
    CHECK(invalid(R"({"a": /* comment */ 1})") == "request body is not valid JSON");
    CHECK(invalid("{\"a\": \"\xff\"}") == "request body is not valid JSON");
    CHECK(invalid("{\"a\": \"\xed\xa0\x80\"}") == "request body is not valid JSON");
    CHECK(invalid("[1, 2]") == "request body must be a JSON object");
    CHECK(invalid("[]") == "request body must be a JSON object");
    CHECK(invalid("null") == "request body must be a JSON object");
    CHECK(invalid("\"text\"") == "request body must be a JSON object");
    CHECK(invalid("42") == "request body must be a JSON object");
    // Nesting is bounded at 32 levels, so a body cannot exhaust the stack or the parser.
    CHECK(parse_json_body(json_request(nested(32), "application/json")).contains("a"));
    CHECK(invalid(nested(33)) == "request body is not valid JSON");
    CHECK(invalid(nested(10000)) == "request body is not valid JSON");
    // Unknown fields are kept for the caller to ignore; they are not an error.
    CHECK(parse_json_body(json_request(R"({"unknown": [1, {"x": null}]})", "application/json"))
              .contains("unknown"));
}

TEST_CASE("query_params: values, repeats and malformed targets", "[server][input]") {
    query_params query("/2025-10-13/tokens?name=ci&empty=&flag&spaced=a%20b&plus=a+b&coded=%2B1");
    CHECK(query.path() == "/2025-10-13/tokens");
    CHECK(query.get("name") == "ci");
    CHECK(query.get("empty") == "");
    CHECK(query.get("flag") == "");
    CHECK(query.get("spaced") == "a b");
    CHECK(query.get("plus") == "a b");  // form encoding: + is a space
    CHECK(query.get("coded") == "+1");
    CHECK_FALSE(query.get("absent"));
    CHECK_FALSE(query.get("Name"));  // names are case-sensitive

    query_params repeated("/x?status=A&status=B&other=1");
    CHECK(repeated.get_all("status") == std::vector<std::string>{"A", "B"});
    check_field_error([&] { repeated.get("status"); }, "status", "must be given once");
    CHECK(repeated.get("other") == "1");

    query_params long_value("/x?name=" + std::string(1025, 'a'));
    check_field_error([&] { long_value.get("name"); }, "name", "is too long");
    CHECK(query_params("/x?name=" + std::string(1024, 'a')).get("name")->size() == 1024);

    for (const char* target :
         {"/x?a=%zz", "/x?a=%2", "http://host/x?a=1", "x?a=1", "", "/x#fragment", "/x y"}) {
        INFO(target);
        api_error error = error_of([&] {
            query_params parsed(target);
            (void)parsed;
        });
        CHECK(error.code == error_code::invalid_input);
        CHECK(error.message == "the request target is not a valid URL path");
    }
}

TEST_CASE("query_params: values must be text a database can store", "[server][input]") {
    // Percent-decoding can produce any byte; invalid UTF-8 would make PostgreSQL fail the query
    // (a 500) and NUL would be cut off by the driver, so both are a 400 naming the parameter.
    for (const char* target : {"/x?name=%FF", "/x?name=caf%C3", "/x?name=%ED%A0%80",
                               "/x?name=a%00b", "/x?name=%C0%AF"}) {
        INFO(target);
        query_params query(target);
        check_field_error([&] { query.get("name"); }, "name", "must be UTF-8 text");
    }
    CHECK(query_params("/x?name=caf%C3%A9").get("name") == "caf\xc3\xa9");
}

TEST_CASE("query_params: timestamps, booleans and one-of values", "[server][input]") {
    query_params query(
        "/x?createdAfter=2025-10-13T08:30:00Z&offset=2025-10-13T10:30:00%2B02:00&day=2025-10-13"
        "&bad=2025-02-30&spaced=2025-10-13T10:30:00+02:00&yes=true&no=false&upper=TRUE&one=1"
        "&order=asc");
    CHECK(query.timestamp_ms("createdAfter") == 1760344200000);
    CHECK(query.timestamp_ms("offset") == 1760344200000);
    CHECK(query.timestamp_ms("day") == 1760313600000);
    CHECK_FALSE(query.timestamp_ms("absent"));
    const std::string expected = "must be an ISO 8601 date-time such as 2025-10-13T00:00:00Z";
    check_field_error([&] { query.timestamp_ms("bad"); }, "bad", expected);
    // An unencoded + arrives as a space and is not an offset.
    check_field_error([&] { query.timestamp_ms("spaced"); }, "spaced", expected);

    CHECK(query.boolean("yes") == true);
    CHECK(query.boolean("no") == false);
    CHECK_FALSE(query.boolean("absent"));
    check_field_error([&] { query.boolean("upper"); }, "upper", "must be true or false");
    check_field_error([&] { query.boolean("one"); }, "one", "must be true or false");

    CHECK(query.one_of("order", {"asc", "desc"}) == "asc");
    CHECK_FALSE(query.one_of("absent", {"asc", "desc"}));
    check_field_error(
        [&] {
            query.one_of("yes", {"asc", "desc"});
        },
        "yes", "must be one of asc, desc");
}

TEST_CASE("query_params: page limit, cursor and sort order", "[server][input]") {
    page_request defaults = query_params("/x").page("Customer");
    CHECK(defaults.limit == page_limit_default);
    CHECK(defaults.limit == 20);
    CHECK_FALSE(defaults.after_id);
    CHECK(defaults.descending);
    CHECK_FALSE(query_params("/x").page("Customer", false).descending);

    CHECK(query_params("/x?limit=1").page("Customer").limit == 1);
    CHECK(query_params("/x?limit=100").page("Customer").limit == 100);
    CHECK(query_params("/x?limit=37").page("Customer").limit == 37);
    const std::string limit_message = "must be an integer from 1 to 100";
    for (const char* limit : {"0", "101", "1000", "-1", "", "abc", "1.5", "%2B5", "%205", "5%20",
                              "1e2", "99999999999999999999", "%35%30x"}) {
        INFO("limit=" << limit);
        query_params query(std::string("/x?limit=") + limit);
        check_field_error([&] { query.page("Customer"); }, "limit", limit_message);
    }
    query_params twice("/x?limit=5&limit=6");
    check_field_error([&] { twice.page("Customer"); }, "limit", "must be given once");

    const std::string id = "Customer:0199dcb0-d3bb-7000-8000-000000000000";
    page_request after = query_params("/x?cursor=" + encode_cursor(id)).page("Customer");
    CHECK(after.after_id == id);
    // A cursor issued by another list (here, tokens) is refused rather than paging from a
    // position that means nothing in this one.
    query_params foreign("/x?cursor=" + encode_cursor("Token:0199dcb0-d3bb-7000-8000-000000000000"));
    check_field_error([&] { foreign.page("Customer"); }, "cursor", "belongs to another list");
    for (std::string cursor : {std::string("garbage"), std::string(""), encode_cursor(id).substr(1),
                               encode_cursor(id) + "%3D"}) {
        INFO("cursor=" << cursor);
        query_params query("/x?cursor=" + cursor);
        check_field_error([&] { query.page("Customer"); }, "cursor", "is not a cursor this service issued");
    }

    CHECK_FALSE(query_params("/x?sortOrder=asc").page("Customer").descending);
    CHECK(query_params("/x?sortOrder=desc").page("Customer", false).descending);
    for (const char* order : {"ASC", "ascending", "", "up"}) {
        INFO("sortOrder=" << order);
        query_params query(std::string("/x?sortOrder=") + order);
        check_field_error([&] { query.page("Customer"); }, "sortOrder", "must be one of asc, desc");
    }
    page_request all = query_params("/x?limit=3&sortOrder=asc&cursor=" + encode_cursor(id)).page("Customer");
    CHECK(all.limit == 3);
    CHECK_FALSE(all.descending);
    CHECK(all.after_id == id);
}

TEST_CASE("errors carry their HTTP status and stable code names", "[server][input]") {
    CHECK(http_status_of(error_code::invalid_input) == 400);
    CHECK(name_of(error_code::invalid_input) == "INVALID_INPUT");
    CHECK(http_status_of(error_code::unsupported_media_type) == 415);
    CHECK(name_of(error_code::unsupported_media_type) == "UNSUPPORTED_MEDIA_TYPE");
    CHECK(http_status_of(error_code::customer_deleted) == 410);
    CHECK(name_of(error_code::customer_deleted) == "CUSTOMER_DELETED");
    CHECK(http_status_of(error_code::uma_address_exists) == 409);
    CHECK(http_status_of(error_code::unauthorized) == 401);

    api_error error = error_of([] { fail_field("limit", "must be small"); });
    auto response = error_response(error);
    CHECK(response.status == 400);
    auto body = json::parse(response.body).as_object();
    CHECK(body.at("status") == 400);
    CHECK(body.at("code") == "INVALID_INPUT");
    CHECK(body.at("message") == "limit: must be small");
    CHECK(body.at("details").at("field") == "limit");

    auto unauthorized = error_response(error_code::unauthorized, "who are you");
    CHECK(unauthorized.status == 401);
    bool challenge = false;
    for (const auto& [name, value] : unauthorized.headers) {
        if (name == "WWW-Authenticate" && value.starts_with("Basic ")) challenge = true;
    }
    CHECK(challenge);
}

namespace {

constexpr field_shape item_shape[] = {{"name", json_kind::string}, {"share", json_kind::number}};
constexpr field_shape side_shape[] = {{"accountId", json_kind::string},
                                      {"currency", json_kind::string}};
constexpr field_shape body_shape[] = {
    {"source", json_kind::object, side_shape},
    {"amount", json_kind::integer},
    {"execute", json_kind::boolean},
    {"info", json_kind::object},
    {"tags", json_kind::array, {}, json_kind::string},
    {"owners", json_kind::array, item_shape, json_kind::object},
};

}  // namespace

TEST_CASE("check_shape: every defined field present is type-checked, by its path",
          "[server][input]") {
    auto check = [](const std::string& text) { check_shape(object_of(text), body_shape); };
    // Valid, absent, null and unknown fields pass; so does any object where none is described.
    check(R"({})");
    check(R"({"source": {"accountId": "a", "currency": null, "other": 1}, "amount": 5,
              "execute": false, "info": {"x": [1]}, "tags": ["a", "b"],
              "owners": [{"name": "n", "share": 12.5}], "unknown": {"deep": true}})");
    check(R"({"amount": 18446744073709551615})");  // the type is right; the range is the reader's
    check_field_error([&] { check(R"({"source": "x"})"); }, "source", "must be an object");
    check_field_error([&] { check(R"({"source": {"currency": 840}})"); }, "source.currency",
                      "must be a string");
    check_field_error([&] { check(R"({"amount": "5"})"); }, "amount", "must be an integer");
    check_field_error([&] { check(R"({"amount": 5.0})"); }, "amount", "must be an integer");
    check_field_error([&] { check(R"({"execute": 1})"); }, "execute", "must be true or false");
    check_field_error([&] { check(R"({"info": []})"); }, "info", "must be an object");
    check_field_error([&] { check(R"({"tags": "a"})"); }, "tags", "must be an array");
    check_field_error([&] { check(R"({"tags": ["a", 2]})"); }, "tags[1]", "must be a string");
    check_field_error([&] { check(R"({"tags": [null]})"); }, "tags[0]", "must be a string");
    check_field_error([&] { check(R"({"owners": [{"name": "n"}, 3]})"); }, "owners[1]",
                      "must be an object");
    check_field_error([&] { check(R"({"owners": [{"share": "10"}]})"); }, "owners[0].share",
                      "must be a number");
    check_field_error([&] { check(R"({"owners": [{"name": {}}]})"); }, "owners[0].name",
                      "must be a string");
}
