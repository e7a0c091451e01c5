#include "server/http/http_target.hpp"

#include <catch2/catch.hpp>

using namespace corridor;

TEST_CASE("an outbound URL gives the request line and Host header both clients send", "[outbound]") {
    std::string problem;
    auto plain = parse_http_target("http://example.com/hooks?a=1", problem);
    REQUIRE(plain);
    CHECK_FALSE(plain->tls);
    CHECK(plain->port == "80");
    CHECK(plain->path == "/hooks?a=1");
    CHECK(host_header(*plain) == "example.com");

    auto v6 = parse_http_target("https://[2001:db8::1]:8443", problem);
    REQUIRE(v6);
    CHECK(v6->tls);
    CHECK(v6->host == "2001:db8::1");
    CHECK(v6->path == "/");
    CHECK(host_header(*v6) == "[2001:db8::1]:8443");
    CHECK(host_header(*parse_http_target("https://[::1]/x", problem)) == "[::1]");
    CHECK(host_header(*parse_http_target("http://127.0.0.1:8080/", problem)) == "127.0.0.1:8080");
}

TEST_CASE("an outbound URL that cannot be sent to says why", "[outbound]") {
    std::string problem;
    CHECK_FALSE(parse_http_target("example.com/hooks", problem));
    CHECK(problem == "is not an absolute URL");
    CHECK_FALSE(parse_http_target("http://example.com/hooks#part", problem));  // no fragments
    CHECK(problem == "is not an absolute URL");
    CHECK_FALSE(parse_http_target("ftp://example.com/", problem));
    CHECK(problem == "must be http or https");
    CHECK_FALSE(parse_http_target("http:///path", problem));
    CHECK(problem == "has no host");
}
