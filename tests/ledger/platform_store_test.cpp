// Platforms and their two environment configurations, against a fresh database per test (SQLite,
// or PostgreSQL in the unit_store_postgres run). Checks what creation writes, that a UMA domain
// belongs to one platform only, and the patch semantics of configuration updates.
#include "ledger/platforms/platform_store.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "ledger/store/ids.hpp"
#include "ledger/base/uma_address.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;
using corridor::testing::store_fixture;

namespace {

int count_rows_of(soci::session& session, const std::string& table) {
    int count = -1;
    session << "SELECT COUNT(*) FROM " + table, soci::into(count);
    return count;
}

new_platform platform_request(const std::string& domain) {
    new_platform request;
    request.name = "Acme Pay";
    request.uma_domain = domain;
    request.is_regulated = true;
    request.supported_currencies = {
        {"USD", 100, 5000000, {"OUTGOING", "INCOMING"}, {{"FULL_NAME", true}, {"EMAIL", false}}},
        {"MXN", 0, 9223372036854775807, {"INCOMING"}, {}},
    };
    return request;
}

bool is_base32_lower(const std::string& text) {
    for (char c : text) {
        if (!((c >= 'a' && c <= 'z') || (c >= '2' && c <= '7'))) return false;
    }
    return true;
}

}  // namespace

TEST_CASE("create_platform writes a sandbox and a production configuration", "[store][platform]") {
    store_fixture fixture;
    auto request = platform_request("pay.acme.example");
    auto created = create_platform(fixture.session(), fixture.platforms(), request);
    REQUIRE(created);
    const std::string platform_id = created.value();
    CHECK(is_typed_id("PlatformConfig", platform_id));
    CHECK(platform_exists(fixture.session(), platform_id));
    CHECK_FALSE(
        platform_exists(fixture.session(), "PlatformConfig:0199dcb0-d3bb-7000-8000-000000000000"));

    auto sandbox = load_platform_config(fixture.session(), {platform_id, environment::sandbox});
    auto production =
        load_platform_config(fixture.session(), {platform_id, environment::production});
    REQUIRE(sandbox);
    REQUIRE(production);
    // The operator sees the platform id at creation; production credentials read it back.
    CHECK(production->id == platform_id);
    CHECK(is_typed_id("PlatformConfig", sandbox->id));
    CHECK(sandbox->id != production->id);
    CHECK(sandbox->owner == tenant{platform_id, environment::sandbox});
    CHECK(production->owner == tenant{platform_id, environment::production});
    for (const auto* config : {&*sandbox, &*production}) {
        CHECK(config->uma_domain == "pay.acme.example");
        CHECK(config->is_regulated);
        CHECK_FALSE(config->webhook_endpoint.has_value());
        CHECK(config->supported_currencies == request.supported_currencies);
        CHECK(config->created_at_ms == testing::fixture_start_ms);
        CHECK(config->updated_at_ms == testing::fixture_start_ms);
        CHECK(config->proxy_uma_subdomain.size() == 16);
        CHECK(is_base32_lower(config->proxy_uma_subdomain));
    }
    CHECK(sandbox->proxy_uma_subdomain != production->proxy_uma_subdomain);
    CHECK(count_rows_of(fixture.session(), "platforms") == 1);
    CHECK(count_rows_of(fixture.session(), "platform_configs") == 2);

    new_platform unregulated = platform_request("other.example");
    unregulated.is_regulated = false;
    unregulated.supported_currencies.clear();
    auto second = create_platform(fixture.session(), fixture.platforms(), unregulated);
    REQUIRE(second);
    auto second_config =
        load_platform_config(fixture.session(), {second.value(), environment::sandbox});
    REQUIRE(second_config);
    CHECK_FALSE(second_config->is_regulated);
    CHECK(second_config->supported_currencies.empty());
}

TEST_CASE("an unknown platform has no configuration", "[store][platform]") {
    store_fixture fixture;
    CHECK_FALSE(load_platform_config(
        fixture.session(),
        {"PlatformConfig:0199dcb0-d3bb-7000-8000-000000000000", environment::sandbox}));
    CHECK_FALSE(platform_exists(fixture.session(), ""));
}

