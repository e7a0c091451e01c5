#include "uma/sender.hpp"

#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>
#include <functional>

#include "uma/responder.hpp"
#include "uma/verify.hpp"

using namespace corridor;
using namespace corridor::uma;

namespace {

// A receiving provider in memory: answers lookups with the uma/ responder, or as told.
struct fake_receiver final : http_transport {
    private_key key;
    std::vector<std::string> urls;
    std::function<std::optional<http_reply>(const lnurlp_request&)> override_reply;
    std::string identifier_override;
    const corridor::clock& time;
    random_source& random;

    fake_receiver(const corridor::clock& time, random_source& random)
        : key(generate_private_key(random)), time(time), random(random) {}

    result<http_reply, std::string> get(const std::string& url) override {
        urls.push_back(url);
        auto path = url.find("/.well-known");
        auto host_start = url.find("://") + 3;
        auto parsed =
            parse_lnurlp_request(url.substr(path), url.substr(host_start, path - host_start));
        if (!parsed) {
            return http_reply{http_status_of(parsed.error().kind),
                              boost::json::serialize(to_json(parsed.error()))};
        }
        if (override_reply) {
            if (auto reply = override_reply(parsed.value())) return *reply;
        }
        receiver_terms terms;
        terms.receiver_identifier =
            identifier_override.empty() ? parsed->receiver_address : identifier_override;
        terms.callback = "https://receiver.example/cb";
        terms.max_sendable_msats = 1000000;
        terms.currencies.push_back({"EUR", "Euro", "E", 30000, 1, 100000, 2});
        auto response = build_lnurlp_response(parsed.value(), terms, key, time, random);
        return http_reply{200, boost::json::serialize(to_json(response.value()))};
    }
};

struct fixed_keys final : pubkey_fetcher {
    std::optional<public_key> key;
    result<pubkey_response, uma_error> fetch(std::string_view) override {
        if (!key) return uma_error{error_kind::counterparty_pubkey_fetch_error, "down", {}};
        pubkey_response out;
        out.signing_pub_key = to_hex(*key);
        return out;
    }
};

struct sender_world {
    manual_clock time{1700000000LL * 1000};
    seeded_random random{31};
    fake_receiver receiver{time, random};
    fixed_keys keys;
    memory_nonce_store nonces{time, default_nonce_window_s};
    sender_identity me{"sender.example", generate_private_key(random), true};
    sender_services services{receiver, keys, nonces, time, random};

    sender_world() { keys.key = public_key_of(receiver.key); }
    result<receiver_lookup, uma_error> lookup(std::string_view address = "$bob@receiver.example") {
        return lookup_receiver(address, me, services);
    }
};

}  // namespace

TEST_CASE("a lookup is signed by us and its answer verified", "[uma][sender]") {
    sender_world world;
    auto found = world.lookup();
    REQUIRE(found.ok());
    CHECK(found->version.text() == "1.0");
    CHECK(found->response.compliance->receiver_identifier == "$bob@receiver.example");
    CHECK(found->response.currencies->front().code == "EUR");
    REQUIRE(world.receiver.urls.size() == 1);
    CHECK(world.receiver.urls[0].rfind("https://receiver.example/.well-known/lnurlp/$bob?", 0) ==
          0);
    // What we sent verifies with our key, as a receiver would check it.
    auto url = world.receiver.urls[0];
    auto sent = parse_lnurlp_request(url.substr(url.find("/.well-known")), "receiver.example");
    memory_nonce_store theirs(world.time, default_nonce_window_s);
    CHECK_FALSE(verify_lnurlp_request(sent.value(), public_key_of(world.me.signing), theirs));
}

TEST_CASE("a 412 falls back once to a version in common", "[uma][sender]") {
    sender_world world;
    world.receiver.override_reply = [](const lnurlp_request& request) -> std::optional<http_reply> {
        if (request.uma_version == "1.0") {
            return http_reply{412, R"({"status":"ERROR","code":"UNSUPPORTED_UMA_VERSION",)"
                                   R"("supportedMajorVersions":[0]})"};
        }
        return std::nullopt;
    };
    auto found = world.lookup();
    REQUIRE(found.ok());
    CHECK(found->version.text() == "0.3");
    CHECK(found->response.uma_version == "0.3");
    CHECK(world.receiver.urls.size() == 2);

    world.receiver.override_reply = [](const lnurlp_request&) -> std::optional<http_reply> {
        return http_reply{412, R"({"supportedMajorVersions":[2,3]})"};
    };
    auto none = world.lookup();
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().kind == error_kind::no_compatible_uma_version);

    // A provider that refuses the version it named itself is not retried again.
    world.receiver.urls.clear();
    world.receiver.override_reply = [](const lnurlp_request&) -> std::optional<http_reply> {
        return http_reply{412, R"({"supportedMajorVersions":[0]})"};
    };
    auto twice = world.lookup();
    REQUIRE_FALSE(twice.ok());
    CHECK(twice.error().kind == error_kind::unsupported_uma_version);
    CHECK(world.receiver.urls.size() == 2);
}

TEST_CASE("answers that are not genuine or not about our receiver are refused", "[uma][sender]") {
    sender_world world;
    SECTION("signed by another key") {
        world.keys.key = public_key_of(generate_private_key(world.random));
        CHECK(world.lookup().error().kind == error_kind::invalid_signature);
    }
    SECTION("about the same address in another case is fine") {
        world.receiver.identifier_override = "$Bob@Receiver.example";
        CHECK(world.lookup().ok());
    }
    SECTION("about another address") {
        world.receiver.identifier_override = "$eve@receiver.example";
        CHECK(world.lookup().error().kind == error_kind::invalid_signature);
    }
    SECTION("keys unavailable") {
        world.keys.key.reset();
        CHECK(world.lookup().error().kind == error_kind::counterparty_pubkey_fetch_error);
    }
    SECTION("not found, not UMA, not JSON") {
        world.receiver.override_reply = [](const lnurlp_request&) -> std::optional<http_reply> {
            return http_reply{404, R"({"status":"ERROR","reason":"no"})"};
        };
        CHECK(world.lookup().error().kind == error_kind::user_not_found);
        world.receiver.override_reply = [](const lnurlp_request&) -> std::optional<http_reply> {
            return http_reply{503, "busy"};
        };
        CHECK(world.lookup().error().kind == error_kind::lnurlp_request_failed);
        world.receiver.override_reply = [](const lnurlp_request&) -> std::optional<http_reply> {
            return http_reply{200, R"({"tag":"payRequest","callback":"c","minSendable":1,)"
                                   R"("maxSendable":2,"metadata":"[]"})"};
        };
        CHECK(world.lookup().error().kind == error_kind::lnurlp_request_failed);
        world.receiver.override_reply = [](const lnurlp_request&) -> std::optional<http_reply> {
            return http_reply{200, "<html>"};
        };
        CHECK(world.lookup().error().kind == error_kind::parse_lnurlp_response_error);
    }
    SECTION("a malformed address") {
        CHECK(world.lookup("bob@receiver.example").error().kind == error_kind::invalid_input);
        CHECK(world.lookup("$bob@").error().kind == error_kind::invalid_input);
        CHECK(world.lookup("$@receiver.example").error().kind == error_kind::invalid_input);
        CHECK(world.lookup("$b/ob@receiver.example").error().kind == error_kind::invalid_input);
        CHECK(world.lookup("$bob@receiver.example/x?y").error().kind == error_kind::invalid_input);
        CHECK(world.lookup("$bob@user@receiver.example").error().kind == error_kind::invalid_input);
        CHECK(world.receiver.urls.empty());
    }
}
