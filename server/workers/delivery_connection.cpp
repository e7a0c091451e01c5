#include "server/workers/delivery_connection.hpp"

#include <spdlog/spdlog.h>

#include "ledger/base/thread_name.hpp"

namespace corridor {

delivery_connection::delivery_connection(database_url url) : url_(std::move(url)) {
    thread_ = std::thread([this] {
        name_this_thread("webhooks-db");
        worker();
    });
}

delivery_connection::~delivery_connection() {
    stop();
}

void delivery_connection::submit(std::unique_ptr<session_job> job) {
    {
        std::lock_guard lock(mutex_);
        if (!stopping_) {
            queue_.push_back(std::move(job));
            ready_.notify_one();
            return;
        }
    }
    job->finish(job_outcome::not_committed);
}

void delivery_connection::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    ready_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void delivery_connection::worker() {
    for (;;) {
        std::unique_ptr<session_job> job;
        {
            std::unique_lock lock(mutex_);
            ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return;  // stopping and drained
            job = std::move(queue_.front());
            queue_.pop_front();
        }
        run_one(*job);
    }
}

void delivery_connection::run_one(session_job& job) {
    for (int attempt = 1;; ++attempt) {
        bool open = false, committing = false;
        try {
            if (!session_) {
                session_ = open_session(url_);
                ++sessions_opened_;
                // The claim's plan (webhook_deliveries.cpp): without bitmap scans, the walk of
                // outbox_events_due that stops at the claim's LIMIT rather than a scan and sort of
                // the whole backlog. This connection's other statements look rows up by id.
                if (takes_rounds()) *session_ << "SET enable_bitmapscan = off";
            }
            // SQLite: reads only, in a deferred transaction that takes no write lock.
            *session_ << "BEGIN";
            open = true;
            if (job.run(*session_)) {
                committing = true;
                *session_ << "COMMIT";
                job.finish(job_outcome::committed);
                return;
            }
            *session_ << "ROLLBACK";
            open = false;
            if (job.retryable() && attempt < command_attempts_max) continue;
            job.finish(job_outcome::rolled_back);
            return;
        } catch (const std::exception& error) {
            // Whatever the job claimed or finished stays leased in the database and comes round
            // again when the lease runs out: at least once, never lost.
            spdlog::warn("webhook delivery connection: {}", error.what());
            bool usable = false;
            if (open && !committing) {
                try {
                    *session_ << "ROLLBACK";
                    usable = true;
                } catch (const std::exception&) {
                }
            }
            if (!usable) session_.reset();
            job.finish(committing ? job_outcome::unknown : job_outcome::not_committed);
            return;
        }
    }
}

}  // namespace corridor
