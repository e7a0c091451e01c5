#include "server/http/address_policy.hpp"

#include <algorithm>
#include <array>

namespace corridor {
namespace {

bool ipv4_is_public(std::uint8_t a, std::uint8_t b, std::uint8_t c) {
    if (a == 0 || a == 10 || a == 127) return false;             // this network, private, loopback
    if (a == 100 && (b & 0xc0) == 64) return false;              // 100.64.0.0/10 carrier-grade NAT
    if (a == 169 && b == 254) return false;                      // link-local, cloud metadata
    if (a == 172 && (b & 0xf0) == 16) return false;              // 172.16.0.0/12
    if (a == 192 && b == 168) return false;                      // 192.168.0.0/16
    if (a == 192 && b == 0 && (c == 0 || c == 2)) return false;  // IETF assignments, TEST-NET-1
    if (a == 198 && (b & 0xfe) == 18) return false;              // 198.18.0.0/15 benchmarking
    if (a == 198 && b == 51 && c == 100) return false;           // TEST-NET-2
    if (a == 203 && b == 0 && c == 113) return false;            // TEST-NET-3
    if (a >= 224) return false;                                  // multicast, reserved, broadcast
    return true;
}

}  // namespace

bool is_public_address(std::span<const std::uint8_t> bytes) {
    if (bytes.size() == 4) return ipv4_is_public(bytes[0], bytes[1], bytes[2]);
    if (bytes.size() != 16) return false;
    const auto* p = bytes.data();
    bool first_ten_zero = std::all_of(p, p + 10, [](std::uint8_t x) { return x == 0; });
    // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, also :: and ::1): judge the IPv4 inside.
    if (first_ten_zero && p[10] == 0xff && p[11] == 0xff)
        return ipv4_is_public(p[12], p[13], p[14]);
    if (first_ten_zero && p[10] == 0 && p[11] == 0) return false;
    // 64:ff9b::/96 NAT64 embeds an IPv4 address too.
    static constexpr std::array<std::uint8_t, 12> nat64 = {0, 0x64, 0xff, 0x9b, 0, 0,
                                                           0, 0,    0,    0,    0, 0};
    if (std::equal(nat64.begin(), nat64.end(), p)) return ipv4_is_public(p[12], p[13], p[14]);
    if ((p[0] & 0xfe) == 0xfc) return false;                  // fc00::/7 unique local
    if (p[0] == 0xfe && (p[1] & 0xc0) == 0x80) return false;  // fe80::/10 link-local
    if (p[0] == 0xfe && (p[1] & 0xc0) == 0xc0) return false;  // fec0::/10 site-local (deprecated)
    if (p[0] == 0xff) return false;                           // multicast
    if (p[0] == 0x20 && p[1] == 0x01 && p[2] == 0x0d && p[3] == 0xb8)
        return false;  // documentation
    return true;
}

bool is_public_address(const boost::asio::ip::address& address) {
    if (address.is_v4()) return is_public_address(address.to_v4().to_bytes());
    return is_public_address(address.to_v6().to_bytes());
}

}  // namespace corridor
