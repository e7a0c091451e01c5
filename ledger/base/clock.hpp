#pragma once
// Time is injected so that tests drive expiries, timeouts and retries without sleeping.
#include <atomic>
#include <chrono>
#include <cstdint>

namespace corridor {

class clock {
public:
    virtual ~clock() = default;
    // Wall-clock time, milliseconds since the Unix epoch (UTC).
    virtual std::int64_t now_ms() const = 0;
};

class system_clock final : public clock {
public:
    std::int64_t now_ms() const override {
        using namespace std::chrono;
        return duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    }
};

// A clock that moves only when told to; for tests and simulations.
class manual_clock final : public clock {
public:
    explicit manual_clock(std::int64_t start_ms) : now_ms_(start_ms) {}
    std::int64_t now_ms() const override { return now_ms_.load(); }
    void advance_ms(std::int64_t delta_ms) { now_ms_ += delta_ms; }
    void set_ms(std::int64_t value_ms) { now_ms_ = value_ms; }

private:
    std::atomic<std::int64_t> now_ms_;
};

}  // namespace corridor
