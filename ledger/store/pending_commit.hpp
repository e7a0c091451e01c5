#pragma once
// A COMMIT sent without waiting for its answer. On PostgreSQL a commit's answer comes once its WAL
// is on disk; a caller with a second connection (the bulk import) writes its next transaction there
// in the meantime instead of waiting. Nothing else may use the session until the commit is settled.
#include <soci/soci.h>

namespace corridor {

class write_transaction;

class pending_commit {
public:
    pending_commit() = default;
    pending_commit(pending_commit&& other) noexcept;
    pending_commit& operator=(pending_commit&& other) noexcept;
    pending_commit(const pending_commit&) = delete;
    pending_commit& operator=(const pending_commit&) = delete;
    // Waits for the answer and forgets a failure: the transaction then did not commit, which a
    // caller unwinding from another failure does not need to know.
    ~pending_commit();

    // Commits `transaction`: on PostgreSQL sends the COMMIT and returns without its answer (when
    // the transaction recorded events, or on SQLite or in a savepoint, it commits as
    // write_transaction::commit does, and the result is already settled).
    static pending_commit send(write_transaction& transaction, soci::session& session);

    // Waits for the answer; throws postgresql_soci_error when the transaction did not commit.
    // Nothing to do when settled already.
    void settle();
    bool settled() const { return session_ == nullptr; }

private:
    explicit pending_commit(soci::session& session) : session_(&session) {}
    soci::session* session_ = nullptr;
};

}  // namespace corridor
