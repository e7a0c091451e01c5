#include "server/http/db_pool.hpp"

#include <spdlog/spdlog.h>

#include <chrono>

#include "ledger/base/assert.hpp"
#include "ledger/base/thread_name.hpp"

namespace corridor {

db_pool::db_pool(database_url url, int threads, std::size_t queue_jobs_max)
    : url_(std::move(url)), queue_jobs_max_(queue_jobs_max), threads_total_(threads) {
    CORRIDOR_ASSERT(threads > 0);
    for (int i = 0; i < threads; ++i) {
        threads_.emplace_back([this, i] {
            name_this_thread("db-" + std::to_string(i));
            worker();
        });
    }
}

db_pool::~db_pool() { stop(); }

void db_pool::submit(std::unique_ptr<session_job> work) {
    {
        std::lock_guard lock(mutex_);
        if (!stopping_ && queue_.size() < queue_jobs_max_) {
            queue_.push_back(std::move(work));
            ready_.notify_one();
            return;
        }
    }
    work->finish(job_outcome::not_committed);
}

void db_pool::stop() {
    {
        std::lock_guard lock(mutex_);
        if (stopping_ && threads_.empty()) return;
        stopping_ = true;
    }
    ready_.notify_all();
    for (auto& thread : threads_) {
        if (thread.joinable()) thread.join();
    }
    threads_.clear();
}

std::size_t db_pool::queue_depth() const {
    std::lock_guard lock(mutex_);
    return queue_.size();
}

void db_pool::worker() {
    session_ptr session;
    while (true) {
        std::unique_ptr<session_job> work;
        {
            std::unique_lock lock(mutex_);
            ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return;  // stopping and drained
            work = std::move(queue_.front());
            queue_.pop_front();
        }
        in_use_.fetch_add(1, std::memory_order_relaxed);
        struct release {
            std::atomic<int>& in_use;
            ~release() { in_use.fetch_sub(1, std::memory_order_relaxed); }
        } busy{in_use_};
        try {
            if (!session) session = open_session(url_);
        } catch (const std::exception& error) {
            spdlog::error("cannot open database {}: {}", url_.redacted(), error.what());
            work->finish(job_outcome::not_committed);
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            continue;
        }
        bool healthy = work->run(*session);
        // Handlers commit their own transactions, so the work is durable once run() returns.
        work->finish(job_outcome::committed);
        if (!healthy) {
            // A database error may have left the connection unusable; probe it, reopen if dead.
            try {
                *session << "SELECT 1";
            } catch (const std::exception&) {
                session.reset();
            }
        }
    }
}

}  // namespace corridor
