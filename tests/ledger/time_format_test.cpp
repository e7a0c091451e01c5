// ISO 8601 timestamps at the edge, integer milliseconds inside. The tests pin the exact output
// format, round-trip a spread of instants (before 1970 too), and walk the parser through offsets,
// fractions, calendar edge cases and malformed shapes, which arrive from clients as query filters.
#include "ledger/base/time_format.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <string>

using namespace corridor;

namespace {
constexpr std::int64_t day_ms = 86400000;
}

TEST_CASE("format_timestamp_ms writes UTC with milliseconds", "[ledger][time]") {
    CHECK(format_timestamp_ms(0) == "1970-01-01T00:00:00.000Z");
    CHECK(format_timestamp_ms(1760344200123) == "2025-10-13T08:30:00.123Z");
    CHECK(format_timestamp_ms(1709164800000) == "2024-02-29T00:00:00.000Z");
    CHECK(format_timestamp_ms(951782400000 - 1) == "2000-02-28T23:59:59.999Z");
    CHECK(format_timestamp_ms(-1) == "1969-12-31T23:59:59.999Z");
    CHECK(format_timestamp_ms(-day_ms) == "1969-12-31T00:00:00.000Z");
}

TEST_CASE("timestamps round-trip through format and parse", "[ledger][time]") {
    // A prime step visits every millisecond remainder, hour and weekday over ~two centuries.
    for (std::int64_t ms = -2208988800000; ms < 4102444800000; ms += 7777777777) {
        auto text = format_timestamp_ms(ms);
        INFO(text);
        REQUIRE(parse_timestamp_ms(text) == ms);
    }
    CHECK(parse_timestamp_ms("1970-01-01T00:00:00.000Z") == 0);
    CHECK(parse_timestamp_ms("1969-12-31T23:59:59.999Z") == -1);
}

TEST_CASE("offsets are applied in the right direction", "[ledger][time]") {
    const std::int64_t utc = 1760344200000;  // 2025-10-13T08:30:00Z
    CHECK(parse_timestamp_ms("2025-10-13T08:30:00Z") == utc);
    CHECK(parse_timestamp_ms("2025-10-13T08:30:00z") == utc);
    CHECK(parse_timestamp_ms("2025-10-13t08:30:00Z") == utc);
    CHECK(parse_timestamp_ms("2025-10-13T10:30:00+02:00") == utc);
    CHECK(parse_timestamp_ms("2025-10-13T03:00:00-05:30") == utc);
    CHECK(parse_timestamp_ms("2025-10-13T08:30:00+00:00") == utc);
    CHECK(parse_timestamp_ms("2025-10-13T08:30:00-00:00") == utc);
    CHECK(parse_timestamp_ms("2025-10-13T22:29:00+13:59") == utc);
    CHECK(parse_timestamp_ms("2025-10-13T08:29:00-00:01") == utc);
    // An offset can move the instant across midnight, month and year ends.
    CHECK(parse_timestamp_ms("2025-01-01T00:30:00+01:00") ==
          parse_timestamp_ms("2024-12-31T23:30:00Z"));
    CHECK(parse_timestamp_ms("2024-02-28T23:00:00-02:00") ==
          parse_timestamp_ms("2024-02-29T01:00:00Z"));
    CHECK(parse_timestamp_ms("2025-10-13T10:30:00.250+02:00") == utc + 250);
}

TEST_CASE("fractions of a second", "[ledger][time]") {
    const std::int64_t base = 1760344200000;
    CHECK(parse_timestamp_ms("2025-10-13T08:30:00.1Z") == base + 100);
    CHECK(parse_timestamp_ms("2025-10-13T08:30:00.12Z") == base + 120);
    CHECK(parse_timestamp_ms("2025-10-13T08:30:00.123Z") == base + 123);
    CHECK(parse_timestamp_ms("2025-10-13T08:30:00.000Z") == base);
    CHECK(parse_timestamp_ms("2025-10-13T08:30:00.007Z") == base + 7);
    // Digits beyond the millisecond are truncated, up to nanoseconds.
    CHECK(parse_timestamp_ms("2025-10-13T08:30:00.123999Z") == base + 123);
    CHECK(parse_timestamp_ms("2025-10-13T08:30:00.999999999Z") == base + 999);
    CHECK_FALSE(parse_timestamp_ms("2025-10-13T08:30:00.1234567890Z"));
    CHECK_FALSE(parse_timestamp_ms("2025-10-13T08:30:00.Z"));
    CHECK_FALSE(parse_timestamp_ms("2025-10-13T08:30:00."));
    CHECK_FALSE(parse_timestamp_ms("2025-10-13T08:30:00.12a4Z"));
    CHECK_FALSE(parse_timestamp_ms("2025-10-13T08:30:00,123Z"));
}

