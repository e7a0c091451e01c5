#pragma once
// What the ledger writer remembers across batches instead of reading it again for every command.
//
// Accounts: an account's owner, kind and currency never change once written, and accounts are
// never deleted, so once a batch that read (or opened) an account has committed, no later batch
// needs to read those facts again. The cache is bounded: two generations of at most
// `accounts_per_generation` entries each, the older dropped whole when the newer fills up.
//
// Platform configurations: the supported currencies decide which payments a platform allows, and
// they do change. An entry is trusted only while
// - no configuration changed in this process since it was read (platform_configs_changed bumps a
//   generation that every entry carries), and
// - on SQLite, no other connection committed anything since the writer last looked: the batch
//   holds the write lock from BEGIN IMMEDIATE, and PRAGMA data_version, read once per batch,
//   tells whether another connection (another process included) committed in between;
// - on PostgreSQL, the batch's COMMIT pipeline checks again, for every configuration the batch
//   applied, that the stored supported currencies are still the ones it used (a statement sent
//   with the COMMIT anyway, no extra round trip). A change that another process committed before
//   that check fails the batch with stale_platform_config, and the writer runs it again with the
//   configurations read afresh: a payment never commits under currency rules that had been
//   replaced before its batch's check. A change committed after the check is concurrent with the
//   payment, as it was when each command read the configuration itself (READ COMMITTED takes no
//   lock on it).
//
// What a batch reads becomes known only when the batch commits (a savepoint rolled back drops what
// was read since, a rolled-back batch drops all it read).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "ledger/base/tenant.hpp"
#include "ledger/store/batch_send.hpp"

namespace corridor {

struct account_facts {
    std::string id, platform_id, environment, kind, owner_id, currency;
    long long account_key = 0;  // what postings name the account by (migration 46)
};

// Defined in ledger/platforms/platform_store.hpp: the writer keeps it whole without knowing it, so
// the store stays below the platforms.
struct platform_config;

struct known_config {
    tenant owner;
    std::shared_ptr<const platform_config> config;
    std::string supported_currencies;  // the stored text, compared at commit on PostgreSQL
    std::uint64_t generation = 0;      // platform_configs_generation() before it was read
    std::int64_t tenant_key = 0;       // the configuration's (platform_configs.tenant_key)
};

// Thrown by the commit of a PostgreSQL batch when a platform configuration it applied changed in
// the database since it was read.
struct stale_platform_config : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Bumped by every configuration change made in this process (after its commit).
void platform_configs_changed();
std::uint64_t platform_configs_generation();

class writer_facts {
public:
    static constexpr std::size_t default_accounts_per_generation = 32768;
    static constexpr std::size_t configs_max = 4096;
    explicit writer_facts(std::size_t accounts_per_generation = default_accounts_per_generation)
        : accounts_per_generation_(accounts_per_generation) {}

    // A customer's platformCustomerId: written with the customer and never changed (an update
    // leaves it, a deletion only marks the row), so once read by a committed batch it is known.
    // Bounded like the accounts (one generation, dropped whole when full). Null when unknown.
    const std::string* platform_customer_id(const std::string& tenant_customer_key) const;
    void saw_platform_customer_id(std::string tenant_customer_key, std::string value);

    // Null when unknown.
    const account_facts* account(const std::string& id);
    void saw_account(const account_facts& facts);

    // The entry for `owner` when it can be trusted (see above), after on SQLite saw_data_version;
    // marks it used by this batch.
    const known_config* config(const tenant& owner);
    void saw_config(known_config entry);  // read in this batch; marks it used
    // The tenant's key (platform_configs.tenant_key) that its events are written with; 0 when not
    // known. A key is never changed nor reused, so it outlives its configuration's entry: a
    // configuration forgotten or changed keeps its key.
    std::int64_t key_of_tenant(const tenant& owner);
    void saw_tenant_key(const tenant& owner, std::int64_t key);
    void forget_configs();
    // SQLite: PRAGMA data_version as read in this batch; forgets the configurations when another
    // connection has committed since the last batch that read it.
    bool data_version_read() const { return data_version_read_; }
    void saw_data_version(long long version);
    // PostgreSQL: one statement per configuration the batch used, failing with division_by_zero
    // (22012) when it is no longer the stored one.
    bool has_config_checks() const { return !used_configs_.empty(); }
    void append_config_checks(std::vector<pipelined_statement>& pipeline) const;

    struct mark {
        std::size_t accounts = 0, configs = 0, customers = 0;
    };
    mark savepoint() const {
        return {pending_account_order_.size(), pending_config_order_.size(),
                pending_customers_.size()};
    }
    void rollback_to(const mark& kept);
    void committed();  // what the batch read is known from now on
    void end_batch();  // forgets what the batch read and did not commit

    std::size_t accounts_known() const { return current_.size() + previous_.size(); }

private:
    std::size_t accounts_per_generation_;
    std::unordered_map<std::string, account_facts> current_, previous_;
    std::unordered_map<std::string, account_facts> pending_accounts_;
    std::vector<std::string> pending_account_order_;
    std::unordered_map<std::string, known_config> configs_, pending_configs_;
    std::vector<std::string> pending_config_order_;
    std::string config_key_;  // config()'s and key_of_tenant()'s lookup key, reused
    std::unordered_map<std::string, std::int64_t> tenant_keys_;  // at most configs_max
    struct used_config {
        std::string platform_id, environment, supported_currencies;
    };
    // By tenant and text: a batch that applied two versions of one configuration checks both.
    std::unordered_map<std::string, used_config> used_configs_;
    // The entries already used by this batch (held, so that no other takes their address): most
    // commands of a batch use one, which then costs a comparison instead of a key.
    std::vector<std::shared_ptr<const platform_config>> used_entries_;
    void use(const known_config& entry);
    std::unordered_map<std::string, std::string> customers_;
    std::vector<std::pair<std::string, std::string>> pending_customers_;
    std::optional<long long> data_version_;
    bool data_version_read_ = false;
};

}  // namespace corridor
