// Page cursors are opaque to clients and come back from them, so decode_cursor treats them as
// hostile: it must return the id that encode_cursor was given, and for anything else (tampered,
// truncated, foreign, oversized) either nothing or, at worst, another well-formed id; never text
// that is not an id. Paging itself is tested with the stores.
#include "ledger/store/page.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "ledger/base/clock.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/base/random.hpp"
#include "tests/support/text_checks.hpp"

using namespace corridor;

namespace {

// base64url without padding of arbitrary bytes, written independently of page.cpp.
std::string base64url(const std::string& bytes) {
    static constexpr char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::string out;
    unsigned buffer = 0;
    int bits = 0;
    for (unsigned char byte : bytes) {
        buffer = (buffer << 8) | byte;
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out.push_back(alphabet[(buffer >> bits) & 63]);
        }
    }
    if (bits > 0) out.push_back(alphabet[(buffer << (6 - bits)) & 63]);
    return out;
}

bool is_id_shape(const std::string& id) {
    auto colon = id.find(':');
    return colon != std::string::npos && colon > 0 && is_typed_id(id.substr(0, colon), id);
}

}  // namespace

TEST_CASE("cursors round-trip ids of every length remainder", "[ledger][page]") {
    manual_clock clock(1760344200000);
    seeded_random random(5);
    id_generator ids(clock, random);
    // Type names of 1, 2 and 3 characters give every remainder of the encoded length mod 3.
    for (std::string type : {"A", "Ab", "Abc", "Customer", "Token", "PlatformConfig"}) {
        for (int i = 0; i < 50; ++i) {
            std::string id = ids.next(type);
            std::string cursor = encode_cursor(id);
            INFO(id << " -> " << cursor);
            CHECK(testing::is_base64url(cursor));
            CHECK(cursor.find(id) == std::string::npos);
            REQUIRE(decode_cursor(cursor) == id);
            // The encoding is the documented one: base64url of "k1|" and the id, unpadded.
            CHECK(cursor == base64url("k1|" + id));
        }
    }
}

TEST_CASE("cursors this service did not issue are rejected", "[ledger][page]") {
    const std::string id = "Customer:0199dcb0-d3bb-7000-8000-000000000000";
    CHECK(decode_cursor(base64url("k1|" + id)) == id);

    CHECK_FALSE(decode_cursor(""));
    CHECK_FALSE(decode_cursor("!!!!"));
    CHECK_FALSE(decode_cursor(base64url(id)));          // no version prefix
    CHECK_FALSE(decode_cursor(base64url("k2|" + id)));  // a later cursor format
    CHECK_FALSE(decode_cursor(base64url("K1|" + id)));
    CHECK_FALSE(decode_cursor(base64url("k1|")));  // no id
    CHECK_FALSE(decode_cursor(base64url("k1|" + id + " ")));
    CHECK_FALSE(decode_cursor(base64url("k1|' OR 1=1 --")));
    CHECK_FALSE(decode_cursor(base64url("k1|" + id + "'")));
    CHECK_FALSE(decode_cursor(base64url("k1|Customer:" + std::string(120, 'a'))));
    CHECK_FALSE(decode_cursor(base64url("k1|" + std::string(200, 'a'))));
    CHECK_FALSE(decode_cursor(base64url(R"({"after":")" + id + R"("})")));
    // Offset-style cursors of other APIs.
    CHECK_FALSE(decode_cursor("20"));
    CHECK_FALSE(decode_cursor(base64url("offset:20")));
    CHECK_FALSE(decode_cursor(base64url("k1|20")));
    CHECK_FALSE(decode_cursor(base64url("k1|Customer:20")));
    CHECK_FALSE(decode_cursor(base64url("k1|:" + id.substr(9))));
}

TEST_CASE("cursors in standard base64 or with padding are not ours", "[ledger][page]") {
    // base64url never contains + / =, so a cursor with them was not made by encode_cursor.
    const std::string cursor = encode_cursor("Customer:0199dcb0-d3bb-7000-8000-000000000000");
    CHECK_FALSE(decode_cursor(cursor + "="));
    CHECK_FALSE(decode_cursor(cursor + "=="));
    CHECK_FALSE(decode_cursor("+" + cursor.substr(1)));
    CHECK_FALSE(decode_cursor("/" + cursor.substr(1)));
    CHECK_FALSE(decode_cursor(cursor + " "));
    CHECK_FALSE(decode_cursor(" " + cursor));
    CHECK_FALSE(decode_cursor(cursor.substr(0, 10) + "\n" + cursor.substr(10)));
    CHECK_FALSE(decode_cursor(cursor.substr(0, 10) + "%2B" + cursor.substr(10)));
    CHECK_FALSE(decode_cursor(std::string(513, 'A')));
}

TEST_CASE("truncated and extended cursors are rejected", "[ledger][page]") {
    const std::string id = "Token:0199dcb0-d3bb-7000-8000-0123456789ab";
    const std::string cursor = encode_cursor(id);
    for (std::size_t cut = 1; cut < cursor.size(); ++cut) {
        INFO("cut " << cut);
        CHECK_FALSE(decode_cursor(cursor.substr(0, cursor.size() - cut)));
    }
    CHECK_FALSE(decode_cursor(cursor + "A"));
    CHECK_FALSE(decode_cursor(cursor + "AA"));
    CHECK_FALSE(decode_cursor(cursor + "AAAA"));
    CHECK_FALSE(decode_cursor(cursor + cursor));
}

TEST_CASE("a tampered cursor decodes to nothing or to a well-formed id", "[ledger][page]") {
    // Changing any character of a cursor to any other character of the alphabet: decode_cursor
    // may accept the result only when it still holds a well-formed typed id (a client can always
    // write a cursor for an id it knows; it must never smuggle in other text).
    const std::string id = "Customer:0199dcb0-d3bb-7000-8000-0123456789ab";
    const std::string cursor = encode_cursor(id);
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    int rejected = 0;
    for (std::size_t at = 0; at < cursor.size(); ++at) {
        for (char replacement : alphabet) {
            if (replacement == cursor[at]) continue;
            std::string tampered = cursor;
            tampered[at] = replacement;
            auto decoded = decode_cursor(tampered);
            if (!decoded) {
                ++rejected;
                continue;
            }
            INFO(tampered << " -> " << *decoded);
            REQUIRE(is_id_shape(*decoded));
            REQUIRE(*decoded != id);
        }
    }
    // Most single-character changes break the shape.
    CHECK(rejected > static_cast<int>(cursor.size() * 63 / 2));
}

TEST_CASE("only the canonical encoding of a cursor is accepted", "[ledger][page]") {
    // "k1|A:<uuid>" is 41 bytes: 55 characters whose last one carries 2 unused bits. Setting them
    // gives text that decodes to the same bytes but was never issued.
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const std::string id = "A:0199dcb0-d3bb-7000-8000-0123456789ab";
    const std::string cursor = encode_cursor(id);
    REQUIRE(cursor.size() == 55);
    auto last = alphabet.find(cursor.back());
    REQUIRE((last & 3) == 0);
    for (std::size_t unused = 1; unused < 4; ++unused) {
        std::string variant = cursor;
        variant.back() = alphabet[last | unused];
        INFO(variant);
        CHECK_FALSE(decode_cursor(variant));
    }
    CHECK(decode_cursor(cursor) == id);
}
