// The router: which route a method and path reach, the parameters it hands the handler, and what
// it reports when the path exists but the method does not (405 with Allow) or the path is not a
// path at all. Registering the same route twice aborts the process by design and is not tested
// here.
#include "server/api/router.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace corridor;

namespace {

http_response dummy_handler(request_context&) { return {}; }

route_spec spec(http_method method, std::string pattern) {
    route_spec route;
    route.method = method;
    route.pattern = std::move(pattern);
    route.handler = dummy_handler;
    return route;
}

// The pattern a request reaches, or "" when none.
std::string reached(const router& routes, http_method method, std::string_view path) {
    auto match = routes.match(method, path);
    return match.route ? match.route->pattern : "";
}

router api_routes() {
    router routes;
    routes.add(spec(http_method::get, "/2025-10-13/customers"));
    routes.add(spec(http_method::post, "/2025-10-13/customers"));
    routes.add(spec(http_method::get, "/2025-10-13/customers/{customerId}"));
    routes.add(spec(http_method::patch, "/2025-10-13/customers/{customerId}"));
    routes.add(spec(http_method::delete_, "/2025-10-13/customers/{customerId}"));
    routes.add(spec(http_method::get, "/2025-10-13/customers/external-accounts"));
    routes.add(spec(http_method::post, "/2025-10-13/customers/external-accounts"));
    routes.add(spec(http_method::get, "/2025-10-13/tokens/{tokenId}"));
    routes.add(spec(http_method::get, "/healthz"));
    return routes;
}

}  // namespace

TEST_CASE("routes match by method and path; parameters are handed over", "[server][router]") {
    router routes = api_routes();
    auto match = routes.match(http_method::get, "/2025-10-13/customers/Customer:abc");
    REQUIRE(match.route);
    CHECK(match.route->pattern == "/2025-10-13/customers/{customerId}");
    CHECK(match.route->method == http_method::get);
    CHECK(match.index == 2);
    CHECK(match.params == std::vector<std::string>{"Customer:abc"});
    CHECK(match.allowed.size() == 2);  // PATCH and DELETE exist too; reported, not used

    match = routes.match(http_method::patch, "/2025-10-13/customers/Customer:abc");
    REQUIRE(match.route);
    CHECK(match.index == 3);

    CHECK(reached(routes, http_method::get, "/2025-10-13/customers") == "/2025-10-13/customers");
    CHECK(routes.match(http_method::get, "/2025-10-13/customers").params.empty());
    CHECK(reached(routes, http_method::get, "/healthz") == "/healthz");
    CHECK(reached(routes, http_method::get, "/2025-10-13/customers/a/b") == "");
    CHECK(reached(routes, http_method::get, "/2025-10-13") == "");
    CHECK(reached(routes, http_method::get, "/2025-10-14/customers") == "");
    CHECK(reached(routes, http_method::get, "/2025-10-13/Customers") == "");
    // No match at all: no route, no index, nothing allowed.
    auto none = routes.match(http_method::get, "/nowhere");
    CHECK_FALSE(none.route);
    CHECK(none.index == -1);
    CHECK(none.allowed.empty());
    CHECK(none.params.empty());
}

TEST_CASE("a literal segment beats a parameter, in either registration order", "[server][router]") {
    router routes = api_routes();
    auto match = routes.match(http_method::get, "/2025-10-13/customers/external-accounts");
    REQUIRE(match.route);
    CHECK(match.route->pattern == "/2025-10-13/customers/external-accounts");
    CHECK(match.params.empty());

    router reversed;
    reversed.add(spec(http_method::get, "/v/customers/external-accounts"));
    reversed.add(spec(http_method::get, "/v/customers/{customerId}"));
    CHECK(reached(reversed, http_method::get, "/v/customers/external-accounts") ==
          "/v/customers/external-accounts");
    CHECK(reached(reversed, http_method::get, "/v/customers/other") == "/v/customers/{customerId}");
}

TEST_CASE("an earlier literal segment outranks any later ones", "[server][router]") {
    router routes;
    routes.add(spec(http_method::get, "/a/{x}/c/d"));
    routes.add(spec(http_method::get, "/a/b/{y}/{z}"));
    routes.add(spec(http_method::get, "/{w}/b/c/d"));
    // All three match /a/b/c/d; the one literal at the second segment wins over two later ones.
    auto match = routes.match(http_method::get, "/a/b/c/d");
    REQUIRE(match.route);
    CHECK(match.route->pattern == "/a/b/{y}/{z}");
    CHECK(match.params == std::vector<std::string>{"c", "d"});
    CHECK(reached(routes, http_method::get, "/a/x/c/d") == "/a/{x}/c/d");
    CHECK(reached(routes, http_method::get, "/z/b/c/d") == "/{w}/b/c/d");
}

TEST_CASE("a literal route without the method does not fall through to a parameter route",
          "[server][router]") {
    // /customers/external-accounts exists for POST only here; GET on it must be 405, not a
    // customer lookup of the id "external-accounts".
    router routes;
    routes.add(spec(http_method::get, "/v/customers/{customerId}"));
    routes.add(spec(http_method::delete_, "/v/customers/{customerId}"));
    routes.add(spec(http_method::post, "/v/customers/external-accounts"));
    auto match = routes.match(http_method::get, "/v/customers/external-accounts");
    CHECK_FALSE(match.route);
    CHECK(match.allowed == std::vector<http_method>{http_method::post});
    CHECK(reached(routes, http_method::get, "/v/customers/Customer:1") ==
          "/v/customers/{customerId}");
}

