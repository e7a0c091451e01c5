#include "uma/signing.hpp"

#include <catch2/catch.hpp>

#include "uma/hex.hpp"

using namespace corridor;
using namespace corridor::uma;

namespace {

// The key of the UMA SDKs' published test certificate (uma-js-sdk src/tests/uma.test.ts).
private_key sdk_test_key() {
    return *private_key_from_bytes(
        *from_hex("77e891f0ecd265a3cda435eaa73792233ebd413aeb0dbb66f2940babfc9a2667"));
}

public_key key_from_hex(std::string_view text) {
    return *parse_public_key(*from_hex(text));
}

}  // namespace

TEST_CASE("signatures match the UMA SDK byte for byte", "[uma][signing]") {
    // Made with @uma-sdk/core 1.5.0 signPayload (RFC 6979, low-S) over the same key.
    struct vector {
        const char* payload;
        const char* signature;
    };
    const vector vectors[] = {
        {"$bob@vasp2.com|12345|1700000000",
         "3045022100e62c567fbaa1b4a8a64462add38253d3278de14bbfb07586b26051fff997a59902207f2f1eccc2"
         "f7978aed052fcab3df7417e8a5f01a9840f73d7d2105fd16f750c8"},
        {"$alice@vasp1.com|$bob@vasp2.com|12345|1700000000",
         "30450221009fff66b08ef450e6a14b997dd2808f6eafaf18ea5d53ce2ecbe10314bb73511502205630ed6618"
         "4cd20fa375c996e3d92f45b9955dfc3ce3014062cc017f73546b1f"},
        {"12345|1700000000",
         "3045022100a7c0940cb3e9b8f64f1f328f598a4709badebbc90c57e5a5ed6d5737389fa5fd0220263397638"
         "949ef1eb8606045e68143b9f5b230643861abf5149e26b7317cb76c"},
    };
    auto key = sdk_test_key();
    CHECK(
        to_hex(public_key_of(key)) ==
        "04419c5467ea563f0010fd614f85e885ac99c21b8e8d416241175fdd5efd2244fe907e2e6fa3dd6631b1b17cd2"
        "8798da8d882a34c4776d44cc4090781c7aadea1b");
    for (const auto& item : vectors) {
        INFO(item.payload);
        CHECK(sign_payload(item.payload, key) == item.signature);
        CHECK(verify_payload(item.payload, item.signature, public_key_of(key)));
    }
}

TEST_CASE("a signature fails with another key, another payload or damaged bytes",
          "[uma][signing]") {
    seeded_random random(7);
    auto key = generate_private_key(random);
    auto other = generate_private_key(random);
    std::string payload = "$bob@example.com|42|1700000000";
    std::string signature = sign_payload(payload, key);
    CHECK(verify_payload(payload, signature, public_key_of(key)));
    CHECK_FALSE(verify_payload(payload, signature, public_key_of(other)));
    CHECK_FALSE(verify_payload("$bob@example.com|43|1700000000", signature, public_key_of(key)));
    CHECK_FALSE(verify_payload("$eve@example.com|42|1700000000", signature, public_key_of(key)));
    std::string damaged = signature;
    damaged[20] = damaged[20] == '0' ? '1' : '0';
    CHECK_FALSE(verify_payload(payload, damaged, public_key_of(key)));
    CHECK_FALSE(verify_payload(payload, "", public_key_of(key)));
    CHECK_FALSE(verify_payload(payload, "zz", public_key_of(key)));
    CHECK_FALSE(verify_payload(payload, signature.substr(1), public_key_of(key)));
    CHECK_FALSE(
        verify_payload(payload, signature.substr(0, signature.size() - 2), public_key_of(key)));
}

TEST_CASE("a high-S signature verifies once S is normalised", "[uma][signing]") {
    // A real request signed with high S (uma-js-sdk "should verify high signatures").
    auto key = key_from_hex(
        "047d37ce263a855ff49eb2a537a77a369a861507687bfde1df40062c8774488d644455a44baeb5062b79907d2e"
        "6f9692dd5b7bd7c37a3721ba21378d3594672063");
    std::string signature =
        "30450220694fce49a32c81a58ddb0090ebdd4c7ff3a1e277d28570c61bf2b8274b5d8286022100fe6f0318579e"
        "12726531c8a63aea6a94f59f46b7679f970df33f7750a0d88f36";
    // S begins 0xfe..., above half the group order: a plain libsecp256k1 verify would refuse it.
    CHECK(verify_payload("$jeremy@uma.jeremykle.in|2734010273|1701461443", signature, key));
    CHECK_FALSE(verify_payload("$jeremy@uma.jeremykle.in|2734010274|1701461443", signature, key));
}

TEST_CASE("our signatures are low-S DER", "[uma][signing]") {
    seeded_random random(11);
    for (int i = 0; i < 50; ++i) {
        auto key = generate_private_key(random);
        auto der = *from_hex(sign_payload("payload " + std::to_string(i), key));
        REQUIRE(der[0] == 0x30);
        std::size_t r_length = der[3];
        std::size_t s_at = 4 + r_length;
        REQUIRE(der[s_at] == 0x02);
        std::size_t s_length = der[s_at + 1];
        // Low S fits in 32 bytes without a sign-padding zero, and its top bit (of 256) is clear.
        CHECK(s_length <= 32);
        if (s_length == 32) CHECK(der[s_at + 2] < 0x80);
    }
}

TEST_CASE("keys parse in both encodings and refuse bad bytes", "[uma][signing]") {
    auto key = sdk_test_key();
    auto full = public_key_of(key);
    auto short_form = compress(full);
    CHECK(parse_public_key(short_form) == full);
    CHECK(parse_public_key(full) == full);
    auto broken = full;
    broken[64] ^= 1;  // off the curve
    CHECK_FALSE(parse_public_key(broken).has_value());
    CHECK_FALSE(private_key_from_bytes(std::vector<std::uint8_t>(32, 0)).has_value());
    CHECK_FALSE(private_key_from_bytes(std::vector<std::uint8_t>(31, 1)).has_value());
    CHECK_FALSE(private_key_from_bytes(std::vector<std::uint8_t>(32, 0xff)).has_value());
    CHECK_FALSE(from_hex("abc").has_value());
    CHECK_FALSE(from_hex("zz").has_value());
}
