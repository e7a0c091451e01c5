#include "ledger/store/ledger_writer.hpp"

#include <soci/postgresql/soci-postgresql.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <random>
#include <string>

#include "ledger/base/assert.hpp"
#include "ledger/base/thread_name.hpp"
#include "ledger/store/batch_send.hpp"
#include "ledger/store/control_queue.hpp"
#include "ledger/store/outbox.hpp"
#include "ledger/store/statement_cache.hpp"

namespace corridor {
namespace {

// About 4 MiB of 4 KiB pages before a background checkpoint starts; the writer checkpoints on its
// own only if the WAL reaches about 256 MiB.
constexpr int wal_frames_soft_max = 1000;
constexpr int wal_frames_hard_max = 65536;

// The marker of a batch, in its transaction (sent with its COMMIT); the database's clock dates it
// for pruning. Only a transaction that wrote something (it has a transaction id) gets one: the
// upkeep batches of an idle process (due reviews, rail operations, retention) usually write
// nothing, and a marker would make each of their COMMITs a WAL flush. The outcome of a batch
// that wrote nothing does not matter: looked up after a lost COMMIT, it is fenced and answered as
// not committed, which is true of everything it did.
constexpr const char* insert_marker_pipelined_sql =
    "INSERT INTO ledger_batches (id, committed_at_ms) "
    "SELECT $1, CAST(extract(epoch from clock_timestamp()) * 1000 AS BIGINT) "
    "WHERE txid_current_if_assigned() IS NOT NULL";
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

// Adds what this thread sent to the database while it lives (a failed batch included) to the
// writer's counters.
class traffic_meter {
public:
    traffic_meter(std::atomic<std::uint64_t>& round_trips, std::atomic<std::uint64_t>& statements)
        : round_trips_(round_trips), statements_(statements), start_(this_thread_traffic) {}
    ~traffic_meter() {
        round_trips_.fetch_add(this_thread_traffic.round_trips - start_.round_trips,
                               std::memory_order_relaxed);
        statements_.fetch_add(this_thread_traffic.statements - start_.statements,
                              std::memory_order_relaxed);
    }
    traffic_meter(const traffic_meter&) = delete;
    traffic_meter& operator=(const traffic_meter&) = delete;

private:
    std::atomic<std::uint64_t>& round_trips_;
    std::atomic<std::uint64_t>& statements_;
    database_traffic start_;
};

}  // namespace

namespace {

// Thrown when a command met transient contention (a deadlock) after earlier commands of its batch
// had taken row locks: rolling back to its savepoint keeps those, and the other transaction of the
// cycle may be waiting on one of them, so the retry would meet the same deadlock. The whole batch
// is rolled back (releasing every lock, so the other side commits) and run again.
struct batch_conflict : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The batch's transaction as the writer sends it. Control statements wait in `pending` and go out
// together with the next ones (BEGIN with the first command's savepoint, a command's release with
// the next one's savepoint); the last ones, the flush of deferred writes and COMMIT go out
// together at the end: on PostgreSQL one round trip per command for its control instead of two,
// and one round trip for the flush and the commit.
class batch_transaction {
public:
    explicit batch_transaction(soci::session& session)
        : session_(session), sqlite_(backend_of(session) == database_backend::sqlite) {
        if (sqlite_) {
            run_control(session_, "BEGIN IMMEDIATE");
        } else {
            pending_.push_back({"BEGIN", {}, no_guarded_slot, false, {}, 0});
            queue_.emplace(session_, pending_);
        }
    }
    ~batch_transaction() {
        if (!open_) return;
        // Nothing went out yet (BEGIN still queued): no transaction to roll back on the server
        // (the deferred writes are cleared with their scope).
        bool begun = sqlite_ || pending_.empty() || pending_.front().sql != "BEGIN";
        queue_.reset();
        pending_.clear();
        outbox_rolled_back_on_this_thread();
        if (!begun) return;
        try {
            run_control(session_, "ROLLBACK");
        } catch (...) {
            // The connection is broken; the database discards the transaction on its side.
        }
    }
    batch_transaction(const batch_transaction&) = delete;
    batch_transaction& operator=(const batch_transaction&) = delete;

