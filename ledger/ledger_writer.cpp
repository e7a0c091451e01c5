#include "ledger/ledger_writer.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>

#include "ledger/assert.hpp"
#include "ledger/statement_cache.hpp"
#include "ledger/thread_name.hpp"

namespace corridor {
namespace {

// About 4 MiB of 4 KiB pages before a background checkpoint starts; the writer checkpoints on its
// own only if the WAL reaches about 256 MiB.
constexpr int wal_frames_soft_max = 1000;
constexpr int wal_frames_hard_max = 65536;

// The marker of a batch, in its transaction; the database's clock dates it for pruning.
constexpr const char* insert_marker_sql =
    "INSERT INTO ledger_batches (id, committed_at_ms) "
    "VALUES (:m, CAST(extract(epoch from clock_timestamp()) * 1000 AS BIGINT))";
// The lookup after a lost COMMIT: inserting the same id waits until the batch's transaction has
// ended (its uncommitted row holds the key), then either meets its committed row (fenced = 0
// comes back) or, the batch having rolled back, inserts a fence (fenced = 1) that settles it.
constexpr const char* fence_marker_sql =
    "INSERT INTO ledger_batches (id, committed_at_ms, fenced) "
    "VALUES (:m, CAST(extract(epoch from clock_timestamp()) * 1000 AS BIGINT), 1) "
    "ON CONFLICT (id) DO UPDATE SET fenced = ledger_batches.fenced RETURNING fenced";
constexpr const char* prune_markers_sql =
    "DELETE FROM ledger_batches WHERE id IN (SELECT id FROM ledger_batches WHERE committed_at_ms < "
    "CAST(extract(epoch from clock_timestamp()) * 1000 AS BIGINT) - :r LIMIT 100000 FOR UPDATE "
    "SKIP LOCKED)";

std::uint64_t mix(std::uint64_t value) {  // splitmix64's finaliser
    value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
    value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
    return value ^ (value >> 31);
}

std::int64_t steady_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

ledger_writer::ledger_writer(database_url url, std::size_t batch_commands_max,
                             std::size_t queue_commands_max, std::int64_t outcome_lookup_timeout_ms)
    : url_(std::move(url)),
      outcome_lookup_timeout_ms_(outcome_lookup_timeout_ms),
      batch_commands_max_(batch_commands_max),
      queue_commands_max_(queue_commands_max) {
    if (url_.backend == database_backend::sqlite) {
        checkpointer_ = std::make_unique<wal_checkpointer>(url_, wal_frames_soft_max, wal_frames_hard_max);
    } else {
        markers_ = true;
        std::random_device seed;
        marker_seed_[0] = (std::uint64_t{seed()} << 32) ^ seed();
        marker_seed_[1] = (std::uint64_t{seed()} << 32) ^ seed();
    }
    CORRIDOR_ASSERT(batch_commands_max_ >= 1);
    CORRIDOR_ASSERT(queue_commands_max_ >= batch_commands_max_);
    thread_ = std::thread([this] {
        name_this_thread("ledger-writer");
        worker();
    });
}

ledger_writer::~ledger_writer() { stop(); }

void ledger_writer::submit(std::unique_ptr<session_job> job) {
    {
        std::lock_guard lock(mutex_);
        if (!stopping_ && queue_.size() < queue_commands_max_) {
            queue_.push_back(std::move(job));
            ready_.notify_one();
            return;
        }
    }
    job->finish(job_outcome::not_committed);  // refused: shutting down, or the queue is full
}

void ledger_writer::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    ready_.notify_all();
    if (thread_.joinable()) thread_.join();
}

std::size_t ledger_writer::queue_depth() const {
    std::lock_guard lock(mutex_);
    return queue_.size();
}

void ledger_writer::worker() {
    session_ptr session;
    std::vector<std::unique_ptr<session_job>> batch;
    std::vector<bool> applied;
    batch.reserve(batch_commands_max_);
    while (true) {
        {
            std::unique_lock lock(mutex_);
            ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return;
            while (!queue_.empty() && batch.size() < batch_commands_max_) {
                batch.push_back(std::move(queue_.front()));
                queue_.pop_front();
            }
        }
        applied.assign(batch.size(), false);
        commit_started_ = false;
        if (markers_) marker_ = next_marker();
        try {
            if (!session) {
                session = open_session(url_);
                configure_session(*session);
            }
            apply_batch(*session, batch, applied);
        } catch (const std::exception& error) {
            finish_failed_batch(session, batch, applied, error);
        }
        if (markers_ && session && ++batches_since_prune_ >= marker_prune_interval_batches) {
            batches_since_prune_ = 0;
            prune_markers(*session);
            if (!connection_alive(*session)) session.reset();
        }
        batch.clear();
    }
}

void ledger_writer::configure_session(soci::session& session) {
    if (!checkpointer_) return;
    // The writer touches the same hot pages (service accounts, table and index tails) in every
    // batch; a larger page cache keeps them in memory instead of rereading them from the WAL.
    session << "PRAGMA cache_size=-65536";
    checkpointer_->watch(session);
}

void ledger_writer::apply_batch(soci::session& session,
                                std::vector<std::unique_ptr<session_job>>& batch,
                                std::vector<bool>& applied) {
    CORRIDOR_ASSERT(!batch.empty());
    CORRIDOR_ASSERT(batch.size() <= batch_commands_max_);
    CORRIDOR_ASSERT(applied.size() == batch.size());
    {
        write_transaction transaction(session);
        for (std::size_t i = 0; i < batch.size(); ++i) {
            for (int attempt = 1; attempt <= command_attempts_max; ++attempt) {
                run_control(session, "SAVEPOINT command");
                applied[i] = batch[i]->run(session);
                run_control(session, applied[i] ? "RELEASE SAVEPOINT command"
                                                : "ROLLBACK TO SAVEPOINT command");
                if (applied[i]) break;
                run_control(session, "RELEASE SAVEPOINT command");
                if (!batch[i]->retryable()) break;
                if (attempt < command_attempts_max) commands_retried_.fetch_add(1, std::memory_order_relaxed);
            }
        }
        if (markers_) run_prepared(session, insert_marker_sql, static_cast<long long>(marker_));
        commit_started_ = true;
        transaction.commit();  // one durable commit for the whole batch
    }
    for (std::size_t i = 0; i < batch.size(); ++i) {
        batch[i]->finish(applied[i] ? job_outcome::committed : job_outcome::rolled_back);
    }
    std::size_t bucket = batch_size_buckets.size();
    for (std::size_t i = 0; i < batch_size_buckets.size(); ++i) {
        if (batch.size() <= batch_size_buckets[i]) {
            bucket = i;
            break;
        }
    }
    batch_histogram_[bucket].fetch_add(1, std::memory_order_relaxed);
    batches_total_.fetch_add(1, std::memory_order_relaxed);
    commands_total_.fetch_add(batch.size(), std::memory_order_relaxed);
}

std::int64_t ledger_writer::next_marker() {
    std::uint64_t value = mix(marker_seed_[0] + mix(marker_seed_[1] ^ ++marker_counter_));
    return static_cast<std::int64_t>(value >> 1);  // positive: a BIGINT key
}

void ledger_writer::finish_failed_batch(session_ptr& session,
                                        std::vector<std::unique_ptr<session_job>>& batch,
                                        const std::vector<bool>& applied,
                                        const std::exception& error) {
    std::fprintf(stderr, "ledger writer: batch failed: %s\n", error.what());
    // Before COMMIT a failure leaves the transaction open on a connection that rolls it back (or
    // is gone): nothing committed. An error the server answered to COMMIT on a live connection is
    // its refusal. Only a connection lost at COMMIT leaves the outcome to be learnt.
    bool refused = !session;
    if (const auto* db_error = dynamic_cast<const soci::soci_error*>(&error); db_error && session) {
        refused = !is_database_unavailable(*session, *db_error);
    }
    if (!(markers_ && commit_started_ && !refused)) {
        for (auto& job : batch) job->finish(job_outcome::not_committed);
        session.reset();  // reopen: the connection may be what failed
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return;
    }
    session.reset();
    auto committed = look_up_outcome(session, marker_);
    if (!committed) {
        outcomes_unknown_.fetch_add(1, std::memory_order_relaxed);
        std::fprintf(stderr, "ledger writer: outcome of a batch of %zu commands is unknown\n",
                     batch.size());
        for (auto& job : batch) job->finish(job_outcome::unknown);
        return;
    }
    (*committed ? outcomes_committed_ : outcomes_not_committed_)
        .fetch_add(1, std::memory_order_relaxed);
    std::fprintf(stderr,
                 "ledger writer: a batch of %zu commands whose COMMIT lost its connection %s\n",
                 batch.size(), *committed ? "had committed" : "had not committed");
    for (std::size_t i = 0; i < batch.size(); ++i) {
        job_outcome outcome = !*committed  ? job_outcome::not_committed
                              : applied[i] ? job_outcome::committed
                                           : job_outcome::rolled_back;
        batch[i]->finish(outcome);
    }
}

std::optional<bool> ledger_writer::look_up_outcome(session_ptr& session, std::int64_t marker) {
    std::int64_t deadline_ms = steady_ms() + outcome_lookup_timeout_ms_;
    std::int64_t backoff_ms = 50;
    while (true) {
        try {
            if (!session) {
                session = open_session(url_);
                configure_session(*session);
            }
            // The fence waits for the lost transaction to end; while the old backend lingers (a
            // network cut it has not noticed) the wait is bounded and tried again.
            std::int64_t left_ms = std::max<std::int64_t>(deadline_ms - steady_ms(), 100);
            *session << ("SET lock_timeout = " +
                         std::to_string(std::min<std::int64_t>(left_ms, 5000)));
            long long id = marker;
            int fenced = -1;
            *session << fence_marker_sql, soci::use(id), soci::into(fenced);
            *session << "SET lock_timeout = 0";
            return fenced == 0;
        } catch (const std::exception& error) {
            std::fprintf(stderr, "ledger writer: looking up a batch's outcome: %s\n", error.what());
            if (session && !connection_alive(*session)) session.reset();
            if (session) {
                try {
                    *session << "SET lock_timeout = 0";
                } catch (const std::exception&) {
                    session.reset();
                }
            }
        }
        if (steady_ms() + backoff_ms > deadline_ms) return std::nullopt;
        std::this_thread::sleep_for(std::chrono::milliseconds(backoff_ms));
        backoff_ms = std::min<std::int64_t>(backoff_ms * 2, 1000);
    }
}

// Outside any batch, every marker_prune_interval_batches batches: one statement, skipping rows
// another process is deleting. A failure costs nothing but this round of pruning.
void ledger_writer::prune_markers(soci::session& session) {
    std::int64_t retention_ms = std::max(marker_retention_ms_min, 4 * outcome_lookup_timeout_ms_);
    try {
        run_prepared(session, prune_markers_sql, static_cast<long long>(retention_ms));
    } catch (const std::exception& error) {
        std::fprintf(stderr, "ledger writer: pruning batch markers: %s\n", error.what());
    }
}

}  // namespace corridor
