// Sealing private keys at rest: the AEAD round trip for secrets of any length, and the start-up
// step that seals webhook and UMA keys stored in clear by older versions and refuses sealed ones
// that do not open. The step takes the key explicitly: nothing here installs a process-wide one.
#include "ledger/store/key_sealing.hpp"

#include <catch2/catch.hpp>

#include "ledger/platforms/webhook_keys.hpp"
#include "tests/support/store_fixture.hpp"
#include "uma/hex.hpp"
#include "uma/sql_stores.hpp"

using namespace corridor;
using corridor::testing::store_fixture;

namespace {

std::span<const std::uint8_t> bytes_of(const std::string& text) {
    return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

std::string stored_webhook_key(soci::session& session, const tenant& owner) {
    std::string env(owner.env_name()), stored;
    session
        << "SELECT private_key_pem FROM webhook_keys WHERE platform_id = :p AND environment = :e",
        soci::use(owner.platform_id), soci::use(env), soci::into(stored);
    return stored;
}

}  // namespace

TEST_CASE("sealed secrets of any length open only with their key and context", "[keys]") {
    seeded_random random(5);
    auto key = *parse_sealing_key(std::string(64, '1'));
    auto other = *parse_sealing_key(std::string(64, '2'));
    std::string pem = generate_webhook_key_pair().private_key_pem;
    auto sealed = seal_bytes(key, bytes_of(pem), "webhook|p|sandbox", random);
    CHECK(is_sealed(sealed));
    CHECK(sealed.find("PRIVATE KEY") == std::string::npos);
    auto opened = unseal_bytes(key, sealed, "webhook|p|sandbox");
    REQUIRE(opened.has_value());
    CHECK(std::string(opened->begin(), opened->end()) == pem);
    CHECK_FALSE(unseal_bytes(other, sealed, "webhook|p|sandbox").has_value());
    CHECK_FALSE(unseal_bytes(key, sealed, "webhook|p|production").has_value());
    CHECK_FALSE(unseal_bytes(key, sealed.substr(0, 20), "webhook|p|sandbox").has_value());
    CHECK_FALSE(unseal_bytes(key, pem, "webhook|p|sandbox").has_value());
}

TEST_CASE("keys stored in clear are sealed once; sealed keys that do not open stop the step",
          "[store][keys]") {
    store_fixture f;
    tenant owner{f.make_platform("sealing.example"), environment::sandbox};
    tenant production{owner.platform_id, environment::production};
    // Without an installed key, as older versions stored them: in clear.
    REQUIRE(installed_key_encryption_key() == nullptr);
    auto pair = ensure_webhook_key(f.session(), f.clock, owner);
    CHECK(stored_webhook_key(f.session(), owner) == pair.private_key_pem);
    uma::sql_key_store uma_keys(f.session(), f.clock, f.random);
    auto uma_pair = uma_keys.keys_for(owner, "sealing.example");

    auto kek = *parse_sealing_key(std::string(64, '7'));
    // Both environments of the platform have a webhook key; the sandbox has two UMA keys.
    CHECK(seal_stored_webhook_keys(f.session(), kek, f.random) == 2);
    CHECK(uma::seal_stored_uma_keys(f.session(), kek, f.random) == 2);
    std::string stored = stored_webhook_key(f.session(), owner);
    CHECK(is_sealed(stored));
    CHECK(stored.find("PRIVATE KEY") == std::string::npos);
    auto opened = unseal_bytes(kek, stored, "webhook|" + owner.platform_id + "|sandbox");
    REQUIRE(opened.has_value());
    CHECK(std::string(opened->begin(), opened->end()) == pair.private_key_pem);
    CHECK(uma::sql_key_store(f.session(), f.clock, f.random, &kek)
              .keys_for(owner, "x")
              .signing.secret == uma_pair.signing.secret);
    // Idempotent: nothing left to seal, and a second run with the same key passes the check.
    CHECK(seal_stored_webhook_keys(f.session(), kek, f.random) == 0);
    CHECK(uma::seal_stored_uma_keys(f.session(), kek, f.random) == 0);

    auto wrong = *parse_sealing_key(std::string(64, '8'));
    CHECK_THROWS_WITH(seal_stored_webhook_keys(f.session(), wrong, f.random),
                      Catch::Contains("does not open with the key-encryption key"));
    CHECK_THROWS_WITH(uma::seal_stored_uma_keys(f.session(), wrong, f.random),
                      Catch::Contains("does not open with the key-encryption key"));
    CHECK(stored_webhook_key(f.session(), owner) == stored);  // a refusal changes nothing
}
