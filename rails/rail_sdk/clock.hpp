// <corridor/rail_sdk/clock.hpp>: time as the host gives it. Hooks never read the wall clock and
// never sleep (rail_abi.h THREADING): the host passes now_ms to initiate and tick, and a plugin
// that must wait (a settlement delay, a cut-off) keeps a timer and acts on the first tick at or
// after it. Tests drive both by calling the hooks with the times they choose.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace corridor::rail_sdk {

// The latest host time the plugin was given. Call observe() with every now_ms a hook receives.
class host_clock {
public:
    // Host time never goes backwards for the plugin, even if a caller's does.
    void observe(int64_t now_ms) noexcept {
        if (now_ms > now_ms_) now_ms_ = now_ms;
    }
    int64_t now_ms() const noexcept { return now_ms_; }

private:
    int64_t now_ms_ = 0;
};

// A "sleep" on host time: values that fall due at a host time, taken out by the first tick at or
// after it. Not thread-safe (hooks of one instance never run concurrently).
template <class Value>
class host_timers {
public:
    void at(int64_t due_ms, Value value) { due_.emplace(due_ms, std::move(value)); }
    // Values due at or before now_ms, earliest first; they are removed.
    std::vector<Value> take_due(int64_t now_ms) {
        std::vector<Value> out;
        auto end = due_.upper_bound(now_ms);
        for (auto it = due_.begin(); it != end; ++it) out.push_back(std::move(it->second));
        due_.erase(due_.begin(), end);
        return out;
    }
    bool empty() const noexcept { return due_.empty(); }
    std::size_t size() const noexcept { return due_.size(); }

private:
    std::multimap<int64_t, Value> due_;
};

}  // namespace corridor::rail_sdk