TEST_CASE("a UMA domain belongs to one platform", "[store][platform]") {
    store_fixture fixture;
    auto first =
        create_platform(fixture.session(), fixture.platforms(), platform_request("a.example"));
    REQUIRE(first);

    SECTION("creating a second platform on the same domain fails and writes nothing") {
        auto second =
            create_platform(fixture.session(), fixture.platforms(), platform_request("a.example"));
        REQUIRE_FALSE(second);
        CHECK(second.error() == platform_error::uma_domain_taken);
        CHECK(count_rows_of(fixture.session(), "platforms") == 1);
        CHECK(count_rows_of(fixture.session(), "platform_configs") == 2);
    }

    SECTION("another platform cannot move onto a domain in use") {
        auto second =
            create_platform(fixture.session(), fixture.platforms(), platform_request("b.example"));
        REQUIRE(second);
        for (auto env : {environment::sandbox, environment::production}) {
            config_patch patch;
            patch.uma_domain = "a.example";
            auto updated = update_platform_config(fixture.session(), fixture.platforms(),
                                                  {second.value(), env}, patch);
            REQUIRE_FALSE(updated);
            CHECK(updated.error() == platform_error::uma_domain_taken);
            CHECK(load_platform_config(fixture.session(), {second.value(), env})->uma_domain ==
                  "b.example");
        }
    }

    SECTION("a domain held by another platform in either environment is taken") {
        // The first platform moves its sandbox to a new domain; the domain is now the first
        // platform's in sandbox only, and still not free for the second platform's production.
        config_patch move;
        move.uma_domain = "sandbox.a.example";
        REQUIRE(update_platform_config(fixture.session(), fixture.platforms(),
                                       {first.value(), environment::sandbox}, move));
        auto second =
            create_platform(fixture.session(), fixture.platforms(), platform_request("b.example"));
        REQUIRE(second);
        config_patch take;
        take.uma_domain = "sandbox.a.example";
        auto updated = update_platform_config(fixture.session(), fixture.platforms(),
                                              {second.value(), environment::production}, take);
        REQUIRE_FALSE(updated);
        CHECK(updated.error() == platform_error::uma_domain_taken);
        // And creation checks both environments as well.
        auto third = create_platform(fixture.session(), fixture.platforms(),
                                     platform_request("sandbox.a.example"));
        REQUIRE_FALSE(third);
        CHECK(third.error() == platform_error::uma_domain_taken);
    }

    SECTION("a platform keeps its own domain and may use one domain in both environments") {
        config_patch same;
        same.uma_domain = "a.example";
        auto updated = update_platform_config(fixture.session(), fixture.platforms(),
                                              {first.value(), environment::production}, same);
        REQUIRE(updated);
        CHECK(updated->uma_domain == "a.example");
    }

    SECTION("a domain given up is free for another platform") {
        config_patch move;
        move.uma_domain = "new.a.example";
        for (auto env : {environment::sandbox, environment::production}) {
            REQUIRE(update_platform_config(fixture.session(), fixture.platforms(), {first.value(), env},
                                           move));
        }
        auto second =
            create_platform(fixture.session(), fixture.platforms(), platform_request("a.example"));
        CHECK(second);
    }
}

