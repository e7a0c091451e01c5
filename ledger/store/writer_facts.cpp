#include "ledger/store/writer_facts.hpp"

#include <atomic>

namespace corridor {
namespace {

std::atomic<std::uint64_t> config_generation{0};

std::string tenant_key(const std::string& platform_id, const std::string& environment) {
    return platform_id + '/' + environment;
}

// Fails (division by zero) unless the stored supported currencies are still the ones applied.
constexpr const char* config_check_sql =
    "SELECT 1 / COUNT(*) FROM platform_configs WHERE platform_id = $1 AND environment = $2 AND "
    "supported_currencies = $3";

}  // namespace

void platform_configs_changed() {
    config_generation.fetch_add(1, std::memory_order_acq_rel);
}

std::uint64_t platform_configs_generation() {
    return config_generation.load(std::memory_order_acquire);
}

const std::string* writer_facts::platform_customer_id(
    const std::string& tenant_customer_key) const {
    auto found = customers_.find(tenant_customer_key);
    return found == customers_.end() ? nullptr : &found->second;
}

void writer_facts::saw_platform_customer_id(std::string tenant_customer_key, std::string value) {
    pending_customers_.emplace_back(std::move(tenant_customer_key), std::move(value));
}

const account_facts* writer_facts::account(const std::string& id) {
    if (auto found = current_.find(id); found != current_.end()) return &found->second;
    if (auto found = pending_accounts_.find(id); found != pending_accounts_.end()) {
        return &found->second;
    }
    auto found = previous_.find(id);
    if (found == previous_.end()) return nullptr;
    // Still in use: kept into the newer generation.
    account_facts facts = std::move(found->second);
    previous_.erase(found);
    if (current_.size() >= accounts_per_generation_) {
        previous_ = std::move(current_);
        current_.clear();
    }
    return &current_.emplace(id, std::move(facts)).first->second;
}

void writer_facts::saw_account(const account_facts& facts) {
    if (current_.contains(facts.id) || previous_.contains(facts.id)) return;
    if (pending_accounts_.emplace(facts.id, facts).second) {
        pending_account_order_.push_back(facts.id);
    }
}

void writer_facts::use(const known_config& entry) {
    for (const auto& used : used_entries_) {
        if (used == entry.config) return;
    }
    used_entries_.push_back(entry.config);
    const tenant& owner = entry.owner;
    std::string env_name(owner.env_name());
    std::string key = tenant_key(owner.platform_id, env_name) + '\n' + entry.supported_currencies;
    if (used_configs_.contains(key)) return;
    used_configs_.emplace(std::move(key),
                          used_config{owner.platform_id, env_name, entry.supported_currencies});
}

const known_config* writer_facts::config(const tenant& owner) {
    // Every payment looks its configuration up: the key is built in a buffer kept for it rather
    // than in new strings.
    config_key_.assign(owner.platform_id);
    config_key_ += '/';
    config_key_ += owner.env_name();
    const std::string& key = config_key_;
    const known_config* entry = nullptr;
    if (auto found = pending_configs_.find(key); found != pending_configs_.end()) {
        entry = &found->second;
    } else if (auto known = configs_.find(key); known != configs_.end()) {
        entry = &known->second;
    }
    if (!entry) return nullptr;
    if (entry->generation != platform_configs_generation()) {
        // A configuration changed in this process since: every entry may be stale.
        forget_configs();
        return nullptr;
    }
    use(*entry);
    return entry;
}

std::int64_t writer_facts::key_of_tenant(const tenant& owner) {
    config_key_.assign(owner.platform_id);
    config_key_ += '/';
    config_key_ += owner.env_name();
    auto found = tenant_keys_.find(config_key_);
    return found == tenant_keys_.end() ? 0 : found->second;
}

void writer_facts::saw_tenant_key(const tenant& owner, std::int64_t key) {
    CORRIDOR_ASSERT(key > 0);
    if (tenant_keys_.size() >= configs_max) tenant_keys_.clear();
    tenant_keys_.insert_or_assign(tenant_key(owner.platform_id, std::string(owner.env_name())),
                                  key);
}

void writer_facts::saw_config(known_config entry) {
    use(entry);
    if (entry.tenant_key > 0) saw_tenant_key(entry.owner, entry.tenant_key);
    std::string key = tenant_key(entry.owner.platform_id, std::string(entry.owner.env_name()));
    auto [at, inserted] = pending_configs_.insert_or_assign(key, std::move(entry));
    (void)at;
    if (inserted) pending_config_order_.push_back(std::move(key));
}

void writer_facts::forget_configs() {
    configs_.clear();
    pending_configs_.clear();
    pending_config_order_.clear();
}

void writer_facts::saw_data_version(long long version) {
    if (data_version_ && *data_version_ != version) forget_configs();
    data_version_ = version;
    data_version_read_ = true;
}

void writer_facts::append_config_checks(std::vector<pipelined_statement>& pipeline) const {
    for (const auto& [key, used] : used_configs_) {
        pipeline.push_back(
            {config_check_sql, {used.platform_id, used.environment, used.supported_currencies}});
    }
}

void writer_facts::rollback_to(const mark& kept) {
    for (std::size_t i = kept.accounts; i < pending_account_order_.size(); ++i) {
        pending_accounts_.erase(pending_account_order_[i]);
    }
    if (kept.accounts < pending_account_order_.size()) pending_account_order_.resize(kept.accounts);
    // forget_configs may have emptied the order since the mark.
    for (std::size_t i = kept.configs; i < pending_config_order_.size(); ++i) {
        pending_configs_.erase(pending_config_order_[i]);
    }
    if (kept.configs < pending_config_order_.size()) pending_config_order_.resize(kept.configs);
    if (kept.customers < pending_customers_.size()) pending_customers_.resize(kept.customers);
}

void writer_facts::committed() {
    for (auto& id : pending_account_order_) {
        auto found = pending_accounts_.find(id);
        if (found == pending_accounts_.end()) continue;
        if (current_.size() >= accounts_per_generation_) {
            previous_ = std::move(current_);
            current_.clear();
        }
        current_.insert_or_assign(id, std::move(found->second));
    }
    if (configs_.size() + pending_configs_.size() > configs_max) configs_.clear();
    for (auto& [key, entry] : pending_configs_) configs_.insert_or_assign(key, std::move(entry));
    if (customers_.size() + pending_customers_.size() > accounts_per_generation_)
        customers_.clear();
    for (auto& [key, value] : pending_customers_)
        customers_.insert_or_assign(key, std::move(value));
    end_batch();
}

void writer_facts::end_batch() {
    pending_accounts_.clear();
    pending_account_order_.clear();
    pending_configs_.clear();
    pending_config_order_.clear();
    used_configs_.clear();
    pending_customers_.clear();
    used_entries_.clear();
    data_version_read_ = false;
}

}  // namespace corridor
