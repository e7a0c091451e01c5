#include "uma/sql_stores.hpp"

#include <catch2/catch.hpp>

#include "tests/support/test_database.hpp"
#include "uma/certificate.hpp"

using namespace corridor;
using namespace corridor::uma;

namespace {

void add_platform(soci::session& session, const std::string& id) {
    session
        << "INSERT INTO platforms (id, name, is_regulated, created_at_ms) VALUES (:i, 'p', 0, 0)",
        soci::use(id);
}

}  // namespace

TEST_CASE("each environment gets its own keys, once, shared by every session",
          "[store][uma][keys]") {
    testing::test_database database;
    add_platform(database.session(), "PlatformConfig:one");
    manual_clock time(1700000000LL * 1000);
    seeded_random random(17);
    sql_key_store store(database.session(), time, random);
    tenant sandbox{"PlatformConfig:one", environment::sandbox};
    tenant production{"PlatformConfig:one", environment::production};

    auto first = store.keys_for(sandbox, "vasp.example");
    CHECK(first.signing.secret != first.encryption.secret);
    CHECK(certificate_public_key(first.signing.certificate) == public_key_of(first.signing.secret));
    CHECK(certificate_public_key(first.encryption.certificate) ==
          public_key_of(first.encryption.secret));

    auto other_session = database.open_another();
    seeded_random other_random(99);
    sql_key_store other(*other_session, time, other_random);
    auto again = other.keys_for(sandbox, "vasp.example");
    CHECK(again.signing.secret == first.signing.secret);
    CHECK(again.encryption.certificate == first.encryption.certificate);

    auto live = store.keys_for(production, "vasp.example");
    CHECK(live.signing.secret != first.signing.secret);

    auto document = public_keys_of(first);
    CHECK(signing_key(document).value() == public_key_of(first.signing.secret));
    CHECK(encryption_key(document).value() == public_key_of(first.encryption.secret));
}

TEST_CASE("the database refuses a nonce twice, from any session", "[store][uma][replay]") {
    testing::test_database database;
    manual_clock time(1700000000LL * 1000);
    sql_nonce_store store(database.session(), time, 3600);
    CHECK(store.check_and_save("a.example", "1", 1700000000));
    CHECK_FALSE(store.check_and_save("a.example", "1", 1700000000));
    CHECK(store.check_and_save("b.example", "1", 1700000000));
    auto other_session = database.open_another();
    sql_nonce_store other(*other_session, time, 3600);
    CHECK_FALSE(other.check_and_save("a.example", "1", 1700000005));
    // Outside the window either way.
    CHECK_FALSE(store.check_and_save("a.example", "2", 1700000000 - 3601));
    CHECK_FALSE(store.check_and_save("a.example", "3", 1700000000 + 3601));

    time.advance_ms(7200 * 1000);
    store.purge_expired();
    int left = -1;
    database.session() << "SELECT COUNT(*) FROM uma_nonces", soci::into(left);
    CHECK(left == 0);
}

TEST_CASE("sealed private keys round trip only with their key and row", "[uma][keys]") {
    seeded_random random(23);
    auto secret = generate_private_key(random);
    auto key = *parse_sealing_key(std::string(64, 'a') + "\n");
    auto other = *parse_sealing_key(std::string(64, 'b'));
    auto sealed = seal_secret(key, secret, "p|sandbox|signing", random);
    CHECK(is_sealed(sealed));
    CHECK(sealed.find(to_hex(secret)) == std::string::npos);
    CHECK(seal_secret(key, secret, "p|sandbox|signing", random) != sealed);
    CHECK(unseal_secret(key, sealed, "p|sandbox|signing") == secret);
    CHECK_FALSE(unseal_secret(other, sealed, "p|sandbox|signing").has_value());
    CHECK_FALSE(unseal_secret(key, sealed, "p|production|signing").has_value());
    auto damaged = sealed;
    damaged.back() = damaged.back() == '0' ? '1' : '0';
    CHECK_FALSE(unseal_secret(key, damaged, "p|sandbox|signing").has_value());
    CHECK_FALSE(unseal_secret(key, to_hex(secret), "p|sandbox|signing").has_value());
    CHECK_FALSE(parse_sealing_key("abc").has_value());
    CHECK_FALSE(parse_sealing_key(std::string(62, 'a')).has_value());
    CHECK_FALSE(parse_sealing_key(std::string(64, 'g')).has_value());
}

