// API tokens: what creation returns and stores (never the secret itself), lookups scoped to the
// caller's tenant, list filters and paging, and deletion that takes effect for authentication.
#include "ledger/platforms/token_store.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "ledger/store/ids.hpp"
#include "server/api/auth.hpp"
#include "tests/support/store_fixture.hpp"
#include "tests/support/text_checks.hpp"

using namespace corridor;
using corridor::testing::store_fixture;

namespace {

bool is_lower_hex(const std::string& text) {
    for (char c : text) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
}

std::vector<std::string> ids_of(const page<api_token>& found) {
    std::vector<std::string> ids;
    for (const auto& token : found.items) ids.push_back(token.id);
    return ids;
}

}  // namespace

TEST_CASE("hash_secret is hex SHA-256", "[ledger][tokens]") {
    CHECK(hash_secret("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(hash_secret("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("create_token returns the secret once and stores only its hash", "[store][tokens]") {
    store_fixture fixture;
    const std::string platform = fixture.make_platform("acme.example");
    const tenant sandbox{platform, environment::sandbox};
    const tenant production{platform, environment::production};

    auto created = create_token(fixture.session(), fixture.ids, fixture.random, fixture.clock,
                                sandbox, "ci", permission_view | permission_manage);
    const api_token& token = created.token;
    CHECK(is_typed_id("Token", token.id));
    CHECK(token.owner == sandbox);
    CHECK(token.name == "ci");
    CHECK(token.permissions == (permission_view | permission_manage));
    CHECK(token.created_at_ms == testing::fixture_start_ms);
    CHECK(token.updated_at_ms == testing::fixture_start_ms);
    REQUIRE(token.client_id.starts_with("sbx_"));
    CHECK(token.client_id.size() == 4 + 32);
    CHECK(is_lower_hex(token.client_id.substr(4)));
    // 32 random bytes in unpadded base64url are 43 characters.
    REQUIRE(created.client_secret.starts_with("cs_"));
    CHECK(created.client_secret.size() == 3 + 43);
    CHECK(testing::is_base64url(created.client_secret.substr(3)));

    auto live = create_token(fixture.session(), fixture.ids, fixture.random, fixture.clock,
                             production, "live", permissions_all);
    CHECK(live.token.client_id.starts_with("live_"));
    CHECK(live.token.client_id != token.client_id);
    CHECK(live.client_secret != created.client_secret);

    auto credentials = find_token_by_client_id(fixture.session(), token.client_id);
    REQUIRE(credentials);
    CHECK(credentials->token.id == token.id);
    CHECK(credentials->token.owner == sandbox);
    CHECK(credentials->token.permissions == token.permissions);
    CHECK(credentials->secret_hash == hash_secret(created.client_secret));
    CHECK(secret_matches(created.client_secret, credentials->secret_hash));
    CHECK_FALSE(secret_matches(live.client_secret, credentials->secret_hash));

    // No column of the table holds the secret in clear.
    int clear_copies = -1;
    fixture.session() << "SELECT COUNT(*) FROM tokens WHERE secret_hash = :s OR name = :s2 OR "
                         "client_id = :s3",
        soci::use(created.client_secret), soci::use(created.client_secret),
        soci::use(created.client_secret), soci::into(clear_copies);
    CHECK(clear_copies == 0);
}

TEST_CASE("find_token sees only the caller's tenant", "[store][tokens]") {
    store_fixture fixture;
    const std::string acme = fixture.make_platform("acme.example");
    const std::string other = fixture.make_platform("other.example");
    auto created = create_token(fixture.session(), fixture.ids, fixture.random, fixture.clock,
                                {acme, environment::sandbox}, "ci", permission_view);
    const std::string& id = created.token.id;

    auto found = find_token(fixture.session(), {acme, environment::sandbox}, id);
    REQUIRE(found);
    CHECK(found->id == id);
    CHECK(found->client_id == created.token.client_id);
    CHECK(found->name == "ci");
    CHECK_FALSE(find_token(fixture.session(), {acme, environment::production}, id));
    CHECK_FALSE(find_token(fixture.session(), {other, environment::sandbox}, id));
    CHECK_FALSE(find_token(fixture.session(), {acme, environment::sandbox}, id + "x"));
    CHECK_FALSE(find_token(fixture.session(), {acme, environment::sandbox}, ""));
    // Another tenant can neither list nor delete it.
    CHECK(list_tokens(fixture.session(), {other, environment::sandbox}, {}, {}).total_count == 0);
    CHECK(list_tokens(fixture.session(), {acme, environment::production}, {}, {}).total_count == 0);
    CHECK_FALSE(delete_token(fixture.session(), fixture.clock, {other, environment::sandbox}, id));
    CHECK_FALSE(
        delete_token(fixture.session(), fixture.clock, {acme, environment::production}, id));
    CHECK(find_token(fixture.session(), {acme, environment::sandbox}, id));
    CHECK(find_token_by_client_id(fixture.session(), created.token.client_id));
}

TEST_CASE("delete_token: once, and the token stops authenticating", "[store][tokens]") {
    store_fixture fixture;
    const tenant owner{fixture.make_platform("acme.example"), environment::sandbox};
    auto doomed = create_token(fixture.session(), fixture.ids, fixture.random, fixture.clock, owner,
                               "doomed", permission_view);
    auto kept = create_token(fixture.session(), fixture.ids, fixture.random, fixture.clock, owner,
                             "kept", permission_view);

    fixture.clock.advance_ms(1000);
    CHECK(delete_token(fixture.session(), fixture.clock, owner, doomed.token.id));
    CHECK_FALSE(delete_token(fixture.session(), fixture.clock, owner, doomed.token.id));
    CHECK_FALSE(delete_token(fixture.session(), fixture.clock, owner, "Token:nope"));

    CHECK_FALSE(find_token(fixture.session(), owner, doomed.token.id));
    CHECK_FALSE(find_token_by_client_id(fixture.session(), doomed.token.client_id));
    CHECK(find_token_by_client_id(fixture.session(), kept.token.client_id));
    auto listed = list_tokens(fixture.session(), owner, {}, {});
    CHECK(listed.total_count == 1);
    CHECK(ids_of(listed) == std::vector<std::string>{kept.token.id});
    // The row stays, marked deleted at the time of deletion.
    long long updated_ms = 0;
    int deleted = 0;
    fixture.session() << "SELECT is_deleted, updated_at_ms FROM tokens WHERE id = :i",
        soci::use(doomed.token.id), soci::into(deleted), soci::into(updated_ms);
    CHECK(deleted == 1);
    CHECK(updated_ms == testing::fixture_start_ms + 1000);
}

TEST_CASE("find_token_by_client_id of an unknown client", "[store][tokens]") {
    store_fixture fixture;
    fixture.make_platform("acme.example");
    CHECK_FALSE(find_token_by_client_id(fixture.session(), "sbx_0123456789abcdef0123456789abcdef"));
    CHECK_FALSE(find_token_by_client_id(fixture.session(), ""));
}

TEST_CASE("list_tokens filters by name and by inclusive time bounds", "[store][tokens]") {
    store_fixture fixture;
    const tenant owner{fixture.make_platform("acme.example"), environment::sandbox};
    std::vector<created_token> made;
    // Tokens at t0, t0+10, t0+20, t0+30, t0+40; names alternate.
    for (int i = 0; i < 5; ++i) {
        made.push_back(create_token(fixture.session(), fixture.ids, fixture.random, fixture.clock,
                                    owner, i % 2 ? "odd" : "even", permission_view));
        fixture.clock.advance_ms(10);
    }
    const std::int64_t t0 = testing::fixture_start_ms;

    token_filter by_name;
    by_name.name = "odd";
    auto odd = list_tokens(fixture.session(), owner, by_name, {});
    CHECK(odd.total_count == 2);
    CHECK(ids_of(odd) == std::vector<std::string>{made[3].token.id, made[1].token.id});
    by_name.name = "od";
    CHECK(list_tokens(fixture.session(), owner, by_name, {}).total_count == 0);

    token_filter window;
    window.created_after_ms = t0 + 10;
    window.created_before_ms = t0 + 30;
    auto inside = list_tokens(fixture.session(), owner, window, {});
    CHECK(inside.total_count == 3);
    CHECK(ids_of(inside) ==
          std::vector<std::string>{made[3].token.id, made[2].token.id, made[1].token.id});

    token_filter updated;
    updated.updated_after_ms = t0 + 31;
    CHECK(ids_of(list_tokens(fixture.session(), owner, updated, {})) ==
          std::vector<std::string>{made[4].token.id});
    updated = {};
    updated.updated_before_ms = t0 - 1;
    CHECK(list_tokens(fixture.session(), owner, updated, {}).total_count == 0);

    token_filter combined;
    combined.name = "even";
    combined.created_after_ms = t0 + 1;
    auto both = list_tokens(fixture.session(), owner, combined, {});
    CHECK(ids_of(both) == std::vector<std::string>{made[4].token.id, made[2].token.id});
}

TEST_CASE("list_tokens pages by keyset in both orders", "[store][tokens]") {
    store_fixture fixture;
    const tenant owner{fixture.make_platform("acme.example"), environment::production};
    std::vector<std::string> made;
    for (int i = 0; i < 23; ++i) {
        made.push_back(create_token(fixture.session(), fixture.ids, fixture.random, fixture.clock,
                                    owner, "t", permission_view)
                           .token.id);
        if (i % 4 == 0) fixture.clock.advance_ms(1);
    }
    for (bool descending : {true, false}) {
        INFO("descending " << descending);
        std::vector<std::string> seen;
        page_request request{5, std::nullopt, descending};
        for (int pages = 0; pages < 10; ++pages) {
            auto found = list_tokens(fixture.session(), owner, {}, request);
            CHECK(found.total_count == 23);
            for (const auto& id : ids_of(found)) seen.push_back(id);
            if (!found.has_more) {
                CHECK(found.next_cursor.empty());
                break;
            }
            REQUIRE(found.items.size() == 5);
            auto after = decode_cursor(found.next_cursor);
            REQUIRE(after);
            CHECK(*after == found.items.back().id);
            request.after_id = after;
        }
        std::vector<std::string> expected = made;
        if (descending) std::reverse(expected.begin(), expected.end());
        CHECK(seen == expected);
    }
}
