#pragma once
// The operator's metrics beyond the HTTP ones: what this build is, what the process uses (memory,
// descriptors, CPU), and the backlogs that live in the database (open and overdue rail operations,
// webhook events waiting, bulk-import jobs by state, UMA post-transaction callbacks). The database
// ones are counted by a periodic job on a database thread and served from its last result, so a
// scrape never runs a query on an io thread.
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "ledger/base/clock.hpp"
#include "ledger/store/session_job.hpp"

namespace corridor {

// corridor_build_info{version,revision} 1
std::string build_metrics();
// process_resident_memory_bytes, process_open_fds, process_cpu_seconds_total (from /proc).
std::string process_metrics();

class database_gauges {
public:
    // Counts on `pool` every `interval_ms`, the first time at once.
    database_gauges(session_executor& pool, const clock& time, std::int64_t interval_ms);
    ~database_gauges();
    database_gauges(const database_gauges&) = delete;
    database_gauges& operator=(const database_gauges&) = delete;

    void stop();
    // The last count as Prometheus text; empty until the first count has run.
    std::string render() const;

    // The queries themselves, on `session`: the text render() serves. Public for tests.
    static std::string count(soci::session& session, std::int64_t now_ms);

private:
    friend class database_gauges_job;
    void loop();
    void store(std::string text);

    session_executor& pool_;
    const clock& time_;
    std::int64_t interval_ms_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    bool in_flight_ = false;
    std::string text_;
    std::thread thread_;
};

}  // namespace corridor
