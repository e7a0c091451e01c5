// Outbound requests reach only publicly routable unicast addresses unless the operator allows
// private ones: every private, loopback, link-local, shared, reserved and multicast range is
// refused, including IPv6 forms that carry such an IPv4 address.
#include "server/http/address_policy.hpp"

#include <array>
#include <catch2/catch.hpp>
#include <vector>

using corridor::is_public_address;

namespace {

bool v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
    std::array<std::uint8_t, 4> bytes{a, b, c, d};
    return is_public_address(bytes);
}

bool v6(std::vector<std::uint8_t> prefix, std::vector<std::uint8_t> suffix = {}) {
    std::array<std::uint8_t, 16> bytes{};
    for (std::size_t i = 0; i < prefix.size(); ++i) bytes[i] = prefix[i];
    for (std::size_t i = 0; i < suffix.size(); ++i) bytes[16 - suffix.size() + i] = suffix[i];
    return is_public_address(bytes);
}

}  // namespace

TEST_CASE("IPv4: public unicast only", "[server][outbound]") {
    CHECK(v4(8, 8, 8, 8));
    CHECK(v4(93, 184, 216, 34));
    CHECK(v4(172, 15, 255, 255));
    CHECK(v4(172, 32, 0, 1));
    CHECK(v4(100, 63, 0, 1));
    CHECK_FALSE(v4(127, 0, 0, 1));
    CHECK_FALSE(v4(127, 255, 0, 9));
    CHECK_FALSE(v4(10, 1, 2, 3));
    CHECK_FALSE(v4(172, 16, 0, 1));
    CHECK_FALSE(v4(172, 31, 255, 255));
    CHECK_FALSE(v4(192, 168, 1, 1));
    CHECK_FALSE(v4(169, 254, 169, 254));
    CHECK_FALSE(v4(100, 64, 0, 1));
    CHECK_FALSE(v4(100, 127, 255, 255));
    CHECK_FALSE(v4(0, 0, 0, 0));
    CHECK_FALSE(v4(224, 0, 0, 1));
    CHECK_FALSE(v4(255, 255, 255, 255));
    CHECK_FALSE(v4(198, 18, 0, 1));
    CHECK_FALSE(v4(192, 0, 2, 1));
}

TEST_CASE("IPv6: public unicast only, embedded IPv4 judged as IPv4", "[server][outbound]") {
    CHECK(v6({0x26, 0x06, 0x47, 0x00}, {0x11}));
    CHECK_FALSE(v6({}, {}));                                   // ::
    CHECK_FALSE(v6({}, {0x01}));                               // ::1
    CHECK_FALSE(v6({0xfe, 0x80}, {0x01}));                     // link-local
    CHECK_FALSE(v6({0xfd, 0x00}, {0x01}));                     // unique local
    CHECK_FALSE(v6({0xff, 0x02}, {0x01}));                     // multicast
    CHECK_FALSE(v6({0x20, 0x01, 0x0d, 0xb8}, {1}));            // documentation
    CHECK_FALSE(v6({}, {0xff, 0xff, 127, 0, 0, 1}));           // ::ffff:127.0.0.1
    CHECK_FALSE(v6({}, {0xff, 0xff, 169, 254, 169, 254}));     // ::ffff:169.254.169.254
    CHECK(v6({}, {0xff, 0xff, 8, 8, 8, 8}));                   // ::ffff:8.8.8.8
    CHECK_FALSE(v6({0x00, 0x64, 0xff, 0x9b}, {10, 0, 0, 1}));  // NAT64 of a private address
    std::array<std::uint8_t, 5> odd{};
    CHECK_FALSE(is_public_address(odd));
}