TEST_CASE("update_platform_config patches only what is given", "[store][platform]") {
    store_fixture fixture;
    auto created = create_platform(fixture.session(), fixture.platforms(),
                                   platform_request("pay.acme.example"));
    REQUIRE(created);
    const tenant sandbox{created.value(), environment::sandbox};
    const tenant production{created.value(), environment::production};
    auto before = load_platform_config(fixture.session(), sandbox);
    REQUIRE(before);

    fixture.clock.advance_ms(1500);
    config_patch webhook;
    webhook.webhook_endpoint = std::optional<std::string>("https://hooks.acme.example/corridor");
    auto with_webhook = update_platform_config(fixture.session(), fixture.platforms(), sandbox, webhook);
    REQUIRE(with_webhook);
    CHECK(with_webhook->webhook_endpoint == "https://hooks.acme.example/corridor");
    CHECK(with_webhook->uma_domain == before->uma_domain);
    CHECK(with_webhook->supported_currencies == before->supported_currencies);
    CHECK(with_webhook->proxy_uma_subdomain == before->proxy_uma_subdomain);
    CHECK(with_webhook->id == before->id);
    CHECK(with_webhook->created_at_ms == before->created_at_ms);
    CHECK(with_webhook->updated_at_ms == testing::fixture_start_ms + 1500);
    // What update returns is what a later read sees.
    auto reread = load_platform_config(fixture.session(), sandbox);
    REQUIRE(reread);
    CHECK(reread->webhook_endpoint == with_webhook->webhook_endpoint);
    CHECK(reread->updated_at_ms == with_webhook->updated_at_ms);
    // The other environment is untouched.
    auto other = load_platform_config(fixture.session(), production);
    REQUIRE(other);
    CHECK_FALSE(other->webhook_endpoint.has_value());
    CHECK(other->updated_at_ms == testing::fixture_start_ms);

    SECTION("an empty patch changes nothing but the update time") {
        fixture.clock.advance_ms(10);
        auto same = update_platform_config(fixture.session(), fixture.platforms(), sandbox, {});
        REQUIRE(same);
        CHECK(same->webhook_endpoint == "https://hooks.acme.example/corridor");
        CHECK(same->uma_domain == "pay.acme.example");
        CHECK(same->supported_currencies == before->supported_currencies);
        CHECK(same->updated_at_ms == testing::fixture_start_ms + 1510);
    }

    SECTION("an engaged empty webhookEndpoint clears it") {
        config_patch clear;
        clear.webhook_endpoint = std::optional<std::string>{};
        auto cleared = update_platform_config(fixture.session(), fixture.platforms(), sandbox, clear);
        REQUIRE(cleared);
        CHECK_FALSE(cleared->webhook_endpoint.has_value());
        CHECK_FALSE(load_platform_config(fixture.session(), sandbox)->webhook_endpoint.has_value());
    }

    SECTION("a domain patch leaves the webhook alone") {
        config_patch domain;
        domain.uma_domain = "new.acme.example";
        auto moved = update_platform_config(fixture.session(), fixture.platforms(), sandbox, domain);
        REQUIRE(moved);
        CHECK(moved->uma_domain == "new.acme.example");
        CHECK(moved->webhook_endpoint == "https://hooks.acme.example/corridor");
        CHECK(load_platform_config(fixture.session(), production)->uma_domain ==
              "pay.acme.example");
    }

    SECTION("supported currencies are replaced as a whole") {
        config_patch currencies;
        currencies.supported_currencies =
            std::vector<supported_currency>{{"EUR", 1, 2, {"OUTGOING"}, {{"BIRTH_DATE", true}}}};
        auto replaced =
            update_platform_config(fixture.session(), fixture.platforms(), sandbox, currencies);
        REQUIRE(replaced);
        REQUIRE(replaced->supported_currencies.size() == 1);
        CHECK(replaced->supported_currencies == *currencies.supported_currencies);
        CHECK(load_platform_config(fixture.session(), sandbox)->supported_currencies ==
              *currencies.supported_currencies);
        config_patch none;
        none.supported_currencies = std::vector<supported_currency>{};
        auto emptied = update_platform_config(fixture.session(), fixture.platforms(), sandbox, none);
        REQUIRE(emptied);
        CHECK(emptied->supported_currencies.empty());
    }

    SECTION("the update time never goes backwards when the clock does") {
        fixture.clock.set_ms(testing::fixture_start_ms - 60000);
        auto updated = update_platform_config(fixture.session(), fixture.platforms(), sandbox, {});
        REQUIRE(updated);
        CHECK(updated->updated_at_ms == testing::fixture_start_ms + 1500);
    }
}

TEST_CASE("updating an unknown tenant's configuration is not_found", "[store][platform]") {
    store_fixture fixture;
    config_patch patch;
    patch.uma_domain = "x.example";
    auto updated = update_platform_config(
        fixture.session(), fixture.platforms(),
        {"PlatformConfig:0199dcb0-d3bb-7000-8000-000000000000", environment::sandbox}, patch);
    REQUIRE_FALSE(updated);
    CHECK(updated.error() == platform_error::not_found);
    CHECK(count_rows_of(fixture.session(), "platform_configs") == 0);
}

TEST_CASE("supported currencies survive the JSON round trip", "[ledger][platform]") {
    std::vector<supported_currency> currencies = {
        {"USD", 0, 9223372036854775807, {"OUTGOING", "INCOMING"}, {{"FULL_NAME", true}}},
        {"BTC", 1, 1, {}, {{"EMAIL", false}, {"PHONE_NUMBER", true}}},
    };
    CHECK(supported_currencies_from_json(supported_currencies_to_json(currencies)) == currencies);
    CHECK(supported_currencies_from_json(supported_currencies_to_json({})).empty());
}
