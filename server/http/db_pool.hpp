#pragma once
// Database threads: each owns one soci session and runs jobs from a shared queue, so io threads
// never block on the database. The queue is bounded; when it is full a job is refused at once and the
// caller answers 503 rather than letting latency grow without limit.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "ledger/store/database.hpp"
#include "ledger/store/session_job.hpp"

namespace corridor {

class db_pool final : public session_executor {
public:
    db_pool(database_url url, int threads, std::size_t queue_jobs_max = 65536);
    ~db_pool() override;
    db_pool(const db_pool&) = delete;
    db_pool& operator=(const db_pool&) = delete;

    void submit(std::unique_ptr<session_job> work) override;
    // Finishes queued jobs, then joins the threads.
    void stop();
    std::size_t queue_depth() const;
    // Sessions running a job now, and the pool's size (for the metrics).
    int sessions_in_use() const { return in_use_.load(std::memory_order_relaxed); }
    int sessions_total() const { return threads_total_; }

private:
    void worker();
    database_url url_;
    std::size_t queue_jobs_max_;
    mutable std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::unique_ptr<session_job>> queue_;
    bool stopping_ = false;
    std::atomic<int> in_use_{0};
    int threads_total_ = 0;
    std::vector<std::thread> threads_;
};

}  // namespace corridor
