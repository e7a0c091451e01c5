#pragma once
// How the ledger writer sends a batch's transaction control and its flush. On PostgreSQL each wait
// for an answer is a network round trip, so control statements that follow each other go out as one
// multi-statement query, and the flush, the last release and COMMIT go out together in libpq's
// pipeline mode: one round trip for all. A pipelined INSERT with parameters, and an UPDATE or
// SELECT marked `prepared`, is prepared on the connection the first time it is sent and executed by
// name after that, so the server parses and plans it once per connection, not once per payment
// (other UPDATEs and SELECTs are planned afresh each time). soci
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
// batch in one INSERT), never prepared under a name. `prepared`: an UPDATE or SELECT prepared under
// a name, for a lookup by primary key whose plan must be an index scan at every table size: it is
// executed with sequential scans disabled for that statement (SET LOCAL enable_seqscan = off before
// it, RESET after it, in the same pipeline), so the one generic plan PostgreSQL keeps for it is
// made as an index scan even when the table is small (where a sequential scan costs less on paper,
// and costs more and more as the hot rows' dead versions pile up). Only inside a transaction (a
// ROLLBACK TO a savepoint made between the two brings them back off for the rest of the
// transaction: the writer's statements are point lookups, which lose nothing by it).
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