    // Queued on PostgreSQL until the next statement (control_queue.hpp), run at once on SQLite.
    void control(const char* sql) { run_control(session_, sql); }
    // `marker` (PostgreSQL): a statement sent just before COMMIT.
    void commit(deferred_writes* deferred, const pipelined_statement* marker);

private:
    soci::session& session_;
    bool sqlite_;
    bool open_ = true;
    std::vector<queued_statement> pending_;
    std::optional<control_queue_scope> queue_;
};

void batch_transaction::commit(deferred_writes* deferred, const pipelined_statement* marker) {
    bool events = outbox_events_pending_on_this_thread();
    if (sqlite_) {
        if (deferred) deferred->flush(session_);
        run_control(session_, "COMMIT");
    } else {
        // What is still queued (already applied to the deferred writes), the flush, COMMIT.
        // The optimistic attempt's guarded statements went out before (send_guarded).
        CORRIDOR_ASSERT(!guarded_queued(session_));
        queue_.reset();
        std::vector<pipelined_statement> statements;
        for (auto& entry : pending_) statements.push_back({std::move(entry.sql), {}});
        pending_.clear();
        if (deferred) deferred->append_flush(statements);
        // NOTIFY is delivered at COMMIT, once per transaction however many events.
        if (marker) statements.push_back(*marker);
        if (events) statements.push_back({outbox_notify_sql, {}});
        statements.push_back({"COMMIT", {}});
        try {
            run_pipeline(session_, statements);
        } catch (const soci::postgresql_soci_error& error) {
            // bigint out of range: a service account's summed postings pass its ceiling.
            if (deferred && error.sqlstate() == "22003") throw deferred_overflow(error.what());
            // division by zero: a platform configuration the batch applied has changed since it
            // was read (writer_facts.hpp; nothing else in the pipeline divides).
            if (deferred && error.sqlstate() == "22012" && deferred->facts().has_config_checks())
                throw stale_platform_config(error.what());
            throw;
        }
    }
    open_ = false;
    if (deferred) deferred->committed();
    if (events) outbox_committed_on_this_thread();
}

}  // namespace

ledger_writer::ledger_writer(database_url url, std::size_t batch_commands_max,
                             std::size_t queue_commands_max, std::int64_t outcome_lookup_timeout_ms)
    : url_(std::move(url)),
      outcome_lookup_timeout_ms_(outcome_lookup_timeout_ms),
      batch_commands_max_(batch_commands_max),
      queue_commands_max_(queue_commands_max) {
    if (url_.backend == database_backend::sqlite) {
        checkpointer_ =
            std::make_unique<wal_checkpointer>(url_, wal_frames_soft_max, wal_frames_hard_max);
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

ledger_writer::~ledger_writer() {
    stop();
}

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
    // batch; a larger page cache than the default 2 MiB keeps them in memory instead of rereading
    // them from the WAL. Not much larger: each commit's end costs more with a larger cache (64 MiB
    // spent about 4-8 us more of the writer's CPU per payment than 8 MiB; 2 MiB 5-9 us more).
    session << "PRAGMA cache_size=-8192";
    checkpointer_->watch(session);
}

void ledger_writer::apply_batch(soci::session& session,
                                std::vector<std::unique_ptr<session_job>>& batch,
                                std::vector<bool>& applied) {
    CORRIDOR_ASSERT(!batch.empty());
    CORRIDOR_ASSERT(batch.size() <= batch_commands_max_);
    CORRIDOR_ASSERT(applied.size() == batch.size());
    {
        // Counted before any command is told its outcome (and also when the batch fails).
        traffic_meter meter(round_trips_total_, statements_total_);
        bool defer = true;
        // PostgreSQL: first without waiting for guarded statements (deferred_writes.hpp).
        bool optimistic = markers_;
        bool rerun_on_conflict = true;
        int conflict_reruns = 0;
        for (int attempt = 1;; ++attempt) {
            try {
                run_batch(session, batch, applied, defer, optimistic, rerun_on_conflict);
                break;
            } catch (const batch_conflict&) {
                // After a few reruns each command retries on its own savepoint, as when alone.
                if (++conflict_reruns >= batch_conflict_reruns_max) rerun_on_conflict = false;
                batch_conflict_reruns_.fetch_add(1, std::memory_order_relaxed);
                commands_retried_.fetch_add(batch.size(), std::memory_order_relaxed);
                conflict_pause();
            } catch (const optimistic_refusal&) {
                // A debit refused, a condition failed, or their pipeline failed: the batch again,
                // each command waiting for its answers, so that a refused one gets the answer it
                // always got (insufficient balance, deleted customer, KYC...) and the others go on.
                optimistic = false;
                optimistic_refusals_.fetch_add(1, std::memory_order_relaxed);
            } catch (const deferred_overflow&) {
                // A service account near its posted ceiling (rare): the batch again, each posting
                // checked on its own, so that only a command that does not fit fails.
                defer = false;
            } catch (const stale_platform_config&) {
                // Another process changed a platform's configuration: the batch again with
                // configurations read afresh; should they keep changing, without the cache (each
                // command reads its own, as it did before the cache).
                deferred_.facts().forget_configs();
                if (attempt >= 2) defer = false;
            }
            applied.assign(batch.size(), false);
        }
    }
    {
        finish_scope finishing;  // each io thread woken once for the batch
        for (std::size_t i = 0; i < batch.size(); ++i) {
            batch[i]->finish(applied[i] ? job_outcome::committed : job_outcome::rolled_back);
        }
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

void ledger_writer::run_batch(soci::session& session,
                              std::vector<std::unique_ptr<session_job>>& batch,
                              std::vector<bool>& applied, bool defer, bool optimistic,
                              bool rerun_on_conflict) {
    // Writes nothing reads back wait for one flush before the commit (deferred_writes.hpp).
    std::optional<deferring_scope> deferring;
    if (defer) deferring.emplace(session, deferred_);
    if (defer) deferred_.set_optimistic(optimistic);
    batch_transaction transaction(session);
    for (std::size_t i = 0; i < batch.size(); ++i) {
        for (int attempt = 1; attempt <= command_attempts_max; ++attempt) {
            transaction.control("SAVEPOINT command");
            std::uint64_t conditions_before = deferred_.conditions_added();
            std::uint64_t dropped_before = deferred_.conditions_dropped();
            applied[i] = batch[i]->run(session);
            // A refusal seen while this command ran (its queue went out) ends the attempt: what
            // any command did since rests on a debit that did not happen.
            if (defer && deferred_.refused())
                throw optimistic_refusal("a guarded statement refused");
            // A command that failed after taking a customer's state as a condition (not read),
            // or answered an error and rolled its request back: which failure it reports depends
            // on that state (a deleted customer's payment is refused as such before its amount is
            // checked), so it runs again reading it.
            if (defer && ((!applied[i] && deferred_.conditions_added() != conditions_before) ||
                          deferred_.conditions_dropped() != dropped_before)) {
                throw optimistic_refusal("a command with unchecked conditions failed");
            }
            if (applied[i]) {
                transaction.control("RELEASE SAVEPOINT command");
                break;
            }
            transaction.control("ROLLBACK TO SAVEPOINT command");
            transaction.control("RELEASE SAVEPOINT command");
            if (!batch[i]->retryable()) break;
            if (rerun_on_conflict && holds_locks(applied, i))
                throw batch_conflict("a command met contention behind earlier commands' locks");
            if (attempt < command_attempts_max)
                commands_retried_.fetch_add(1, std::memory_order_relaxed);
        }
    }
    // The optimistic attempt's guarded statements, with BEGIN when nothing went out before: one
    // round trip, their answers read once, then the events they complete join the flush.
    if (defer && optimistic) {
        try {
            send_queued_guarded(session);
        } catch (const soci::soci_error& error) {
            // A deadlock or any other failure of the pipeline on a live connection: the batch
            // again, each command on its own (a lost connection fails the batch as before).
            if (!connection_alive(session)) throw;
            throw optimistic_refusal(error.what());
        }
        if (deferred_.refused()) throw optimistic_refusal("a guarded statement refused");
    }
    // The batch's marker goes with its COMMIT (in the same pipeline on PostgreSQL): a COMMIT that
    // loses its connection is settled by looking the marker up (finish_failed_batch).
    std::optional<pipelined_statement> marker;
    if (markers_)
        marker = pipelined_statement{insert_marker_pipelined_sql, {std::to_string(marker_)}};
    commit_started_ = true;
    transaction.commit(defer ? &deferred_ : nullptr,
                       marker ? &*marker : nullptr);  // one durable commit
}

// Whether a command before `i` applied in this transaction (and so may hold row locks).
bool ledger_writer::holds_locks(const std::vector<bool>& applied, std::size_t i) {
    for (std::size_t j = 0; j < i; ++j) {
        if (applied[j]) return true;
    }
    return false;
}

// A short random pause before a batch runs again after a conflict, so that two writers that
// deadlocked do not meet again in step.
void ledger_writer::conflict_pause() {
    std::uniform_int_distribution<int> pause_us(0, conflict_pause_us_max);
    std::this_thread::sleep_for(std::chrono::microseconds(pause_us(conflict_random_)));
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
