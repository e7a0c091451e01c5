// The dashboard's building blocks without a server: TOTP against RFC 6238's test vectors, the
// password policy and Argon2id hashes, form decoding, the sign-in throttle, and the store of users,
// setup links and sessions (also run on PostgreSQL: [store]).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "ledger/platforms/dashboard_store.hpp"
#include "ledger/platforms/token_store.hpp"
#include "server/process/config.hpp"
#include "server/dashboard/form.hpp"
#include "server/dashboard/passwords.hpp"
#include "server/dashboard/throttle.hpp"
#include "server/dashboard/totp.hpp"
#include "server/process/access_log.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;

TEST_CASE("TOTP codes match the RFC 6238 SHA-1 test vectors", "[dashboard][totp]") {
    const std::string key = "12345678901234567890";  // RFC 6238 appendix B, SHA-1 seed
    struct vector {
        std::int64_t unix_seconds;
        const char* code;
    };
    for (auto [seconds, code] : {vector{59, "94287082"}, vector{1111111109, "07081804"},
                                 vector{1111111111, "14050471"}, vector{1234567890, "89005924"},
                                 vector{2000000000, "69279037"}, vector{20000000000, "65353130"}}) {
        CAPTURE(seconds);
        CHECK(totp_code(key, seconds / totp_step_seconds, 8) == code);
        // Six digits are the last six of the same value.
        CHECK(totp_code(key, seconds / totp_step_seconds) == std::string(code).substr(2));
    }
}

TEST_CASE("a TOTP code is accepted one step either side of now and no further",
          "[dashboard][totp]") {
    const std::string key = "12345678901234567890";
    const std::int64_t now_ms = 1234567890000;
    const std::int64_t step = 1234567890 / 30;
    CHECK(totp_matching_step(key, totp_code(key, step), now_ms) == step);
    CHECK(totp_matching_step(key, totp_code(key, step - 1), now_ms) == step - 1);
    CHECK(totp_matching_step(key, totp_code(key, step + 1), now_ms) == step + 1);
    CHECK_FALSE(totp_matching_step(key, totp_code(key, step - 2), now_ms));
    CHECK_FALSE(totp_matching_step(key, totp_code(key, step + 2), now_ms));
    CHECK_FALSE(totp_matching_step(key, "12345", now_ms));
    CHECK_FALSE(totp_matching_step(key, "", now_ms));
}

