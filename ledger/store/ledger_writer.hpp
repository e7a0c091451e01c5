#pragma once
// The one ledger writer of a process. Money-moving commands queue here and are applied in database
// transactions on this thread; commands that arrive together share one transaction and one durable
// commit (group commit), each inside its own savepoint so that it succeeds or fails alone. Reads
// never wait behind it: they run on other sessions (SQLite WAL readers, PostgreSQL MVCC).
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "ledger/store/database.hpp"
#include "ledger/store/deferred_writes.hpp"
#include "ledger/store/session_job.hpp"
#include "ledger/store/wal_checkpointer.hpp"

namespace corridor {

class ledger_writer final : public session_executor {
public:
    // batch_commands_max = 1 turns group commit off (one commit per command). When the connection
    // to PostgreSQL is lost during a batch's COMMIT, the writer reconnects and looks the batch's
    // marker up for at most outcome_lookup_timeout_ms before answering its commands "unknown".
    ledger_writer(database_url url, std::size_t batch_commands_max, std::size_t queue_commands_max,
                  std::int64_t outcome_lookup_timeout_ms = 30000);
    ~ledger_writer() override;

    void submit(std::unique_ptr<session_job> job) override;
    // Applies what is queued, then stops the thread.
    void stop();

    // A command that failed on transient contention is rolled back to its savepoint and run again,
    // at most this many times in all.
    static constexpr int command_attempts_max = 3;
    std::uint64_t commands_retried() const { return commands_retried_.load(); }
    // A command that met contention after earlier commands of its batch applied runs again with
    // the whole batch, in a new transaction, at most this many times; then on its own savepoint.
    static constexpr int batch_conflict_reruns_max = 3;
    std::uint64_t batch_conflict_reruns() const { return batch_conflict_reruns_.load(); }
    // Optimistic attempts (PostgreSQL) refused and run again command by command.
    std::uint64_t optimistic_refusals() const { return optimistic_refusals_.load(); }
    // Batches whose COMMIT lost its connection, by what the marker lookup learnt.
    std::uint64_t outcomes_committed() const { return outcomes_committed_.load(); }
    std::uint64_t outcomes_not_committed() const { return outcomes_not_committed_.load(); }
    std::uint64_t outcomes_unknown() const { return outcomes_unknown_.load(); }
    // Markers older than this are pruned, every marker_prune_interval_batches batches.
    static constexpr std::int64_t marker_retention_ms_min = 600000;
    static constexpr std::uint64_t marker_prune_interval_batches = 1024;

    // Batch sizes seen, for metrics: bucket i counts batches of size <= batch_size_buckets[i].
    static constexpr std::array<std::size_t, 10> batch_size_buckets = {1,  2,  4,   8,   16,
                                                                       32, 64, 128, 256, 512};
    std::uint64_t batches_at_most(std::size_t bucket) const {
        return batch_histogram_[bucket].load();
    }
    std::uint64_t batches_total() const { return batches_total_.load(); }
    std::uint64_t commands_total() const { return commands_total_.load(); }
    // Database round trips the writer made (statements, savepoint control, commits; several
    // statements sent together count once) and the statements they carried, for
    // round trips per command = delta(round_trips_total) / delta(commands_total).
    std::uint64_t round_trips_total() const { return round_trips_total_.load(); }
    std::uint64_t statements_total() const { return statements_total_.load(); }
    std::size_t queue_depth() const;
    // WAL checkpoints run beside the writer (SQLite only; 0 on PostgreSQL).
    std::uint64_t checkpoints_total() const {
        return checkpointer_ ? checkpointer_->checkpoints_total() : 0;
    }

private:
    void worker();
    // Fills applied[i] as each command runs, so that a failed COMMIT still knows which of them
    // its transaction held.
    void apply_batch(soci::session& session, std::vector<std::unique_ptr<session_job>>& batch,
                     std::vector<bool>& applied);
    // One attempt at the batch's transaction: with deferred writes, or (after a deferred_overflow)
    // each posting sent at once.
    // `optimistic` (PostgreSQL, with `defer`): guarded statements are queued, not waited for.
    // `rerun_on_conflict`: contention behind earlier commands' locks throws batch_conflict.
    void run_batch(soci::session& session, std::vector<std::unique_ptr<session_job>>& batch,
                   std::vector<bool>& applied, bool defer, bool optimistic, bool rerun_on_conflict);
    static bool holds_locks(const std::vector<bool>& applied, std::size_t i);
    void conflict_pause();
    static constexpr int conflict_pause_us_max = 2000;
    // After apply_batch threw: finishes every command with what became of the batch, learning it
    // from the marker when the connection was lost during COMMIT. Leaves `session` usable or null.
    void finish_failed_batch(session_ptr& session, std::vector<std::unique_ptr<session_job>>& batch,
                             const std::vector<bool>& applied, const std::exception& error);
    // Whether the batch marked `marker` committed; nullopt when that could not be learnt in time.
    std::optional<bool> look_up_outcome(session_ptr& session, std::int64_t marker);
    void prune_markers(soci::session& session);
    std::int64_t next_marker();

    void configure_session(soci::session& session);

    database_url url_;
    deferred_writes deferred_;  // the batch's writes that wait for its flush
    // PostgreSQL: each batch writes a marker row in its transaction (none on SQLite, where a
    // local file has no lost COMMIT).
    bool markers_ = false;
    std::int64_t outcome_lookup_timeout_ms_;
    std::int64_t marker_ = 0;      // this batch's marker id, chosen before it runs
    bool commit_started_ = false;  // this batch reached COMMIT
    std::uint64_t batches_since_prune_ = 0;
    std::uint64_t marker_seed_[2] = {};  // random per writer: marker ids of processes differ
    std::uint64_t marker_counter_ = 0;
    std::unique_ptr<wal_checkpointer> checkpointer_;
    std::size_t batch_commands_max_;
    std::size_t queue_commands_max_;
    mutable std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::unique_ptr<session_job>> queue_;
    bool stopping_ = false;
    std::thread thread_;
    std::array<std::atomic<std::uint64_t>, batch_size_buckets.size() + 1> batch_histogram_{};
    std::atomic<std::uint64_t> batches_total_{0};
    std::atomic<std::uint64_t> commands_total_{0};
    std::atomic<std::uint64_t> commands_retried_{0};
    std::atomic<std::uint64_t> batch_conflict_reruns_{0};
    std::minstd_rand conflict_random_{std::random_device{}()};
    std::atomic<std::uint64_t> optimistic_refusals_{0};
    std::atomic<std::uint64_t> round_trips_total_{0};
    std::atomic<std::uint64_t> statements_total_{0};
    std::atomic<std::uint64_t> outcomes_committed_{0};
    std::atomic<std::uint64_t> outcomes_not_committed_{0};
    std::atomic<std::uint64_t> outcomes_unknown_{0};
};

}  // namespace corridor
