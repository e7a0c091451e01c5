// UMA addresses "$user@domain" and UMA domains. The normalised form is what the store keeps unique
// (one domain per platform, one address per environment), so besides accepting and rejecting, the
// tests check that two spellings of the same domain normalise to one string.
#include "ledger/base/uma_address.hpp"

#include <catch2/catch.hpp>
#include <string>

using namespace corridor;

namespace {

std::string domain_or_empty(std::string_view text) {
    return normalize_uma_domain(text).value_or("");
}

}  // namespace

TEST_CASE("valid UMA addresses parse into lower-case user and domain", "[ledger][uma]") {
    auto address = parse_uma_address("$alice@example.com");
    REQUIRE(address);
    CHECK(address->user == "alice");
    CHECK(address->domain == "example.com");
    CHECK(address->text() == "$alice@example.com");

    address = parse_uma_address("$Alice.Smith+tips_2-x@Pay.Example.COM");
    REQUIRE(address);
    CHECK(address->user == "alice.smith+tips_2-x");
    CHECK(address->domain == "pay.example.com");
    CHECK(address->text() == "$alice.smith+tips_2-x@pay.example.com");

    CHECK(parse_uma_address("$a@localhost"));
    CHECK(parse_uma_address("$bob@127.0.0.1:8080"));
    CHECK(parse_uma_address("$bob@[::1]:8080"));
    CHECK(parse_uma_address("$bob@xn--bcher-kva.example"));
    CHECK(parse_uma_address("$0@9.example"));
}

TEST_CASE("invalid UMA addresses", "[ledger][uma]") {
    const char* bad[] = {
        "alice@example.com",    // no $
        "$@example.com",        // empty user
        "$alice",               // no domain
        "$alice@",              // empty domain
        "$alice@@example.com",  // two @
        "$alice@bob@example.com",
        "$al ice@example.com",
        "$alice!@example.com",
        "$ali/ce@example.com",
        "$ali:ce@example.com",
        "$jos\xc3\xa9@example.com",  // non-ASCII user
        " $alice@example.com",
        "$alice@example.com ",
        "$$alice@example.com",
        "$alice@exa mple.com",
        "$a@",
        "$",
        "",
    };
    for (const char* text : bad) {
        INFO("'" << text << "'");
        CHECK_FALSE(parse_uma_address(text));
    }
}

TEST_CASE("an address is at most 64 characters including the $", "[ledger][uma]") {
    // "$" + user + "@" + "example.com" (11) = 64 when the user has 51 characters.
    std::string user(51, 'a');
    CHECK(parse_uma_address("$" + user + "@example.com"));
    CHECK_FALSE(parse_uma_address("$" + user + "a@example.com"));
    CHECK(parse_uma_address("$ab@c"));
    CHECK_FALSE(parse_uma_address("$a@"));
}

TEST_CASE("domains: DNS names", "[ledger][uma]") {
    CHECK(domain_or_empty("example.com") == "example.com");
    CHECK(domain_or_empty("EXAMPLE.Com") == "example.com");
    CHECK(domain_or_empty("a-b.c-d.example") == "a-b.c-d.example");
    CHECK(domain_or_empty("localhost") == "localhost");
    CHECK(domain_or_empty("3com.example") == "3com.example");
    CHECK(domain_or_empty("example.123abc") == "example.123abc");

    const char* bad[] = {
        "",
        ".",
        "example..com",
        ".example.com",
        "example.com.",  // a trailing root dot would make two spellings of one domain
        "-example.com",
        "example-.com",
        "exa_mple.com",
        "exa mple.com",
        "example.com/",
        "user@example.com",
        "ex\xc3\xa4mple.com",
    };
    for (const char* text : bad) {
        INFO("'" << text << "'");
        CHECK_FALSE(normalize_uma_domain(text));
    }
}

TEST_CASE("domains: a label has at most 63 characters, a name at most 253", "[ledger][uma]") {
    std::string label63(63, 'a');
    CHECK(normalize_uma_domain(label63 + ".example"));
    CHECK_FALSE(normalize_uma_domain(label63 + "a.example"));
    // Four labels of 63 and dots: 255 characters; trim to exactly 253 and 254.
    std::string name = label63 + "." + label63 + "." + label63 + "." + std::string(61, 'b');
    REQUIRE(name.size() == 253);
    CHECK(normalize_uma_domain(name));
    CHECK_FALSE(normalize_uma_domain(name + "b"));
}

