#pragma once
// Replay protection: a signed UMA message carries a nonce and a timestamp; the verifier refuses a
// nonce it has seen from the same counterparty, and timestamps outside its window.
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "ledger/base/clock.hpp"

namespace corridor::uma {

class nonce_store {
public:
    virtual ~nonce_store() = default;
    // True (and the nonce is remembered) when the nonce is new for `scope` (the counterparty's
    // domain) and timestamp_s lies within the window around now; false otherwise.
    virtual bool check_and_save(std::string_view scope, std::string_view nonce,
                                std::int64_t timestamp_s) = 0;
};

// Whether timestamp_s is no older than window_s and no further than window_s in the future.
bool within_window(const clock& time, std::int64_t timestamp_s, std::int64_t window_s);

// For tools and tests; one process only.
class memory_nonce_store final : public nonce_store {
public:
    memory_nonce_store(const clock& time, std::int64_t window_s)
        : time_(time), window_s_(window_s) {}
    bool check_and_save(std::string_view scope, std::string_view nonce,
                        std::int64_t timestamp_s) override;

private:
    const clock& time_;
    std::int64_t window_s_;
    std::mutex mutex_;
    std::set<std::pair<std::string, std::string>> seen_;
};

inline constexpr std::int64_t default_nonce_window_s = 2 * 24 * 3600;  // as the UMA docs' example

}  // namespace corridor::uma
