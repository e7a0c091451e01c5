#include "server/dashboard/throttle.hpp"

#include <algorithm>

namespace corridor {
namespace {
constexpr std::size_t entries_max = 100000;  // bounds the memory an attacker can make us hold
}

std::int64_t sign_in_throttle::wait_ms(const std::string& key, std::int64_t now_ms) {
    std::lock_guard lock(mutex_);
    auto found = entries_.find(key);
    if (found == entries_.end()) return 0;
    return std::max<std::int64_t>(0, found->second.blocked_until_ms - now_ms);
}

void sign_in_throttle::record_failure(const std::string& key, std::int64_t now_ms) {
    std::lock_guard lock(mutex_);
    if (entries_.size() >= entries_max) prune(now_ms);
    auto& item = entries_[key];
    if (item.failures > 0 && now_ms - item.last_failure_ms > policy_.forget_after_ms) item = {};
    item.failures += 1;
    item.last_failure_ms = now_ms;
    int over = item.failures - policy_.free_failures;
    if (over > 0) {
        std::int64_t wait = policy_.first_wait_ms;
        for (int i = 1; i < over && wait < policy_.wait_max_ms; ++i) wait *= 2;
        item.blocked_until_ms = now_ms + std::min(wait, policy_.wait_max_ms);
    }
}

void sign_in_throttle::record_success(const std::string& key) {
    std::lock_guard lock(mutex_);
    entries_.erase(key);
}

void sign_in_throttle::prune(std::int64_t now_ms) {
    std::erase_if(entries_, [&](const auto& item) {
        return now_ms - item.second.last_failure_ms > policy_.forget_after_ms &&
               item.second.blocked_until_ms <= now_ms;
    });
    if (entries_.size() >= entries_max) entries_.clear();  // under a flood, forget rather than grow
}

sign_in_throttle& dashboard_sign_in_throttle() {
    static sign_in_throttle throttle;
    return throttle;
}

sign_in_throttle& dashboard_address_throttle() {
    static sign_in_throttle throttle({.free_failures = 10});
    return throttle;
}

}  // namespace corridor
