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
#include <soci/soci.h>

#include <vector>

namespace corridor {

class control_queue_scope {
public:
    control_queue_scope(soci::session& session, std::vector<const char*>& pending);
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
// Sends what is queued for the session, if anything, in one round trip.
void send_queued_controls(soci::session& session);

}  // namespace corridor
