#include "uma/lnurlp.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>

#include "uma/responder.hpp"
#include "uma/verify.hpp"

using namespace corridor;
using namespace corridor::uma;

namespace {

const std::string sdk_request =
    "/.well-known/lnurlp/$jeremy?isSubjectToTravelRule=true&nonce=2734010273&signature="
    "30450220694fce49a32c81a58ddb0090ebdd4c7ff3a1e277d28570c61bf2b8274b5d8286022100fe6f0318579e"
    "12726531c8a63aea6a94f59f46b7679f970df33f7750a0d88f36&timestamp=1701461443&umaVersion=1.0&"
    "vaspDomain=api.ltng.bakkt.com";

public_key sdk_sender_key() {
    return *parse_public_key(*from_hex(
        "047d37ce263a855ff49eb2a537a77a369a861507687bfde1df40062c8774488d644455a44baeb5062b79907d2e"
        "6f9692dd5b7bd7c37a3721ba21378d3594672063"));
}

error_kind kind_of(std::string_view target, std::string_view host = "vasp.example") {
    auto parsed = parse_lnurlp_request(target, host);
    REQUIRE_FALSE(parsed.ok());
    return parsed.error().kind;
}

}  // namespace

TEST_CASE("an UMA lnurlp request parses as the SDK sends it", "[uma][lnurlp]") {
    auto parsed = parse_lnurlp_request(sdk_request, "uma.jeremykle.in");
    REQUIRE(parsed.ok());
    const auto& request = parsed.value();
    CHECK(request.is_uma());
    CHECK(request.user == "$jeremy");
    CHECK(request.receiver_address == "$jeremy@uma.jeremykle.in");
    CHECK(request.vasp_domain == "api.ltng.bakkt.com");
    CHECK(request.timestamp_s == 1701461443);
    CHECK(request.is_subject_to_travel_rule == true);
    CHECK(signable_payload(request) == "$jeremy@uma.jeremykle.in|2734010273|1701461443");
}

TEST_CASE("the receiver address keeps the host's port and folds its case", "[uma][lnurlp]") {
    auto parsed = parse_lnurlp_request("/.well-known/lnurlp/%24bob", "Vasp.Example:8080");
    REQUIRE(parsed.ok());
    CHECK(parsed->receiver_address == "$bob@vasp.example:8080");
    CHECK_FALSE(parsed->is_uma());
}

TEST_CASE("a plain LNURL request has no UMA parameters", "[uma][lnurlp]") {
    auto parsed = parse_lnurlp_request("/.well-known/lnurlp/bob?amount=3", "vasp.example");
    REQUIRE(parsed.ok());
    CHECK_FALSE(parsed->is_uma());
    CHECK(parsed->user == "bob");
}

TEST_CASE("bad lnurlp requests are refused with the SDK's codes", "[uma][lnurlp]") {
    CHECK(kind_of("/.well-known/lnurlp/bob?nonce=1&signature=ab") ==
          error_kind::missing_required_uma_parameters);
    CHECK(kind_of("/.well-known/lnurlp/bob?umaVersion=1.0") ==
          error_kind::missing_required_uma_parameters);
    // The version is checked before completeness, as in the SDKs.
    CHECK(kind_of("/.well-known/lnurlp/bob?umaVersion=2.0") == error_kind::unsupported_uma_version);
    CHECK(kind_of("/.well-known/lnurlp/bob?umaVersion=one") == error_kind::invalid_input);
    CHECK(kind_of("/.well-known/lnurlp/bo%20b") == error_kind::parse_lnurlp_request_error);
    CHECK(kind_of("/.well-known/lnurlp/") == error_kind::parse_lnurlp_request_error);
    CHECK(kind_of("/.well-known/lnurlp/a/b") == error_kind::parse_lnurlp_request_error);
    CHECK(kind_of("/.well-known/lnurlpx/bob") == error_kind::parse_lnurlp_request_error);
    CHECK(kind_of("/.well-known/lnurlp/bob", "") == error_kind::parse_lnurlp_request_error);
    CHECK(kind_of("/.well-known/lnurlp/bob?signature=ab&vaspDomain=x&nonce=1&timestamp=soon&"
                  "umaVersion=1.0") == error_kind::invalid_timestamp);
    CHECK(kind_of("/.well-known/lnurlp/bob?signature=ab&vaspDomain=x&nonce=1&timestamp=1&"
                  "umaVersion=1.0&backingSignatures=nocolon") == error_kind::invalid_signature);
}

