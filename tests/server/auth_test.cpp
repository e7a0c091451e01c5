// HTTP Basic parsing and the secret check. The header is attacker-controlled and parsed before any
// credential is known, so besides the happy path the tests feed it every malformed shape: wrong
// scheme, bad base64, misplaced padding, missing or empty parts, bytes no client id can hold.
#include "server/api/auth.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "ledger/platforms/token_store.hpp"

using namespace corridor;

namespace {

// Standard base64 with padding, written independently of the code under test.
std::string base64(const std::string& bytes) {
    static constexpr char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                     (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                     static_cast<unsigned char>(bytes[i + 2]);
        for (int shift : {18, 12, 6, 0}) out.push_back(alphabet[(v >> shift) & 63]);
    }
    std::size_t rest = bytes.size() - i;
    if (rest == 1) {
        unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
        out += {alphabet[(v >> 18) & 63], alphabet[(v >> 12) & 63], '=', '='};
    } else if (rest == 2) {
        unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                     (static_cast<unsigned char>(bytes[i + 1]) << 8);
        out += {alphabet[(v >> 18) & 63], alphabet[(v >> 12) & 63], alphabet[(v >> 6) & 63], '='};
    }
    return out;
}

std::string basic(const std::string& user_and_secret) { return "Basic " + base64(user_and_secret); }

}  // namespace

TEST_CASE("Basic credentials parse into client id and secret", "[server][auth]") {
    auto parsed = parse_basic_authorization(basic("sbx_0123:cs_secret"));
    REQUIRE(parsed);
    CHECK(parsed->client_id == "sbx_0123");
    CHECK(parsed->client_secret == "cs_secret");

    // Every padding length: secrets of 1, 2 and 3 more characters.
    for (std::string secret : {"s", "se", "sec", "secr"}) {
        INFO(secret);
        auto credentials = parse_basic_authorization(basic("id:" + secret));
        REQUIRE(credentials);
        CHECK(credentials->client_id == "id");
        CHECK(credentials->client_secret == secret);
    }
    // The secret may contain colons; the client id ends at the first one.
    parsed = parse_basic_authorization(basic("id:a:b:c"));
    REQUIRE(parsed);
    CHECK(parsed->client_id == "id");
    CHECK(parsed->client_secret == "a:b:c");
    // A secret of any bytes is the secret's business: it is only hashed.
    parsed = parse_basic_authorization(basic("id:\xff\x01 x"));
    REQUIRE(parsed);
    CHECK(parsed->client_secret == "\xff\x01 x");
}

TEST_CASE("the scheme is case-insensitive and spaces around the token are allowed",
          "[server][auth]") {
    const std::string token = base64("id:secret");
    for (std::string scheme : {"Basic", "basic", "BASIC", "bAsIc"}) {
        INFO(scheme);
        auto parsed = parse_basic_authorization(scheme + " " + token);
        REQUIRE(parsed);
        CHECK(parsed->client_id == "id");
    }
    CHECK(parse_basic_authorization("Basic   " + token));
    CHECK(parse_basic_authorization("Basic " + token + "  "));
}

TEST_CASE("other schemes and missing credentials are rejected", "[server][auth]") {
    const std::string token = base64("id:secret");
    CHECK_FALSE(parse_basic_authorization(""));
    CHECK_FALSE(parse_basic_authorization("Basic"));
    CHECK_FALSE(parse_basic_authorization("Basic "));
    CHECK_FALSE(parse_basic_authorization("Basic    "));
    CHECK_FALSE(parse_basic_authorization("Bearer " + token));
    CHECK_FALSE(parse_basic_authorization("Digest " + token));
    CHECK_FALSE(parse_basic_authorization("Basic" + token));
    CHECK_FALSE(parse_basic_authorization("Basically " + token));
    CHECK_FALSE(parse_basic_authorization(" Basic " + token));
    CHECK_FALSE(parse_basic_authorization(token));
    CHECK_FALSE(parse_basic_authorization("Basic " + std::string(1100, 'A')));
}

