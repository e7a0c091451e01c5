#include "uma/sql_stores.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "ledger/assert.hpp"
#include "uma/certificate.hpp"

namespace corridor::uma {
namespace {

constexpr std::int64_t certificate_lifetime_s = 10LL * 365 * 24 * 3600;

key_pair make_key_pair(random_source& random, const clock& time, std::string_view domain) {
    key_pair out;
    out.secret = generate_private_key(random);
    std::uint64_t serial = 0;
    random.fill(std::span(reinterpret_cast<std::uint8_t*>(&serial), sizeof serial));
    std::int64_t now_s = time.now_ms() / 1000;
    out.certificate = self_signed_certificate(
        out.secret, {std::string(domain), now_s - 60, now_s + certificate_lifetime_s, serial >> 1});
    return out;
}

std::string row_context(const tenant& owner, std::string_view purpose) {
    return owner.platform_id + "|" + std::string(owner.env_name()) + "|" + std::string(purpose);
}

key_pair decode_pair(const std::string& stored_secret, const std::string& certificate_hex,
                     const sealing_key* sealing, const std::string& context) {
    std::optional<private_key> key;
    if (is_sealed(stored_secret)) {
        if (sealing == nullptr) {
            throw std::runtime_error("UMA keys are sealed but no key-encryption key is loaded");
        }
        key = unseal_secret(*sealing, stored_secret, context);
        if (!key) {
            throw std::runtime_error("UMA keys do not unseal with the key-encryption key");
        }
    } else {
        auto secret = from_hex(stored_secret);
        CORRIDOR_ASSERT(secret.has_value());
        key = private_key_from_bytes(*secret);
    }
    auto certificate = from_hex(certificate_hex);
    CORRIDOR_ASSERT(key.has_value() && certificate.has_value());
    return key_pair{*key, std::move(*certificate)};
}

}  // namespace

bool sql_key_store::load(const tenant& owner, environment_keys& out) {
    std::string env(owner.env_name());
    std::string purpose, secret, certificate;
    soci::statement select =
        (session_.prepare << "SELECT purpose, private_key, certificate FROM uma_keys "
                             "WHERE platform_id = :p AND environment = :e",
         soci::use(owner.platform_id), soci::use(env), soci::into(purpose), soci::into(secret),
         soci::into(certificate));
    select.execute(false);
    int found = 0;
    while (select.fetch()) {
        auto pair = decode_pair(secret, certificate, sealing_, row_context(owner, purpose));
        if (purpose == "signing") out.signing = std::move(pair);
        if (purpose == "encryption") out.encryption = std::move(pair);
        ++found;
    }
    return found == 2;
}

environment_keys sql_key_store::keys_for(const tenant& owner, std::string_view uma_domain) {
    environment_keys keys;
    if (load(owner, keys)) return keys;
    std::string env(owner.env_name());
    long long now_ms = time_.now_ms();
    for (std::string purpose : {"signing", "encryption"}) {
        key_pair pair = make_key_pair(random_, time_, uma_domain);
        std::string secret = sealing_ != nullptr ? seal_secret(*sealing_, pair.secret,
                                                               row_context(owner, purpose), random_)
                                                 : to_hex(pair.secret);
        std::string certificate = to_hex(pair.certificate);
        session_ << "INSERT INTO uma_keys (platform_id, environment, purpose, private_key, "
                    "certificate, created_at_ms) VALUES (:p, :e, :u, :k, :c, :t) "
                    "ON CONFLICT (platform_id, environment, purpose) DO NOTHING",
            soci::use(owner.platform_id), soci::use(env), soci::use(purpose), soci::use(secret),
            soci::use(certificate), soci::use(now_ms);
    }
    CORRIDOR_ASSERT(load(owner, keys));
    return keys;
}

int seal_stored_uma_keys(soci::session& session, const sealing_key& sealing,
                         random_source& random) {
    struct row {
        std::string platform_id, environment, purpose, private_key;
    };
    std::vector<row> rows;
    {
        row current;
        soci::statement select =
            (session.prepare << "SELECT platform_id, environment, purpose, private_key FROM "
                                "uma_keys ORDER BY platform_id, environment, purpose",
             soci::into(current.platform_id), soci::into(current.environment),
             soci::into(current.purpose), soci::into(current.private_key));
        select.execute(false);
        while (select.fetch()) rows.push_back(current);
    }
    int sealed = 0;
    for (const auto& key : rows) {
        auto env = parse_environment(key.environment);
        CORRIDOR_ASSERT(env.has_value());
        std::string context = row_context(tenant{key.platform_id, *env}, key.purpose);
        if (is_sealed(key.private_key)) {
            if (!unseal_secret(sealing, key.private_key, context)) {
                throw std::runtime_error("the UMA " + key.purpose + " key of " + key.platform_id +
                                         " (" + key.environment +
                                         ") does not open with the key-encryption key");
            }
            continue;
        }
        auto plain = from_hex(key.private_key);
        auto secret = plain ? private_key_from_bytes(*plain) : std::nullopt;
        if (!secret) {
            throw std::runtime_error("the UMA " + key.purpose + " key of " + key.platform_id +
                                     " is neither sealed nor a private key");
        }
        std::string stored = seal_secret(sealing, *secret, context, random);
        session << "UPDATE uma_keys SET private_key = :k WHERE platform_id = :p AND environment "
                   "= :e AND purpose = :u AND private_key = :old",
            soci::use(stored), soci::use(key.platform_id), soci::use(key.environment),
            soci::use(key.purpose), soci::use(key.private_key);
        ++sealed;
    }
    return sealed;
}

bool sql_nonce_store::check_and_save(std::string_view scope, std::string_view nonce,
                                     std::int64_t timestamp_s) {
    if (!within_window(time_, timestamp_s, window_s_)) return false;
    std::string scope_text(scope), nonce_text(nonce);
    long long timestamp = timestamp_s;
    long long now_ms = time_.now_ms();
    soci::statement insert =
        (session_.prepare << "INSERT INTO uma_nonces (scope, nonce, timestamp_s, seen_at_ms) "
                             "VALUES (:s, :n, :t, :m) ON CONFLICT (scope, nonce) DO NOTHING",
         soci::use(scope_text), soci::use(nonce_text), soci::use(timestamp), soci::use(now_ms));
    insert.execute(true);
    return insert.get_affected_rows() == 1;
}

void sql_nonce_store::purge_expired() {
    long long oldest_s = time_.now_ms() / 1000 - window_s_;
    session_ << "DELETE FROM uma_nonces WHERE timestamp_s < :t", soci::use(oldest_s);
}

}  // namespace corridor::uma
