#include "server/http/outbound_get.hpp"

#include <catch2/catch.hpp>

using namespace corridor;

TEST_CASE("outbound requests treat private, loopback and link-local addresses as private",
          "[outbound]") {
    for (const char* address :
         {"127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
          "100.64.0.1", "0.0.0.0", "::1", "::", "fe80::1", "fc00::1", "fd12::1", "::ffff:127.0.0.1",
          "::ffff:10.0.0.1", "224.0.0.1", "not an address"}) {
        INFO(address);
        CHECK(is_private_address(address));
    }
    for (const char* address : {"8.8.8.8", "172.32.0.1", "192.169.0.1", "100.128.0.1",
                                "2001:4860:4860::8888", "::ffff:8.8.8.8"}) {
        INFO(address);
        CHECK_FALSE(is_private_address(address));
    }
}

TEST_CASE("an outbound GET to a loopback address is refused unless allowed", "[outbound]") {
    outbound_get refusing({false, 2000, 1024});
    auto refused = refusing.get("http://127.0.0.1:9/.well-known/lnurlpubkey");
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().find("private") != std::string::npos);
    CHECK_FALSE(refusing.get("ftp://example.com/").ok());
    CHECK_FALSE(refusing.get("not a url").ok());
    // Allowed, the connection itself fails (nothing listens on port 9): an error, not a hang.
    outbound_get allowing({true, 2000, 1024});
    CHECK_FALSE(allowing.get("http://127.0.0.1:9/").ok());
}