TEST_CASE("base32 round-trips and refuses letters outside its alphabet", "[dashboard][totp]") {
    CHECK(base32_encode("12345678901234567890") == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
    CHECK(base32_decode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ") == "12345678901234567890");
    CHECK(base32_decode("gezdgnbvgy3tqojq") == "1234567890");
    CHECK_FALSE(base32_decode("GEZ1"));  // 1 is not base32
    seeded_random random(7);
    auto secret = new_totp_secret(random);
    CHECK(secret.size() == 32);
    CHECK(base32_decode(secret)->size() == 20);
}

TEST_CASE("passwords: minimum length, common ones refused, Argon2id hashes verify",
          "[dashboard][passwords]") {
    CHECK(password_problem("short1!") != "");
    CHECK(password_problem("password") != "");
    CHECK(password_problem("Password2024!") != "");  // a common word with a suffix
    CHECK(password_problem("qwertyuiop") != "");
    CHECK(password_problem("aaaaaaaaaaaa") != "");
    CHECK(password_problem(std::string(300, 'x') + "y") != "");
    CHECK(password_problem("correct horse battery staple") == "");
    CHECK(is_common_password("DRAGON"));
    CHECK_FALSE(is_common_password("violet-anchor-tuesday"));

    seeded_random random(1);
    std::string hash = hash_password(random, "violet-anchor-tuesday");
    CHECK(hash.rfind("$argon2id$v=19$", 0) == 0);
    CHECK(hash.find("violet") == std::string::npos);
    CHECK(verify_password("violet-anchor-tuesday", hash));
    CHECK_FALSE(verify_password("violet-anchor-tuesdaY", hash));
    CHECK_FALSE(verify_password("violet-anchor-tuesday", "not a hash"));
    // A fresh salt each time: the same password hashes differently.
    CHECK(hash_password(random, "violet-anchor-tuesday") != hash);
}

TEST_CASE("form bodies decode, and malformed ones are refused", "[dashboard][form]") {
    auto form = parse_form("name=My+token&csrf=ab%2Fc&&empty=&flag");
    REQUIRE(form);
    CHECK(form->at("name") == "My token");
    CHECK(form->at("csrf") == "ab/c");
    CHECK(form->at("empty") == "");
    CHECK(form->at("flag") == "");
    CHECK_FALSE(parse_form("a=%G1"));
    CHECK_FALSE(parse_form("a=%4"));
    CHECK_FALSE(parse_form("a=1&a=2"));  // a repeated name is ambiguous
    CHECK(parse_form("")->empty());
}

TEST_CASE("sign-in failures beyond the free ones make the caller wait, doubling",
          "[dashboard][throttle]") {
    sign_in_throttle throttle(
        {.free_failures = 2, .first_wait_ms = 1000, .wait_max_ms = 4000, .forget_after_ms = 60000});
    std::int64_t now = 1000000;
    throttle.record_failure("a", now);
    throttle.record_failure("a", now);
    CHECK(throttle.wait_ms("a", now) == 0);
    throttle.record_failure("a", now);
    CHECK(throttle.wait_ms("a", now) == 1000);
    throttle.record_failure("a", now);
    CHECK(throttle.wait_ms("a", now) == 2000);
    throttle.record_failure("a", now);
    throttle.record_failure("a", now);
    CHECK(throttle.wait_ms("a", now) == 4000);  // capped
    CHECK(throttle.wait_ms("a", now + 4000) == 0);
    CHECK(throttle.wait_ms("b", now) == 0);  // keys are separate
    throttle.record_success("a");
    CHECK(throttle.wait_ms("a", now) == 0);
    // A quiet spell longer than forget_after_ms starts the count again.
    for (int i = 0; i < 3; ++i) throttle.record_failure("c", now);
    CHECK(throttle.wait_ms("c", now) > 0);
    throttle.record_failure("c", now + 120000);
    CHECK(throttle.wait_ms("c", now + 120000) == 0);
}

TEST_CASE("dashboard users, setup links and sessions in the store", "[store][dashboard]") {
    testing::store_fixture fixture;
    auto& session = fixture.session();
    std::string platform = fixture.make_platform("acme.example.test");
    std::string other = fixture.make_platform("other.example.test", "Other");
    dashboard_user_error error{};
    auto user = create_dashboard_user(session, fixture.ids, fixture.clock,
                                      {platform, "ana@acme.test", "admin", ""}, error);
    REQUIRE(user);
    CHECK_FALSE(create_dashboard_user(session, fixture.ids, fixture.clock,
                                      {other, "ana@acme.test", "viewer", ""}, error));
    CHECK(error == dashboard_user_error::email_taken);
    CHECK_FALSE(create_dashboard_user(session, fixture.ids, fixture.clock,
                                      {"Platform:missing", "bo@acme.test", "viewer", ""}, error));
    CHECK(error == dashboard_user_error::platform_not_found);
    CHECK(find_dashboard_user(session, user->id, platform));
    CHECK_FALSE(find_dashboard_user(session, user->id, other));  // another platform's id
    CHECK(list_dashboard_users(session, platform).size() == 1);
    CHECK(list_dashboard_users(session, other).empty());

    SECTION("a setup link is single use and expires") {
        create_setup_link(session, fixture.clock, user->id, hash_secret("t1"), 60000);
        create_setup_link(session, fixture.clock, user->id, hash_secret("t2"), 60000);
        CHECK(find_setup_link_user(session, fixture.clock, hash_secret("t1")) == user->id);
        CHECK(use_setup_link(session, fixture.clock, hash_secret("t1")));
        CHECK_FALSE(use_setup_link(session, fixture.clock, hash_secret("t1")));
        CHECK_FALSE(find_setup_link_user(session, fixture.clock, hash_secret("t1")));
        fixture.clock.advance_ms(60001);
        CHECK_FALSE(find_setup_link_user(session, fixture.clock, hash_secret("t2")));
        CHECK_FALSE(use_setup_link(session, fixture.clock, hash_secret("t2")));
    }

    SECTION("sessions end when idle, at their absolute limit, on sign-out and on disabling") {
        auto start = [&](const std::string& id) {
            dashboard_session_row row{hash_secret(id),
                                      user->id,
                                      platform,
                                      "sandbox",
                                      "csrf",
                                      false,
                                      fixture.clock.now_ms(),
                                      fixture.clock.now_ms()};
            create_dashboard_session(session, row);
        };
        constexpr std::int64_t idle_ms = 1000, absolute_ms = 5000;
        start("s1");
        fixture.clock.advance_ms(900);
        CHECK(find_dashboard_session(session, fixture.clock, hash_secret("s1"), idle_ms,
                                     absolute_ms));
        fixture.clock.advance_ms(900);  // touched 900 ms ago: still live
        CHECK(find_dashboard_session(session, fixture.clock, hash_secret("s1"), idle_ms,
                                     absolute_ms));
        fixture.clock.advance_ms(1001);
        CHECK_FALSE(find_dashboard_session(session, fixture.clock, hash_secret("s1"), idle_ms,
                                           absolute_ms));

        start("s2");
        for (int i = 0; i < 6; ++i) {
            fixture.clock.advance_ms(900);
            bool live = find_dashboard_session(session, fixture.clock, hash_secret("s2"), idle_ms,
                                               absolute_ms)
                            .has_value();
            CHECK(live == (i < 5));  // kept busy, it still ends 5 s after it began
        }

        start("s3");
        end_dashboard_session(session, fixture.clock, hash_secret("s3"));
        CHECK_FALSE(find_dashboard_session(session, fixture.clock, hash_secret("s3"), idle_ms,
                                           absolute_ms));

        // Sign-in prunes what can no longer be used: ended sessions and those past the limit.
        auto count = [&] {
            int rows = 0;
            session << "SELECT COUNT(*) FROM dashboard_sessions WHERE user_id = :u",
                soci::use(user->id), soci::into(rows);
            return rows;
        };
        start("s5");
        CHECK(count() == 4);
        prune_dashboard_sessions(session, user->id, fixture.clock.now_ms() - absolute_ms);
        CHECK(count() == 1);  // s3 ended, s1 and s2 began more than 5 s ago; s5 stays
        CHECK(find_dashboard_session(session, fixture.clock, hash_secret("s5"), idle_ms,
                                     absolute_ms));

        start("s4");
        CHECK_FALSE(disable_dashboard_user(session, fixture.clock, user->id, other));
        CHECK(find_dashboard_session(session, fixture.clock, hash_secret("s4"), idle_ms,
                                     absolute_ms));
        CHECK(disable_dashboard_user(session, fixture.clock, user->id, platform));
        CHECK(find_dashboard_user(session, user->id, platform)->disabled);
        CHECK_FALSE(find_dashboard_session(session, fixture.clock, hash_secret("s4"), idle_ms,
                                           absolute_ms));
    }

    SECTION("a TOTP step is accepted once and never an earlier one") {
        CHECK(claim_totp_step(session, user->id, 100));
        CHECK_FALSE(claim_totp_step(session, user->id, 100));
        CHECK_FALSE(claim_totp_step(session, user->id, 99));
        CHECK(claim_totp_step(session, user->id, 101));
    }

    SECTION("the audit log lists a platform's entries newest first") {
        record_dashboard_audit(session, fixture.ids,
                               {"", platform, user->id, user->email, "signed in", "", "127.0.0.1",
                                fixture.clock.now_ms()});
        fixture.clock.advance_ms(10);
        record_dashboard_audit(session, fixture.ids,
                               {"", platform, user->id, user->email, "token created", "T", "::1",
                                fixture.clock.now_ms()});
        auto entries = list_dashboard_audit(session, platform, 10);
        REQUIRE(entries.size() == 2);
        CHECK(entries[0].action == "token created");
        CHECK(entries[0].remote_address == "::1");
        CHECK(entries[1].action == "signed in");
        CHECK(list_dashboard_audit(session, other, 10).empty());
    }
}

TEST_CASE("the access log leaves a setup link's token out of the path", "[dashboard][logs]") {
    std::string storage;
    CHECK(loggable_path("/dashboard/setup/setup-0a1b2c", storage) == "/dashboard/setup/***");
    CHECK(loggable_path("/dashboard/setup", storage) == "/dashboard/setup");
    CHECK(loggable_path("/dashboard/tokens", storage) == "/dashboard/tokens");
}

TEST_CASE("the dashboard's configuration keys are read and checked", "[dashboard][config]") {
    namespace fs = std::filesystem;
    fs::path dir =
        fs::temp_directory_path() / ("corridor-dashboard-config-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    auto load = [&](const std::string& text) {
        std::ofstream(dir / "corridor.json") << text;
        return service_config::load_file((dir / "corridor.json").string());
    };
    auto defaults = load("{}");
    CHECK(defaults.dashboard.session_idle_ms == 30 * 60000);
    CHECK(defaults.dashboard.session_absolute_ms == 12 * 3600000);
    CHECK(defaults.dashboard.setup_link_ttl_ms == 72 * 3600000);
    auto set = load(R"({"dashboard": {"session_idle_ms": 60000, "session_absolute_ms": 120000,
                        "setup_link_ttl_ms": 3600000}})");
    CHECK(set.dashboard.session_idle_ms == 60000);
    CHECK(set.dashboard.session_absolute_ms == 120000);
    CHECK(set.dashboard.setup_link_ttl_ms == 3600000);
    std::string message;
    try {
        load(R"({"dashboard": {"session_idle_ms": 0}})");
    } catch (const config_error& error) {
        message = error.what();
    }
    CHECK(message.find("dashboard.session_idle_ms") != std::string::npos);
    fs::remove_all(dir);
}
