#include "uma/ecies.hpp"

#include <catch2/catch.hpp>

using namespace corridor;
using namespace corridor::uma;

TEST_CASE("an eciesjs ciphertext decrypts", "[uma][ecies]") {
    // Made with eciesjs 0.4.18 for the SDK test encryption key 04bf9997...8d5c65.
    auto key = *private_key_from_bytes(
        *from_hex("afbbdcb77d7afc5496ef4f016072deaa326a1b9a4deb72c7a67febaf169c4d66"));
    auto data = *from_hex(
        "048a607ede9fd663a56b816a8d7c9252f10c7289ea6e53080ce916b9879a47db282cb12c976cb04c77b0ab1335"
        "b8007d82e81c72ee47a01256a316397b20c7eb1108bae665393c678c05ea21bb0b9244f1aab6ea04f537b3e5e2"
        "51b84c0130c61fbf2efa0d1fb0cb008d76a76ae25204e2");
    auto plain = ecies_decrypt(key, data);
    REQUIRE(plain.has_value());
    CHECK(*plain == R"({"name":"Alice"})");

    SECTION("a changed byte anywhere fails authentication") {
        for (std::size_t at : {std::size_t{1}, std::size_t{70}, std::size_t{90}, data.size() - 1}) {
            auto damaged = data;
            damaged[at] ^= 0x01;
            INFO(at);
            CHECK_FALSE(ecies_decrypt(key, damaged).has_value());
        }
    }
    SECTION("another key fails") {
        seeded_random random(3);
        CHECK_FALSE(ecies_decrypt(generate_private_key(random), data).has_value());
    }
    SECTION("short data fails") {
        CHECK_FALSE(ecies_decrypt(key, std::span(data.data(), 96)).has_value());
        CHECK_FALSE(ecies_decrypt(key, std::span(data.data(), 10)).has_value());
    }
}

TEST_CASE("ECIES round trips, and each encryption is fresh", "[uma][ecies]") {
    seeded_random random(5);
    auto key = generate_private_key(random);
    for (std::string plain : {std::string(), std::string("x"), std::string(5000, 'z'),
                              std::string(R"({"name":"Zoë","accountNumber":"123"})")}) {
        auto first = ecies_encrypt(public_key_of(key), plain, random);
        auto second = ecies_encrypt(public_key_of(key), plain, random);
        CHECK(first.size() == 65 + 16 + 16 + plain.size());
        CHECK(first[0] == 0x04);
        CHECK(first != second);
        CHECK(ecies_decrypt(key, first) == plain);
        CHECK(ecies_decrypt(key, second) == plain);
    }
}
