#include "uma/version.hpp"

#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>

using namespace corridor::uma;

TEST_CASE("versions negotiate to the lower of theirs and ours in a shared major",
          "[uma][version]") {
    auto pick = [](std::string_view requested) {
        return negotiate_version(requested).value().text();
    };
    CHECK(pick("1.0") == "1.0");
    CHECK(pick("1.7") == "1.0");
    CHECK(pick("0.3") == "0.3");
    CHECK(pick("0.9") == "0.3");
    CHECK(pick("0.1") == "0.1");
}

TEST_CASE("an unsupported major is 412 naming the majors we speak", "[uma][version]") {
    auto outcome = negotiate_version("2.0");
    REQUIRE_FALSE(outcome.ok());
    auto error = outcome.error();
    CHECK(http_status_of(error.kind) == 412);
    CHECK(
        boost::json::serialize(to_json(error)) ==
        R"({"status":"ERROR","reason":"unsupported version: 2.0","code":"UNSUPPORTED_UMA_VERSION",)"
        R"("supportedMajorVersions":[1,0],"unsupportedVersion":"2.0"})");
}

TEST_CASE("a malformed version is invalid input, not 412", "[uma][version]") {
    for (std::string_view text : {"", "1", "1.", ".1", "a.b", "1.0.0", "-1.0", "1.x", " 1.0"}) {
        INFO(text);
        auto outcome = negotiate_version(text);
        REQUIRE_FALSE(outcome.ok());
        CHECK(outcome.error().kind == error_kind::invalid_input);
    }
}

TEST_CASE("a sender told 412 picks the highest version in common", "[uma][version]") {
    CHECK(select_highest_supported({0, 1, 2}).value().text() == "1.0");
    CHECK(select_highest_supported({0}).value().text() == "0.3");
    CHECK(select_highest_supported({2, 1}).value().text() == "1.0");
    auto none = select_highest_supported({2, 3});
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().kind == error_kind::no_compatible_uma_version);
    CHECK(http_status_of(none.error().kind) == 424);
}
