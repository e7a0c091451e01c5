#pragma once
// Transaction control that waits for the next statement. In a ledger batch on PostgreSQL a command
// opens savepoints (its own, its request's, a nested write_transaction's) and releases them around
// a few statements; sent one by one, each costs a round trip. While a control_queue_scope lives,
// run_control on its session only queues SAVEPOINT, RELEASE SAVEPOINT and ROLLBACK TO SAVEPOINT
// (after updating the deferred writes, which follow them in order), and everything queued goes out
// as one multi-statement query just before the next statement the session sends: soci's
// statement_cache_of (every cached statement) and the session's logger (every statement soci
// prepares) call send_queued_controls. What is still queued at the end goes into the commit's
// pipeline. A statement prepared before a queued control and executed after it would run ahead
// of it, so code on the writer prepares and executes its statements together (all of ledger/
// does: run_prepared, fetch_prepared, session << sql).
//
// A savepoint whose SAVEPOINT is still queued when it is released or rolled back to has had no
// statement executed inside it on the server: every statement since is still queued behind it. So
// a rollback to it drops what is queued behind it (never sent, so nothing to undo), and a release
// takes the SAVEPOINT back out of the queue and is not sent either, when only guarded statements
// (below) follow it (they then run in the enclosing transaction, where nothing can roll back to
// the released savepoint any more). A command whose writes all wait for the flush costs no
// savepoint statement at all. A rollback to a savepoint sent earlier drops the guarded statements
// still queued (all made inside it) and is sent.
//
// In the optimistic attempt of a batch (deferred_writes.hpp) the queue also carries guarded
// statements (a conditional UPDATE or SELECT that must return a row), in order with the control
// statements around them. They go out in one pipeline with the queue, whose answers are read once:
// each guarded statement's answer goes to its slot in the batch's deferred writes, and one that
// returned no row (or a failure of the pipeline) marks the attempt refused there.
#include <soci/soci.h>

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace corridor {

inline constexpr std::size_t no_guarded_slot = std::numeric_limits<std::size_t>::max();

// A statement waiting in the queue: transaction control (no parameters, no slot) or a guarded
// statement with its parameters ($1, $2...) and its slot in the batch's deferred writes.
struct queued_statement {
    std::string sql;
    std::vector<std::string> params;
    std::size_t guarded_slot = no_guarded_slot;
    bool prepared = false;  // pipelined_statement::prepared
    // A condition's check: what it proves (row_condition::subject and level).
    std::string subject;
    int level = 0;
};

struct row_condition;
class deferred_writes;

class control_queue_scope {
public:
    control_queue_scope(soci::session& session, std::vector<queued_statement>& pending);
    ~control_queue_scope();
    control_queue_scope(const control_queue_scope&) = delete;
    control_queue_scope& operator=(const control_queue_scope&) = delete;
};

// Whether control on `session` is being queued (the session is then inside the writer's batch
// transaction, even before its BEGIN has gone out).
bool control_queue_active(soci::session& session);
// Queues `sql` when a scope is active for the session and it is a savepoint statement; false
// when the caller must send it itself.
bool queue_control(soci::session& session, const char* sql);
// Queues a guarded statement whose answer goes to `slot` of the session's deferred writes; false
// when no scope is active for the session.
bool queue_guarded(soci::session& session, std::string sql, std::vector<std::string> params,
                   std::size_t slot, bool prepared = false);
// Queues the checks of `conditions` (taken together for one debit, or for the end of the queue),
// each a guarded statement of its own, all answering to `deferred`; but one check per subject (its
// strongest condition, which implies the others), and none for a subject whose check is queued
// already at the same level or above: that one runs first, in the same transaction, and only
// guarded statements and savepoints (which change no customer) run between the two (a payment's
// customers are checked once per batch, not once per payment). A check sent already is not
// reused: statements the session ran since may have changed its row.
void queue_condition_checks(soci::session& session, deferred_writes& deferred,
                            std::vector<row_condition> conditions);
// Whether a guarded statement waits in the session's queue.
bool guarded_queued(soci::session& session);
// Sends what is queued for the session, if anything, in one round trip.
void send_queued_controls(soci::session& session);
// Sends the queue when a guarded statement or a pending condition waits, in one round trip.
void send_queued_guarded(soci::session& session);

}  // namespace corridor
