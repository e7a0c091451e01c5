#pragma once
// A small shared cache for data every request reads (token credentials, rendered platform config).
// Shared by all io threads behind a reader-writer lock. Writes in this process invalidate at once on
// every core; an entry older than ttl_ms is reloaded so that other processes' writes (several
// Corridor processes on one PostgreSQL) show within ttl_ms. An epoch guards the load/invalidate
// race: a value loaded before an invalidation is never stored after it.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>

namespace corridor {

template <class Value>
class shared_cache {
public:
    explicit shared_cache(std::int64_t ttl_ms, std::size_t entries_max = 100000)
        : ttl_ms_(ttl_ms), entries_max_(entries_max) {}

    std::optional<Value> get(const std::string& key, std::int64_t now_ms) const {
        std::shared_lock lock(mutex_);
        auto found = entries_.find(key);
        if (found == entries_.end() || now_ms - found->second.loaded_at_ms >= ttl_ms_) {
            return std::nullopt;
        }
        return found->second.value;
    }

    // Calls visitor(const Value&) under the read lock when a fresh entry exists, and returns whether
    // it did: for callers that need part of the value, where get() would copy all of it.
    template <class Visitor>
    bool visit(const std::string& key, std::int64_t now_ms, Visitor&& visitor) const {
        std::shared_lock lock(mutex_);
        auto found = entries_.find(key);
        if (found == entries_.end() || now_ms - found->second.loaded_at_ms >= ttl_ms_) return false;
        visitor(found->second.value);
        return true;
    }

    // Read before loading from the database; pass to put().
    std::uint64_t epoch() const { return epoch_.load(std::memory_order_acquire); }

    void put(const std::string& key, Value value, std::int64_t now_ms, std::uint64_t epoch_seen) {
        std::unique_lock lock(mutex_);
        if (epoch_.load(std::memory_order_acquire) != epoch_seen) return;
        if (entries_.size() >= entries_max_) entries_.clear();
        entries_[key] = entry{std::move(value), now_ms};
    }

    void invalidate(const std::string& key) {
        std::unique_lock lock(mutex_);
        epoch_.fetch_add(1, std::memory_order_acq_rel);
        entries_.erase(key);
    }

    template <class Predicate>
    void invalidate_if(Predicate predicate) {
        std::unique_lock lock(mutex_);
        epoch_.fetch_add(1, std::memory_order_acq_rel);
        std::erase_if(entries_, [&](const auto& item) { return predicate(item.second.value); });
    }

private:
    struct entry {
        Value value;
        std::int64_t loaded_at_ms = 0;
    };
    mutable std::shared_mutex mutex_;
    std::unordered_map<std::string, entry> entries_;
    std::atomic<std::uint64_t> epoch_{0};
    std::int64_t ttl_ms_;
    std::size_t entries_max_;
};

}  // namespace corridor