TEST_CASE("405: the methods the path allows, each once", "[server][router]") {
    router routes = api_routes();
    auto match = routes.match(http_method::put, "/2025-10-13/customers/Customer:abc");
    CHECK_FALSE(match.route);
    CHECK(match.index == -1);
    auto allowed = match.allowed;
    std::sort(allowed.begin(), allowed.end());
    CHECK(allowed ==
          std::vector<http_method>{http_method::get, http_method::patch, http_method::delete_});

    match = routes.match(http_method::delete_, "/2025-10-13/customers");
    CHECK_FALSE(match.route);
    allowed = match.allowed;
    std::sort(allowed.begin(), allowed.end());
    CHECK(allowed == std::vector<http_method>{http_method::get, http_method::post});

    // The literal route's methods, not those of the parameter route it shadows.
    match = routes.match(http_method::delete_, "/2025-10-13/customers/external-accounts");
    CHECK_FALSE(match.route);
    allowed = match.allowed;
    std::sort(allowed.begin(), allowed.end());
    CHECK(allowed == std::vector<http_method>{http_method::get, http_method::post});

    match = routes.match(http_method::post, "/healthz");
    CHECK(match.allowed == std::vector<http_method>{http_method::get});
}

TEST_CASE("405 lists a method once even when several patterns match", "[server][router]") {
    router routes;
    routes.add(spec(http_method::get, "/v/{a}/x"));
    routes.add(spec(http_method::get, "/v/{b}/x/"));  // same shape, another spelling
    auto match = routes.match(http_method::post, "/v/1/x");
    CHECK_FALSE(match.route);
    CHECK(match.allowed == std::vector<http_method>{http_method::get});
}

TEST_CASE("path segments are percent-decoded", "[server][router]") {
    router routes = api_routes();
    auto match = routes.match(http_method::get, "/2025-10-13/customers/Customer%3Aabc");
    REQUIRE(match.route);
    CHECK(match.params == std::vector<std::string>{"Customer:abc"});
    // An encoded slash stays inside its segment.
    match = routes.match(http_method::get, "/2025-10-13/tokens/a%2Fb");
    REQUIRE(match.route);
    CHECK(match.params == std::vector<std::string>{"a/b"});
    match = routes.match(http_method::get, "/2025-10-13/tokens/%41%62%2b%20");
    REQUIRE(match.route);
    CHECK(match.params == std::vector<std::string>{"Ab+ "});
    // Literal segments compare after decoding.
    CHECK(reached(routes, http_method::get, "/2025-10-13/cust%6Fmers") == "/2025-10-13/customers");
    // UTF-8 decodes to its bytes.
    match = routes.match(http_method::get, "/2025-10-13/tokens/caf%C3%A9");
    REQUIRE(match.route);
    CHECK(match.params == std::vector<std::string>{"caf\xc3\xa9"});
}

TEST_CASE("malformed percent-encoding, control characters and invalid UTF-8 match nothing",
          "[server][router]") {
    router routes = api_routes();
    const char* bad[] = {
        "/2025-10-13/tokens/%", "/2025-10-13/tokens/%4", "/2025-10-13/tokens/a%4",
        "/2025-10-13/tokens/%G1", "/2025-10-13/tokens/%1G", "/2025-10-13/tokens/%%41",
        // Decoded bytes that no id can contain and that a database would choke on.
        "/2025-10-13/tokens/a%00b", "/2025-10-13/tokens/a%0Ab", "/2025-10-13/tokens/a%7Fb",
        "/2025-10-13/tokens/%FF", "/2025-10-13/tokens/%C3", "/2025-10-13/tokens/%C3%28",
        "/2025-10-13/tokens/%E2%82",
        "/2025-10-13/tokens/%ED%A0%80",     // a UTF-16 surrogate
        "/2025-10-13/tokens/%C0%AF",        // overlong "/"
        "/2025-10-13/tokens/%F4%90%80%80",  // beyond U+10FFFF
    };
    for (const char* path : bad) {
        INFO(path);
        auto match = routes.match(http_method::get, path);
        CHECK_FALSE(match.route);
        CHECK(match.allowed.empty());
        CHECK_FALSE(split_path(path));
    }
}

TEST_CASE("a trailing slash is ignored once; empty segments are not parameters",
          "[server][router]") {
    router routes = api_routes();
    CHECK(reached(routes, http_method::get, "/2025-10-13/customers/") == "/2025-10-13/customers");
    CHECK(reached(routes, http_method::get, "/healthz/") == "/healthz");
    auto match = routes.match(http_method::get, "/2025-10-13/customers/Customer:abc/");
    REQUIRE(match.route);
    CHECK(match.params == std::vector<std::string>{"Customer:abc"});
    CHECK(reached(routes, http_method::get, "/2025-10-13/customers//") == "");
    CHECK(reached(routes, http_method::get, "/2025-10-13//customers") == "");
    CHECK(reached(routes, http_method::get, "//2025-10-13/customers") == "");
    CHECK(reached(routes, http_method::get, "/2025-10-13/tokens//") == "");
}

TEST_CASE("split_path: shapes", "[server][router]") {
    using segments = std::vector<std::string>;
    CHECK(split_path("/") == segments{""});
    CHECK(split_path("/a") == segments{"a"});
    CHECK(split_path("/a/") == segments{"a"});
    CHECK(split_path("/a//b") == segments{"a", "", "b"});
    CHECK(split_path("/a/b//") == segments{"a", "b", ""});
    CHECK_FALSE(split_path(""));
    CHECK_FALSE(split_path("a/b"));
    CHECK_FALSE(split_path("*"));
    CHECK_FALSE(split_path("http://host/a"));

    router routes = api_routes();
    CHECK(reached(routes, http_method::get, "") == "");
    CHECK(reached(routes, http_method::get, "healthz") == "");
    CHECK(reached(routes, http_method::get, "*") == "");
}
