#include "uma/nonce_store.hpp"

namespace corridor::uma {

bool within_window(const clock& time, std::int64_t timestamp_s, std::int64_t window_s) {
    std::int64_t now_s = time.now_ms() / 1000;
    return timestamp_s >= now_s - window_s && timestamp_s <= now_s + window_s;
}

bool memory_nonce_store::check_and_save(std::string_view scope, std::string_view nonce,
                                        std::int64_t timestamp_s) {
    if (!within_window(time_, timestamp_s, window_s_)) return false;
    std::lock_guard lock(mutex_);
    return seen_.emplace(std::string(scope), std::string(nonce)).second;
}

}  // namespace corridor::uma
