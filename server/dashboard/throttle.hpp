#pragma once
// Slows sign-in guessing: after a few failures for an account or from an address, further attempts
// are refused for a window that doubles with each failure (capped). Kept in this process's memory:
// a restart forgets it, and several processes each count their own attempts (the Argon2id cost
// still bounds the guessing rate).
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace corridor {

struct throttle_policy {
    int free_failures = 3;                      // failures allowed before the first wait
    std::int64_t first_wait_ms = 1000;          // then 1 s, 2 s, 4 s, ...
    std::int64_t wait_max_ms = 15 * 60000;      // ... up to 15 minutes
    std::int64_t forget_after_ms = 60 * 60000;  // a quiet hour clears the count
};

class sign_in_throttle {
public:
    explicit sign_in_throttle(throttle_policy policy = {}) : policy_(policy) {}
    // How long the caller must still wait before trying this key again; 0 when it may try now.
    std::int64_t wait_ms(const std::string& key, std::int64_t now_ms);
    void record_failure(const std::string& key, std::int64_t now_ms);
    void record_success(const std::string& key);

private:
    struct entry {
        int failures = 0;
        std::int64_t last_failure_ms = 0;
        std::int64_t blocked_until_ms = 0;
    };
    void prune(std::int64_t now_ms);

    throttle_policy policy_;
    std::mutex mutex_;
    std::map<std::string, entry> entries_;
};

// The process's throttles for dashboard sign-ins: per account (e-mail, or user for the second
// factor), and per source address, which allows more failures (people share addresses behind NAT).
sign_in_throttle& dashboard_sign_in_throttle();
sign_in_throttle& dashboard_address_throttle();

}  // namespace corridor
