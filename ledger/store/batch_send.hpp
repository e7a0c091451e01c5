#pragma once
// How the ledger writer sends a batch's transaction control and its flush. On PostgreSQL each wait
// for an answer is a network round trip, so control statements that follow each other go out as one
// multi-statement query, and the flush, the last release and COMMIT go out together in libpq's
// pipeline mode: one round trip for all. A pipelined INSERT with parameters is prepared on the
// connection the first time it is sent and executed by name after that, so the server parses it
// once per connection, not once per payment (UPDATEs and SELECTs keep a fresh plan each time). soci
// has neither (it sends one statement and waits for its answer), so this is the one place that
// talks to libpq directly. On SQLite, where a round trip is a call into the library, run_controls
// runs each statement as run_control does.
#include <soci/soci.h>

#include <optional>
#include <string>
#include <vector>

namespace corridor {

// Runs transaction-control statements (string literals: BEGIN, SAVEPOINT, RELEASE SAVEPOINT,
// ROLLBACK TO SAVEPOINT...) in order, as run_control would one by one, in one round trip on
// PostgreSQL.
void run_controls(soci::session& session, const std::vector<const char*>& controls);

// A statement with text parameters ($1, $2...). `one_off`: a text sent once (several rows of a
// batch in one INSERT), never prepared under a name. `prepared`: prepared under a name although
// not an INSERT (a lookup by primary key of rows that are not hot, whose generic plan is safe).
struct pipelined_statement {
    std::string sql;
    std::vector<std::string> params;
    bool one_off = false;
    bool prepared = false;
};

// PostgreSQL only: sends every statement, then waits once for all the answers. The server runs
// them in order and skips the rest after one fails: this throws postgresql_soci_error (with its
// SQLSTATE) for the first failure, so a COMMIT at the end commits only when everything before it
// succeeded.
void run_pipeline(soci::session& session, const std::vector<pipelined_statement>& statements);

// PostgreSQL only, in the writer's batch: the savepoint statements still waiting
// (control_queue.hpp) and then `statements`, in one round trip; for each of `statements`, the first
// column of its first row (nullopt when it returned none). Fails as run_pipeline does.
std::vector<std::optional<std::string>> run_pipeline_answers(
    soci::session& session, const std::vector<pipelined_statement>& statements);

}  // namespace corridor
