#pragma once
// Database-backed key and nonce stores (tables of migration 7), so that every Corridor process
// sharing a database signs with the same keys and refuses the same replays.
#include <soci/soci.h>

#include <cstdint>
#include <optional>
#include <string>

#include "ledger/base/clock.hpp"
#include "ledger/base/random.hpp"
#include "uma/key_sealing.hpp"
#include "uma/key_store.hpp"
#include "uma/nonce_store.hpp"

namespace corridor::uma {

class sql_key_store final : public key_store {
public:
    // With a sealing key, new private keys are stored sealed and sealed ones are read; without
    // one, they are stored as plain hex, and reading a sealed row throws (the request fails).
    sql_key_store(soci::session& session, const clock& time, random_source& random,
                  const sealing_key* sealing = nullptr)
        : session_(session), time_(time), random_(random), sealing_(sealing) {}
    // Concurrent first uses race on the primary key; every process then reads the winner's keys.
    // A staged rotation whose time has come takes over here, in whichever process reads first.
    environment_keys keys_for(const tenant& owner, std::string_view uma_domain) override;

    // Rotation with an overlap. stage_next makes a next signing and encryption pair (replacing a
    // staged one) that take over at activate_at_ms, or on activate_next when it has none; the
    // current pairs sign and decrypt until then. activate_next makes the staged pairs current
    // (none staged: nullopt). Either way the replaced encryption pair is kept as previous.
    environment_keys stage_next(const tenant& owner, std::string_view uma_domain,
                                std::optional<std::int64_t> activate_at_ms);
    std::optional<environment_keys> activate_next(const tenant& owner, std::string_view uma_domain);

private:
    bool load(const tenant& owner, environment_keys& out);
    void promote_next(const tenant& owner);
    std::string stored_secret(const tenant& owner, const std::string& purpose,
                              const private_key& secret);
    soci::session& session_;
    const clock& time_;
    random_source& random_;
    const sealing_key* sealing_;
};

// Seals every UMA private key still stored in clear (databases from before keys were sealed by
// default) and checks that every sealed one opens with `sealing`; throws std::runtime_error naming
// the first row that does not. Returns how many rows it sealed. Run in the caller's transaction.
int seal_stored_uma_keys(soci::session& session, const sealing_key& sealing, random_source& random);

class sql_nonce_store final : public nonce_store {
public:
    sql_nonce_store(soci::session& session, const clock& time, std::int64_t window_s)
        : session_(session), time_(time), window_s_(window_s) {}
    bool check_and_save(std::string_view scope, std::string_view nonce,
                        std::int64_t timestamp_s) override;
    // Forgets nonces whose timestamps have left the window (they would be refused anyway).
    void purge_expired();

private:
    soci::session& session_;
    const clock& time_;
    std::int64_t window_s_;
};

}  // namespace corridor::uma
