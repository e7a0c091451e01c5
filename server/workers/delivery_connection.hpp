#pragma once
// A database connection of webhook delivery's own, beside the ledger writer.
//
// It reads back the events handed over to delivery at their commit (outbox_handover.hpp), on
// both backends. On PostgreSQL it also runs the delivery rounds that decide no payment (claims,
// attempts of NOTIFY and TEST events, give-backs), each job in its own transaction, so that they
// neither wait behind the ledger writer's payment batches nor hold payments up; claims keep
// processes (and this connection and the writer) apart with FOR UPDATE SKIP LOCKED and leases, as
// they did on the writer. Rounds that carry an approval answer still go to the ledger writer: that
// answer moves money. On SQLite rounds stay on the writer: a round and a payment batch would take
// turns at the one write lock, and a connection waiting for it sleeps (busy_timeout), which made
// delivery slower; there this connection only reads (its transactions take no write lock).
#include <condition_variable>
#include <cstdint>
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
    // Whether delivery rounds (which write) may run here: on PostgreSQL.
    bool takes_rounds() const { return url_.backend == database_backend::postgresql; }
    // SQLite: the database file's path.
    const std::string& sqlite_path() const { return url_.connect_string; }
    ~delivery_connection() override;
    delivery_connection(const delivery_connection&) = delete;
    delivery_connection& operator=(const delivery_connection&) = delete;

    // Runs the job in a transaction of its own: committed when run() returns true, rolled back
    // otherwise (run again, at most command_attempts_max times, when it failed on contention).
    void submit(std::unique_ptr<session_job> job) override;
    // Runs what is queued, then stops the thread.
    void stop();
    // How many sessions this connection has opened: a job sees it change when the session it
    // runs on is not the one an earlier job ran on (its session-level locks are gone). Read only
    // by jobs, on the connection's thread.
    std::uint64_t session_number() const { return sessions_opened_; }

    static constexpr int command_attempts_max = 3;

private:
    void worker();
    void run_one(session_job& job);

    database_url url_;
    session_ptr session_;  // opened on first use, reopened after a failure
    std::uint64_t sessions_opened_ = 0;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::unique_ptr<session_job>> queue_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace corridor