TEST_CASE("domains: names that look like numbers are not DNS names", "[ledger][uma]") {
    // RFC 1123 section 2.1 and RFC 3696 section 2: a top-level label is never all digits, so
    // these are malformed IPv4 addresses rather than host names.
    const char* bad[] = {"256.1.1.1", "1.2.3", "1.2.3.4.5",   "999.999.999.999",
                         "01.2.3.4",  "123",   "example.123", "1.2.3.4.:80"};
    for (const char* text : bad) {
        INFO("'" << text << "'");
        CHECK_FALSE(normalize_uma_domain(text));
    }
}

TEST_CASE("domains: IPv4 literals", "[ledger][uma]") {
    CHECK(domain_or_empty("127.0.0.1") == "127.0.0.1");
    CHECK(domain_or_empty("0.0.0.0") == "0.0.0.0");
    CHECK(domain_or_empty("255.255.255.255") == "255.255.255.255");
    CHECK(domain_or_empty("10.0.0.1:8080") == "10.0.0.1:8080");
    CHECK_FALSE(normalize_uma_domain("127.0.0.01"));
    CHECK_FALSE(normalize_uma_domain("127.0.0.256"));
    CHECK_FALSE(normalize_uma_domain("127.0.0.1.:80"));
    CHECK_FALSE(normalize_uma_domain("127..0.1"));
    CHECK_FALSE(normalize_uma_domain("127.0.0.-1"));
}

TEST_CASE("domains: IPv6 literals in brackets, in canonical form", "[ledger][uma]") {
    CHECK(domain_or_empty("[::1]") == "[::1]");
    CHECK(domain_or_empty("[::1]:8080") == "[::1]:8080");
    CHECK(domain_or_empty("[2001:db8::1]") == "[2001:db8::1]");
    // One address, one spelling: upper case, leading zeros and uncompressed zero runs normalise
    // to the RFC 5952 form, so the uniqueness of domains cannot be sidestepped.
    CHECK(domain_or_empty("[2001:DB8::1]") == "[2001:db8::1]");
    CHECK(domain_or_empty("[2001:0db8:0000:0000:0000:0000:0000:0001]") == "[2001:db8::1]");
    CHECK(domain_or_empty("[0:0:0:0:0:0:0:1]:443") == "[::1]:443");
    CHECK(domain_or_empty("[::ffff:192.0.2.1]") == "[::ffff:192.0.2.1]");

    const char* bad[] = {
        "::1",   // no brackets
        "[::1",  // unclosed
        "::1]",
        "[::1]x",  // junk after the bracket
        "[::1]:",  // empty port
        "[::1]:0",
        "[]",
        "[:]",
        "[::::::]",             // colons only
        "[1:2:3:4:5:6:7:8:9]",  // nine groups
        "[12345::1]",           // a group of five digits
        "[2001:db8::g]",
        "[1.2.3.4]",       // IPv4 in brackets
        "[fe80::1%eth0]",  // zone ids name an interface of this host only
        "[[::1]]",
    };
    for (const char* text : bad) {
        INFO("'" << text << "'");
        CHECK_FALSE(normalize_uma_domain(text));
    }
}

TEST_CASE("domains: ports 1 to 65535, written without leading zeros", "[ledger][uma]") {
    CHECK(domain_or_empty("example.com:1") == "example.com:1");
    CHECK(domain_or_empty("example.com:65535") == "example.com:65535");
    CHECK(domain_or_empty("localhost:8080") == "localhost:8080");
    CHECK_FALSE(normalize_uma_domain("example.com:0"));
    CHECK_FALSE(normalize_uma_domain("example.com:65536"));
    CHECK_FALSE(normalize_uma_domain("example.com:123456"));
    CHECK_FALSE(normalize_uma_domain("example.com:"));
    CHECK_FALSE(normalize_uma_domain("example.com:80a"));
    CHECK_FALSE(normalize_uma_domain("example.com:-80"));
    CHECK_FALSE(normalize_uma_domain("example.com:+80"));
    CHECK_FALSE(normalize_uma_domain("example.com: 80"));
    CHECK_FALSE(normalize_uma_domain("example.com:80:80"));
    CHECK_FALSE(normalize_uma_domain(":8080"));
    // "example.com:08080" is example.com:8080 spelled differently; accepting it would let a
    // second platform claim the same host and port.
    CHECK_FALSE(normalize_uma_domain("example.com:08080"));
    CHECK_FALSE(normalize_uma_domain("[::1]:0443"));
}

TEST_CASE("an address's domain follows the domain rules", "[ledger][uma]") {
    CHECK_FALSE(parse_uma_address("$alice@256.1.1.1"));
    CHECK_FALSE(parse_uma_address("$alice@example.com:0"));
    CHECK_FALSE(parse_uma_address("$alice@[::::]"));
    auto address = parse_uma_address("$Alice@[2001:DB8::1]:8443");
    REQUIRE(address);
    CHECK(address->text() == "$alice@[2001:db8::1]:8443");
}
