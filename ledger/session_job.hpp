#pragma once
// Work that runs on a thread owning a database session: a database-pool thread for ordinary reads
// and writes, or the ledger writer for money. Completion is reported only when the work is durable.
#include <memory>

#include <soci/soci.h>

namespace corridor {

struct session_job {
    virtual ~session_job() = default;
    // Does the work on the session. Returns false when its effects must be rolled back (the ledger
    // writer then undoes them) or the session may be broken (a pool thread then reopens it).
    virtual bool run(soci::session& session) noexcept = 0;
    // Called once: durable = true after the work's transaction committed, false when it did not
    // (rolled back, a failed commit, or the job was refused before running).
    virtual void finish(bool durable) noexcept = 0;
    // After run() returned false: whether the failure was transient contention (a deadlock or
    // serialization failure between processes sharing PostgreSQL) that running again may resolve.
    virtual bool retryable() const noexcept { return false; }
};

class session_executor {
public:
    virtual ~session_executor() = default;
    virtual void submit(std::unique_ptr<session_job> job) = 0;
};

}  // namespace corridor
