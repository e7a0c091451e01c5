#include "uma/sql_stores.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "ledger/base/assert.hpp"
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
    struct row {
        std::string purpose, secret, certificate, next_secret, next_certificate, previous_secret,
            previous_certificate;
        long long next_activate_at_ms = 0, previous_retired_at_ms = 0;
        soci::indicator next_ind = soci::i_null, next_cert_ind = soci::i_null,
                        activate_ind = soci::i_null, previous_ind = soci::i_null,
                        previous_cert_ind = soci::i_null, retired_ind = soci::i_null;
    } r;
    soci::statement select =
        (session_.prepare
             << "SELECT purpose, private_key, certificate, next_private_key, next_certificate, "
                "next_activate_at_ms, previous_private_key, previous_certificate, "
                "previous_retired_at_ms FROM uma_keys WHERE platform_id = :p AND environment = :e",
         soci::use(owner.platform_id), soci::use(env), soci::into(r.purpose), soci::into(r.secret),
         soci::into(r.certificate), soci::into(r.next_secret, r.next_ind),
         soci::into(r.next_certificate, r.next_cert_ind),
         soci::into(r.next_activate_at_ms, r.activate_ind),
         soci::into(r.previous_secret, r.previous_ind),
         soci::into(r.previous_certificate, r.previous_cert_ind),
         soci::into(r.previous_retired_at_ms, r.retired_ind));
    select.execute(false);
    int found = 0;
    while (select.fetch()) {
        std::string context = row_context(owner, r.purpose);
        auto pair = decode_pair(r.secret, r.certificate, sealing_, context);
        std::optional<key_pair> next, previous;
        if (r.next_ind == soci::i_ok && r.next_cert_ind == soci::i_ok) {
            next = decode_pair(r.next_secret, r.next_certificate, sealing_, context);
            if (r.activate_ind == soci::i_ok) out.next_activate_at_ms = r.next_activate_at_ms;
        }
        if (r.previous_ind == soci::i_ok && r.previous_cert_ind == soci::i_ok) {
            previous = decode_pair(r.previous_secret, r.previous_certificate, sealing_, context);
        }
        if (r.purpose == "signing") {
            out.signing = std::move(pair);
            out.next_signing = std::move(next);
        }
        if (r.purpose == "encryption") {
            out.encryption = std::move(pair);
            out.next_encryption = std::move(next);
            out.previous_encryption = std::move(previous);
            if (out.previous_encryption && r.retired_ind == soci::i_ok) {
                out.previous_retired_at_ms = r.previous_retired_at_ms;
            }
        }
        ++found;
    }
    return found == 2;
}

environment_keys sql_key_store::keys_for(const tenant& owner, std::string_view uma_domain) {
    environment_keys keys;
    if (load(owner, keys)) {
        if (!keys.next_activate_at_ms || *keys.next_activate_at_ms > time_.now_ms()) return keys;
        // The time of a staged switch has come: the next pairs are the ones in force from now on.
        promote_next(owner);
        environment_keys promoted;
        CORRIDOR_ASSERT(load(owner, promoted));
        return promoted;
    }
    std::string env(owner.env_name());
    long long now_ms = time_.now_ms();
    for (std::string purpose : {"signing", "encryption"}) {
        key_pair pair = make_key_pair(random_, time_, uma_domain);
        std::string secret = stored_secret(owner, purpose, pair.secret);
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

std::string sql_key_store::stored_secret(const tenant& owner, const std::string& purpose,
                                         const private_key& secret) {
    return sealing_ != nullptr
               ? seal_secret(*sealing_, secret, row_context(owner, purpose), random_)
               : to_hex(secret);
}

// Each purpose's staged pair becomes current, the replaced one previous. A row whose next pair is
// gone (another process promoted it first) is left alone.
void sql_key_store::promote_next(const tenant& owner) {
    std::string env(owner.env_name());
    long long now_ms = time_.now_ms(), retired_at_ms = now_ms;
    session_ << "UPDATE uma_keys SET previous_private_key = private_key, previous_certificate = "
                "certificate, previous_retired_at_ms = :r, private_key = next_private_key, "
                "certificate = next_certificate, created_at_ms = COALESCE(next_created_at_ms, :c), "
                "next_private_key = NULL, next_certificate = NULL, next_created_at_ms = NULL, "
                "next_activate_at_ms = NULL WHERE platform_id = :p AND environment = :e AND "
                "next_private_key IS NOT NULL AND next_certificate IS NOT NULL",
        soci::use(retired_at_ms), soci::use(now_ms), soci::use(owner.platform_id), soci::use(env);
}

environment_keys sql_key_store::stage_next(const tenant& owner, std::string_view uma_domain,
                                           std::optional<std::int64_t> activate_at_ms) {
    keys_for(owner, uma_domain);  // the current pairs exist, and a due staged pair took over
    std::string env(owner.env_name());
    long long now_ms = time_.now_ms();
    long long activate_value = activate_at_ms.value_or(0);
    soci::indicator activate_ind = activate_at_ms ? soci::i_ok : soci::i_null;
    for (std::string purpose : {"signing", "encryption"}) {
        key_pair pair = make_key_pair(random_, time_, uma_domain);
        std::string secret = stored_secret(owner, purpose, pair.secret);
        std::string certificate = to_hex(pair.certificate);
        session_ << "UPDATE uma_keys SET next_private_key = :k, next_certificate = :c, "
                    "next_created_at_ms = :t, next_activate_at_ms = :a WHERE platform_id = :p AND "
                    "environment = :e AND purpose = :u",
            soci::use(secret), soci::use(certificate), soci::use(now_ms),
            soci::use(activate_value, activate_ind), soci::use(owner.platform_id), soci::use(env),
            soci::use(purpose);
    }
    return keys_for(owner, uma_domain);
}

std::optional<environment_keys> sql_key_store::activate_next(const tenant& owner,
                                                             std::string_view uma_domain) {
    auto keys = keys_for(owner, uma_domain);
    if (!keys.next_signing || !keys.next_encryption) return std::nullopt;
    promote_next(owner);
    return keys_for(owner, uma_domain);
}

int seal_stored_uma_keys(soci::session& session, const sealing_key& sealing,
                         random_source& random) {
    // Every private half of a row: the current key, a staged next one and a kept previous one,
    // each sealed with the row's context so that a switch copies them as they are.
    struct row {
        std::string platform_id, environment, purpose, column, private_key;
    };
    std::vector<row> rows;
    {
        row current;
        std::string next, previous;
        soci::indicator next_ind = soci::i_null, previous_ind = soci::i_null;
        soci::statement select =
            (session.prepare << "SELECT platform_id, environment, purpose, private_key, "
                                "next_private_key, previous_private_key FROM uma_keys ORDER BY "
                                "platform_id, environment, purpose",
             soci::into(current.platform_id), soci::into(current.environment),
             soci::into(current.purpose), soci::into(current.private_key),
             soci::into(next, next_ind), soci::into(previous, previous_ind));
        select.execute(false);
        while (select.fetch()) {
            current.column = "private_key";
            rows.push_back(current);
            if (next_ind == soci::i_ok) {
                row staged = current;
                staged.column = "next_private_key";
                staged.private_key = next;
                rows.push_back(staged);
            }
            if (previous_ind == soci::i_ok) {
                row kept = current;
                kept.column = "previous_private_key";
                kept.private_key = previous;
                rows.push_back(kept);
            }
        }
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
        // The column name comes from the three above, never from input.
        session << "UPDATE uma_keys SET " + key.column + " = :k WHERE platform_id = :p AND " +
                       "environment = :e AND purpose = :u AND " + key.column + " = :old",
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