TEST_CASE("a bare date is midnight UTC", "[ledger][time]") {
    CHECK(parse_timestamp_ms("2025-10-13") == 1760313600000);
    CHECK(parse_timestamp_ms("1970-01-01") == 0);
    CHECK(parse_timestamp_ms("2024-02-29") == 1709164800000);
}

TEST_CASE("February 29 exists in leap years only; no month has a 30th of February",
          "[ledger][time]") {
    CHECK(is_calendar_date("2024-02-29"));
    CHECK(is_calendar_date("2000-02-29"));  // divisible by 400
    CHECK_FALSE(is_calendar_date("2023-02-29"));
    CHECK_FALSE(is_calendar_date("1900-02-29"));  // divisible by 100, not 400
    CHECK_FALSE(is_calendar_date("2100-02-29"));
    CHECK_FALSE(is_calendar_date("2024-02-30"));
    CHECK_FALSE(is_calendar_date("2024-04-31"));
    CHECK(is_calendar_date("2024-12-31"));
    CHECK_FALSE(is_calendar_date("2024-13-01"));
    CHECK_FALSE(is_calendar_date("2024-00-10"));
    CHECK_FALSE(is_calendar_date("2024-01-00"));
    CHECK_FALSE(is_calendar_date("2024-01-32"));

    CHECK(parse_timestamp_ms("2024-02-29T12:00:00Z"));
    CHECK_FALSE(parse_timestamp_ms("2023-02-29T12:00:00Z"));
    CHECK_FALSE(parse_timestamp_ms("2023-02-29"));
    CHECK_FALSE(parse_timestamp_ms("2024-02-30T00:00:00Z"));
    CHECK_FALSE(parse_timestamp_ms("1900-02-29T00:00:00Z"));
    CHECK(parse_timestamp_ms("2000-02-29T00:00:00Z") == 951782400000);
}

TEST_CASE("is_calendar_date wants exactly YYYY-MM-DD", "[ledger][time]") {
    CHECK_FALSE(is_calendar_date("2024-2-29"));
    CHECK_FALSE(is_calendar_date("24-02-29"));
    CHECK_FALSE(is_calendar_date("2024/02/29"));
    CHECK_FALSE(is_calendar_date("2024-02-29T00:00:00Z"));
    CHECK_FALSE(is_calendar_date("2024-02-29 "));
    CHECK_FALSE(is_calendar_date(" 2024-02-29"));
    CHECK_FALSE(is_calendar_date("2024-0a-29"));
    CHECK_FALSE(is_calendar_date("+024-02-29"));
    CHECK_FALSE(is_calendar_date(""));
}

TEST_CASE("malformed timestamps are rejected", "[ledger][time]") {
    const char* bad[] = {
        "",
        "2025",
        "2025-10",
        "2025-10-13T",
        "2025-10-13T08:30",
        "2025-10-13T08:30Z",
        "2025-10-13T08:30:00",  // no zone: ambiguous
        "2025-10-13 08:30:00Z",
        "2025-10-13X08:30:00Z",
        "2025-10-13T8:30:00Z",
        "2025-10-13T08-30-00Z",
        "2025-10-13T24:00:00Z",
        "2025-10-13T23:60:00Z",
        "2025-10-13T23:59:61Z",
        "2025-10-13T08:30:00ZZ",
        "2025-10-13T08:30:00Z ",
        "2025-10-13T08:30:00 Z",
        "2025-10-13T08:30:00+0200",
        "2025-10-13T08:30:00+02",
        "2025-10-13T08:30:00+02:00:00",
        "2025-10-13T08:30:00+24:00",
        "2025-10-13T08:30:00+02:60",
        "2025-10-13T08:30:00+a2:00",
        "2025-10-13T08:30:00UTC",
        "2025-10-13x",
        "2025-10-13 ",
        "-025-10-13T08:30:00Z",
        "20251013T083000Z",
        "2025-10-13T08:30:00.123",
    };
    for (const char* text : bad) {
        INFO("'" << text << "'");
        CHECK_FALSE(parse_timestamp_ms(text).has_value());
    }
}
