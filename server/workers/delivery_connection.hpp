#pragma once
// A database connection of webhook delivery's own. Delivery rounds that decide no payment (claims,
// attempts of NOTIFY and TEST events, give-backs) run here, each job in its own transaction, so
// that they neither wait behind the ledger writer's payment batches nor hold payments up. Rounds
// that carry an approval answer still go to the ledger writer: that answer moves money.
//
// On PostgreSQL, claims keep processes (and this connection and the writer) apart with FOR UPDATE
// SKIP LOCKED and leases, as they did on the writer. On SQLite, the transaction takes the one write
// lock (BEGIN IMMEDIATE, waiting under busy_timeout), so a round and a payment batch still take
// turns; what changes is that a round no longer queues behind every batch already waiting.
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "ledger/store/database.hpp"
#include "ledger/store/session_job.hpp"

namespace corridor {

class delivery_connection final : public session_executor {
public:
    explicit delivery_connection(database_url url);
    // One on PostgreSQL; null on SQLite, where a round and a payment batch take turns at one write
    // lock, and a connection waiting for it sleeps: there rounds stay on the ledger writer.
    static std::unique_ptr<delivery_connection> open_if_useful(const database_url& url);
    ~delivery_connection() override;
    delivery_connection(const delivery_connection&) = delete;
    delivery_connection& operator=(const delivery_connection&) = delete;

    // Runs the job in a transaction of its own: committed when run() returns true, rolled back
    // otherwise (run again, at most command_attempts_max times, when it failed on contention).
    void submit(std::unique_ptr<session_job> job) override;
    // Runs what is queued, then stops the thread.
    void stop();

    static constexpr int command_attempts_max = 3;

private:
    void worker();
    void run_one(session_job& job);

    database_url url_;
    session_ptr session_;  // opened on first use, reopened after a failure
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::unique_ptr<session_job>> queue_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace corridor