TEST_CASE("with a sealing key the database never holds a private key in clear",
          "[store][uma][keys]") {
    testing::test_database database;
    add_platform(database.session(), "PlatformConfig:two");
    manual_clock time(1700000000LL * 1000);
    seeded_random random(29);
    auto sealing = *parse_sealing_key(std::string(64, 'c'));
    tenant owner{"PlatformConfig:two", environment::sandbox};
    sql_key_store store(database.session(), time, random, &sealing);
    auto keys = store.keys_for(owner, "vasp.example");

    std::string stored;
    database.session() << "SELECT private_key FROM uma_keys WHERE purpose = 'signing'",
        soci::into(stored);
    CHECK(is_sealed(stored));
    CHECK(stored.find(to_hex(keys.signing.secret)) == std::string::npos);
    CHECK(sql_key_store(database.session(), time, random, &sealing)
              .keys_for(owner, "x")
              .signing.secret == keys.signing.secret);

    auto wrong = *parse_sealing_key(std::string(64, 'd'));
    CHECK_THROWS_WITH(sql_key_store(database.session(), time, random, &wrong).keys_for(owner, "x"),
                      Catch::Contains("do not unseal"));
    CHECK_THROWS_WITH(sql_key_store(database.session(), time, random).keys_for(owner, "x"),
                      Catch::Contains("no key-encryption key is loaded"));
    // A row moved to another environment does not unseal there.
    database.session() << "UPDATE uma_keys SET environment = 'production'";
    CHECK_THROWS(sql_key_store(database.session(), time, random, &sealing)
                     .keys_for(tenant{"PlatformConfig:two", environment::production}, "x"));
}

TEST_CASE(
    "a staged rotation takes over at its time, in whichever session reads first, and keeps "
    "the replaced encryption key",
    "[store][uma][keys]") {
    testing::test_database database;
    add_platform(database.session(), "PlatformConfig:three");
    manual_clock time(1700000000LL * 1000);
    seeded_random random(31);
    auto sealing = *parse_sealing_key(std::string(64, 'e'));
    tenant owner{"PlatformConfig:three", environment::production};
    sql_key_store store(database.session(), time, random, &sealing);
    auto old = store.keys_for(owner, "vasp.example");
    CHECK_FALSE(old.next_signing);
    CHECK_FALSE(old.previous_encryption);

    std::int64_t switch_ms = time.now_ms() + 60'000;
    auto staged = store.stage_next(owner, "vasp.example", switch_ms);
    REQUIRE(staged.next_signing);
    REQUIRE(staged.next_encryption);
    CHECK(staged.next_activate_at_ms == switch_ms);
    CHECK(staged.signing.secret == old.signing.secret);
    CHECK(staged.next_signing->secret != old.signing.secret);
    CHECK(staged.next_encryption->secret != old.encryption.secret);
    CHECK(certificate_public_key(staged.next_signing->certificate) ==
          public_key_of(staged.next_signing->secret));
    // Sealed at rest like the current keys.
    std::string stored_next;
    database.session() << "SELECT next_private_key FROM uma_keys WHERE purpose = 'encryption'",
        soci::into(stored_next);
    CHECK(is_sealed(stored_next));
    CHECK(seal_stored_uma_keys(database.session(), sealing, random) == 0);

    // A moment before the switch nothing changes.
    time.advance_ms(59'999);
    CHECK(store.keys_for(owner, "x").signing.secret == old.signing.secret);

    // At the switch another session's first read promotes; every session then agrees.
    time.advance_ms(1);
    auto other_session = database.open_another();
    seeded_random other_random(37);
    sql_key_store other(*other_session, time, other_random, &sealing);
    auto promoted = other.keys_for(owner, "x");
    CHECK(promoted.signing.secret == staged.next_signing->secret);
    CHECK(promoted.encryption.secret == staged.next_encryption->secret);
    CHECK_FALSE(promoted.next_signing);
    REQUIRE(promoted.previous_encryption);
    CHECK(promoted.previous_encryption->secret == old.encryption.secret);
    CHECK(promoted.previous_retired_at_ms == switch_ms);
    auto seen = store.keys_for(owner, "x");
    CHECK(seen.signing.secret == promoted.signing.secret);
    CHECK(seen.previous_retired_at_ms == switch_ms);

    // On command: nothing staged is nothing to activate; a staged pair without a time waits for it.
    CHECK_FALSE(store.activate_next(owner, "x"));
    auto waiting = store.stage_next(owner, "x", std::nullopt);
    time.advance_ms(365LL * 24 * 3600 * 1000);
    CHECK(store.keys_for(owner, "x").signing.secret == promoted.signing.secret);
    auto activated = store.activate_next(owner, "x");
    REQUIRE(activated);
    CHECK(activated->signing.secret == waiting.next_signing->secret);
    CHECK(activated->previous_encryption->secret == promoted.encryption.secret);
}
