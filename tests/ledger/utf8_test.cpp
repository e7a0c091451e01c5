// is_valid_utf8 guards what client text may reach PostgreSQL, which rejects malformed UTF-8 with
// an error. The cases follow RFC 3629 and Markus Kuhn's decoder stress test: boundaries of each
// sequence length, overlong forms, surrogates, values above U+10FFFF, truncated sequences.
#include <catch2/catch.hpp>

#include <string>

#include "ledger/base/utf8.hpp"

using namespace corridor;

TEST_CASE("well-formed UTF-8 is accepted", "[ledger][utf8]") {
    const char* good[] = {
        "",
        "plain ASCII ~!@#",
        "caf\xc3\xa9",                  // U+00E9
        "\xc2\x80",                     // U+0080, first two-byte
        "\xdf\xbf",                     // U+07FF, last two-byte
        "\xe0\xa0\x80",                 // U+0800, first three-byte
        "\xed\x9f\xbf",                 // U+D7FF, just below the surrogates
        "\xee\x80\x80",                 // U+E000, just above them
        "\xef\xbf\xbd",                 // U+FFFD
        "\xf0\x90\x80\x80",             // U+10000, first four-byte
        "\xf4\x8f\xbf\xbf",             // U+10FFFF, the last code point
        "\xe2\x82\xac 100 \xf0\x9f\x92\xb8",
    };
    for (const char* text : good) {
        INFO(text);
        CHECK(is_valid_utf8(text));
    }
    CHECK(is_valid_utf8(std::string("a\0b", 3)));  // NUL is a character; callers decide on it
}

TEST_CASE("malformed UTF-8 is rejected", "[ledger][utf8]") {
    const char* bad[] = {
        "\x80",                  // continuation byte alone
        "\xbf",
        "a\xc3",                 // truncated two-byte
        "\xe2\x82",              // truncated three-byte
        "\xf0\x9f\x92",          // truncated four-byte
        "\xc3\x28",              // bad continuation
        "\xe2\x28\xa1",
        "\xe2\x82\x28",
        "\xf0\x28\x8c\xbc",
        "\xf0\x90\x28\xbc",
        "\xf0\x90\x8c\x28",
        "\xc0\xaf",              // overlong "/"
        "\xc1\xbf",
        "\xe0\x80\xaf",
        "\xe0\x9f\xbf",          // overlong U+07FF
        "\xf0\x80\x80\xaf",
        "\xf0\x8f\xbf\xbf",      // overlong U+FFFF
        "\xed\xa0\x80",          // U+D800, a surrogate
        "\xed\xbf\xbf",          // U+DFFF
        "\xf4\x90\x80\x80",      // U+110000
        "\xf5\x80\x80\x80",
        "\xf8\x88\x80\x80\x80",  // five-byte form
        "\xfe",
        "\xff",
    };
    for (const char* text : bad) {
        INFO(text);
        CHECK_FALSE(is_valid_utf8(text));
        CHECK_FALSE(is_valid_utf8(std::string("ok ") + text + " ok"));
    }
}

TEST_CASE("a printable excerpt keeps printable ASCII, line feeds and tabs, up to its length",
          "[ledger][utf8]") {
    using namespace std::string_literals;
    CHECK(printable_excerpt("ok\tdone\n", 64) == "ok\tdone\n");
    CHECK(printable_excerpt("a\0b\rc\x7f"s, 64) == "a?b?c?");
    CHECK(printable_excerpt("caf\xc3\xa9", 64) == "caf??");
    CHECK(printable_excerpt("abcdef", 3) == "abc");
    std::string excerpt = printable_excerpt("\xff\xfe long body", 4);
    CHECK(excerpt == "?? l");
    CHECK(is_valid_utf8(excerpt));
}