TEST_CASE("a request we build parses back and verifies", "[uma][lnurlp]") {
    seeded_random random(9);
    auto key = generate_private_key(random);
    lnurlp_request request;
    request.receiver_address = "$bob@127.0.0.1:8080";
    request.vasp_domain = "sender.example:9090";
    request.nonce = "77";
    request.timestamp_s = 1700000000;
    request.uma_version = "1.0";
    request.is_subject_to_travel_rule = true;
    request.signature = sign_payload(signable_payload(request), key);
    std::string url = lnurlp_request_url(request);
    REQUIRE(url.rfind("http://127.0.0.1:8080/.well-known/lnurlp/$bob?signature=", 0) == 0);
    auto parsed = parse_lnurlp_request(url.substr(url.find("/.well-known")), "127.0.0.1:8080");
    REQUIRE(parsed.ok());
    CHECK(parsed->vasp_domain == "sender.example:9090");
    manual_clock time(1700000000LL * 1000);
    memory_nonce_store nonces(time, default_nonce_window_s);
    CHECK_FALSE(verify_lnurlp_request(parsed.value(), public_key_of(key), nonces).has_value());
}

TEST_CASE("https unless the domain is local", "[uma][lnurlp]") {
    CHECK(is_local_domain("localhost"));
    CHECK(is_local_domain("127.0.0.1:8080"));
    CHECK(is_local_domain("vasp.local"));
    CHECK(is_local_domain("vasp.internal:1"));
    CHECK_FALSE(is_local_domain("vasp.example"));
    CHECK_FALSE(is_local_domain("127.0.0.2"));
    CHECK_FALSE(is_local_domain("[::1]:80"));
}

TEST_CASE("replays and stale requests are refused before the signature counts", "[uma][replay]") {
    auto parsed = parse_lnurlp_request(sdk_request, "uma.jeremykle.in");
    REQUIRE(parsed.ok());
    manual_clock time(1701461443LL * 1000 + 5000);
    memory_nonce_store nonces(time, default_nonce_window_s);
    CHECK_FALSE(verify_lnurlp_request(parsed.value(), sdk_sender_key(), nonces).has_value());
    auto again = verify_lnurlp_request(parsed.value(), sdk_sender_key(), nonces);
    REQUIRE(again.has_value());
    CHECK(again->kind == error_kind::invalid_nonce);

    SECTION("outside the window") {
        manual_clock later(1701461443LL * 1000 + (default_nonce_window_s + 1) * 1000);
        memory_nonce_store fresh(later, default_nonce_window_s);
        auto stale = verify_lnurlp_request(parsed.value(), sdk_sender_key(), fresh);
        REQUIRE(stale.has_value());
        CHECK(stale->kind == error_kind::invalid_nonce);
    }
    SECTION("the same nonce from another sender is its own") {
        auto other = parsed.value();
        other.vasp_domain = "another.example";
        auto outcome = verify_lnurlp_request(other, sdk_sender_key(), nonces);
        // Not a replay: the signature is checked (and holds, vaspDomain is not signed).
        CHECK_FALSE(outcome.has_value());
    }
    SECTION("a wrong key is an invalid signature") {
        seeded_random random(1);
        auto request = parsed.value();
        request.nonce = "1";
        auto outcome =
            verify_lnurlp_request(request, public_key_of(generate_private_key(random)), nonces);
        REQUIRE(outcome.has_value());
        CHECK(outcome->kind == error_kind::invalid_signature);
        CHECK(http_status_of(outcome->kind) == 401);
    }
}