TEST_CASE("bad base64 is rejected", "[server][auth]") {
    const char* bad[] = {
        "Basic !!!!",
        "Basic aWQ6c2VjcmV0!",
        "Basic aWQ6c2VjcmV",       // not a multiple of four
        "Basic aWQ6c2VjcmV0=",     // one padding character too many
        "Basic aWQ6cw",            // padding left out
        "Basic aWQ6    c2VjcmV0",  // spaces inside
        "Basic aWQ6c2Vj\tcmV0",
        "Basic aWQ6-2VjcmV0",  // base64url is not base64
        "Basic aWQ6_2VjcmV0",
        "Basic ====",
        "Basic a===",
        "Basic aWQ6cw=a",  // padding followed by data
        "Basic aWQ6c===",
        "Basic aW==aWQ6",  // padding in the middle
        "Basic aWQ=6cw==",
        "Basic aWQ6cw==aWQ6cw==",  // two encodings glued together
    };
    for (const char* header : bad) {
        INFO(header);
        CHECK_FALSE(parse_basic_authorization(header));
    }
}

TEST_CASE("the colon and both parts are required", "[server][auth]") {
    CHECK_FALSE(parse_basic_authorization(basic("idsecret")));
    CHECK_FALSE(parse_basic_authorization(basic(":secret")));
    CHECK_FALSE(parse_basic_authorization(basic("id:")));
    CHECK_FALSE(parse_basic_authorization(basic(":")));
    CHECK_FALSE(parse_basic_authorization(basic("")));
}

TEST_CASE("a client id holds visible ASCII only", "[server][auth]") {
    // Client ids are sbx_/live_ and hex. Anything else cannot match a token, and bytes that are
    // not UTF-8 would make the PostgreSQL lookup fail (a 500 from an anonymous request).
    const char* bad[] = {"\xff\xfe:secret", "caf\xc3\xa9:secret", "a b:secret",
                         "a\tb:secret",     "a\x7f:secret",       "\x01:secret"};
    for (const char* credentials : bad) {
        INFO(credentials);
        CHECK_FALSE(parse_basic_authorization(basic(credentials)));
    }
    CHECK_FALSE(parse_basic_authorization(basic(std::string("a\0b:secret", 10))));
    CHECK(parse_basic_authorization(basic("live_0123456789abcdef0123456789abcdef:s")));
    CHECK(parse_basic_authorization(basic("~!#$%&'*+-.^_`|:s")));
}

TEST_CASE("secret_matches compares against the stored SHA-256", "[server][auth]") {
    const std::string secret = "cs_Zm9vYmFyYmF6cXV4";
    const std::string stored = hash_secret(secret);
    CHECK(secret_matches(secret, stored));
    CHECK_FALSE(secret_matches(secret + "x", stored));
    CHECK_FALSE(secret_matches("cs_Zm9vYmFyYmF6cXV5", stored));
    CHECK_FALSE(secret_matches("", stored));
    CHECK(secret_matches("", hash_secret("")));
    // The stored value is a hash: presenting the hash itself does not authenticate.
    CHECK_FALSE(secret_matches(stored, stored));
    // Malformed stored values never match.
    CHECK_FALSE(secret_matches(secret, ""));
    CHECK_FALSE(secret_matches(secret, stored.substr(0, 63)));
    CHECK_FALSE(secret_matches(secret, stored + "0"));
    std::string upper = stored;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    CHECK_FALSE(secret_matches(secret, upper));
}

TEST_CASE("permission_names lists permissions in a fixed order", "[server][auth]") {
    CHECK(permission_names(0) == "");
    CHECK(permission_names(permission_view) == "VIEW");
    CHECK(permission_names(permission_manage | permission_view) == "VIEW,MANAGE");
    CHECK(permission_names(permissions_all) == "VIEW,TRANSACT,MANAGE");
    CHECK(permission_names(permission_transact) == "TRANSACT");
}
