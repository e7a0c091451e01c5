#pragma once
// Work that runs on a thread owning a database session: a database-pool thread for ordinary reads
// and writes, or the ledger writer for money. Completion is reported only when the work's fate is
// known (or known to be unknowable).
#include <soci/soci.h>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace corridor {

// What became of a job. The HTTP layer answers each differently: only `committed` carries the
// job's own response; the others say whether retrying is safe.
enum class job_outcome {
    committed,      // its transaction committed (on the pool: run() returned)
    rolled_back,    // it ran and asked for its effects to be undone (run() returned false); the
                    // rest of its batch went on and committed
    not_committed,  // known not to have happened: refused before running (queue full, shutting
                    // down, no database) or its transaction did not commit
    unknown,        // the connection was lost during COMMIT and the outcome could not be learnt
                    // within ledger.outcome_lookup_timeout_ms
};

struct session_job {
    virtual ~session_job() = default;
    // Does the work on the session. Returns false when its effects must be rolled back (the ledger
    // writer then undoes them) or the session may be broken (a pool thread then reopens it).
    virtual bool run(soci::session& session) noexcept = 0;
    // Called once, with what became of the work.
    virtual void finish(job_outcome outcome) noexcept = 0;
    // After run() returned false: whether the failure was transient contention (a deadlock or
    // serialization failure between processes sharing PostgreSQL) that running again may resolve.
    virtual bool retryable() const noexcept { return false; }
};

// A thread finishing a batch of jobs (the ledger writer after a commit): a job whose completion
// goes to another thread may leave the wake-up of that thread to the end of the scope, so that
// the batch wakes each thread once rather than once per job (a system call each).
class finish_scope {
public:
    finish_scope() : outer_(std::exchange(current_, this)) {}
    ~finish_scope() {
        current_ = outer_;
        for (auto& [key, wake] : wakes_) wake();
    }
    finish_scope(const finish_scope&) = delete;
    finish_scope& operator=(const finish_scope&) = delete;

    // Runs `wake` when the current scope ends, once per key; false when this thread has none
    // (the caller wakes at once).
    static bool defer(const void* key, const std::function<void()>& wake) {
        if (!current_) return false;
        for (const auto& entry : current_->wakes_) {
            if (entry.first == key) return true;
        }
        current_->wakes_.emplace_back(key, wake);
        return true;
    }

private:
    inline static thread_local finish_scope* current_ = nullptr;
    finish_scope* outer_;
    std::vector<std::pair<const void*, std::function<void()>>> wakes_;
};

class session_executor {
public:
    virtual ~session_executor() = default;
    virtual void submit(std::unique_ptr<session_job> job) = 0;
};

}  // namespace corridor