TEST_CASE("the lnurlp response is signed, negotiated and round trips", "[uma][lnurlp]") {
    seeded_random random(4);
    manual_clock time(1700000000LL * 1000);
    auto key = generate_private_key(random);
    receiver_terms terms;
    terms.receiver_identifier = "$bob@vasp.example";
    terms.callback = "https://corridor.example/uma/payreq/x";
    terms.max_sendable_msats = 5000000;
    terms.description = "Pay Bob";
    terms.currencies.push_back({"USD", "US Dollar", "$", 34150.5, 1, 1000000, 2});
    terms.payer_data.push_back({"name", true});
    terms.kyc_status = "VERIFIED";

    auto request = parse_lnurlp_request(sdk_request, "vasp.example").value();
    request.uma_version = "0.3";
    auto built = build_lnurlp_response(request, terms, key, time, random);
    REQUIRE(built.ok());
    auto json = to_json(built.value());
    CHECK(json.at("umaVersion") == "0.3");
    // v0 currencies carry min/maxSendable inline.
    CHECK(json.at("currencies").as_array()[0].as_object().contains("minSendable"));
    CHECK(
        boost::json::serialize(json.at("payerData")) ==
        R"({"identifier":{"mandatory":true},"compliance":{"mandatory":true},"name":{"mandatory":true}})");
    CHECK(json.at("metadata") ==
          R"([["text/plain","Pay Bob"],["text/identifier","bob@vasp.example"]])");

    auto parsed = parse_lnurlp_response(boost::json::serialize(json));
    REQUIRE(parsed.ok());
    CHECK(parsed->is_uma());
    CHECK(parsed->currencies == built->currencies);
    CHECK(parsed->compliance->receiver_identifier == "$bob@vasp.example");
    memory_nonce_store nonces(time, default_nonce_window_s);
    CHECK_FALSE(verify_lnurlp_response(parsed.value(), public_key_of(key), "vasp.example", nonces));

    SECTION("v1 currencies use convertible") {
        request.uma_version = "1.0";
        auto v1 = to_json(build_lnurlp_response(request, terms, key, time, random).value());
        CHECK(boost::json::serialize(v1.at("currencies")) ==
              R"([{"code":"USD","name":"US Dollar","symbol":"$","multiplier":3.41505E4,)"
              R"("convertible":{"min":1,"max":1000000},"decimals":2}])");
    }
    SECTION("a plain request gets an unsigned LNURL response") {
        auto plain = parse_lnurlp_request("/.well-known/lnurlp/bob", "vasp.example").value();
        auto response = to_json(build_lnurlp_response(plain, terms, key, time, random).value());
        CHECK_FALSE(response.contains("compliance"));
        CHECK_FALSE(response.contains("umaVersion"));
        CHECK(response.at("tag") == "payRequest");
    }
    SECTION("a tampered response fails verification") {
        auto tampered = parsed.value();
        tampered.compliance->receiver_identifier = "$eve@vasp.example";
        auto outcome = verify_lnurlp_response(tampered, public_key_of(key), "x", nonces);
        REQUIRE(outcome.has_value());
        CHECK(outcome->kind == error_kind::invalid_signature);
    }
}

TEST_CASE("bad lnurlp responses name the problem", "[uma][lnurlp]") {
    auto good = boost::json::parse(
                    R"({"tag":"payRequest","callback":"https://x/cb","minSendable":1000,)"
                    R"("maxSendable":2000,"metadata":"[]","compliance":{"kycStatus":"VERIFIED",)"
                    R"("signature":"ab","signatureNonce":"1","signatureTimestamp":1,)"
                    R"("isSubjectToTravelRule":false,"receiverIdentifier":"$b@x"}})")
                    .as_object();
    REQUIRE(parse_lnurlp_response(boost::json::serialize(good)).ok());
    auto refuse = [&](auto change, std::string_view mention) {
        auto copy = good;
        change(copy);
        auto outcome = parse_lnurlp_response(boost::json::serialize(copy));
        REQUIRE_FALSE(outcome.ok());
        CHECK(outcome.error().kind == error_kind::parse_lnurlp_response_error);
        CHECK(outcome.error().reason.find(mention) != std::string::npos);
    };
    refuse([](auto& o) { o.erase("tag"); }, "tag");
    refuse([](auto& o) { o["tag"] = "withdrawRequest"; }, "tag");
    refuse([](auto& o) { o["minSendable"] = "1000"; }, "minSendable");
    refuse([](auto& o) { o["maxSendable"] = 1.5; }, "maxSendable");
    refuse([](auto& o) { o["compliance"].as_object()["kycStatus"] = "MAYBE"; }, "kycStatus");
    refuse([](auto& o) { o["compliance"].as_object().erase("signatureNonce"); }, "signatureNonce");
    refuse([](auto& o) { o["currencies"] = boost::json::array{1}; }, "currencies");
    refuse([](auto& o) { o["payerData"] = boost::json::object{{"name", true}}; }, "payerData.name");
    CHECK_FALSE(parse_lnurlp_response("not json").ok());
    CHECK_FALSE(parse_lnurlp_response("[1]").ok());
}
