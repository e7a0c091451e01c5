#pragma once
// The libraries under soci, for the few paths of ledger/store that call them directly (pipelines,
// COPY, multi-row SQLite statements): a session's native connection, and a failure built as soci
// builds one, so that callers tell errors apart as they do for soci's own (is_unique_violation
// reads SQLite's result code and message, is_database_unavailable PostgreSQL's SQLSTATE).
#include <libpq-fe.h>
#include <soci/postgresql/soci-postgresql.h>
#include <soci/sqlite3/soci-sqlite3.h>

#include <memory>
#include <string>
#include <string_view>

namespace corridor {

inline PGconn* postgres_connection(soci::session& session) {
    return static_cast<soci::postgresql_session_backend*>(session.get_backend())->conn_;
}

inline sqlite_api::sqlite3* sqlite_connection(soci::session& session) {
    return static_cast<soci::sqlite3_session_backend*>(session.get_backend())->conn_;
}

struct pg_result_closer {
    void operator()(PGresult* result) const noexcept { PQclear(result); }
};
using pg_result_ptr = std::unique_ptr<PGresult, pg_result_closer>;

// "context: message", with the result's SQLSTATE (08006, a broken connection, when there is no
// result to read it from).
inline soci::postgresql_soci_error postgres_failure(PGconn* connection, const PGresult* result,
                                                    std::string_view context) {
    const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
    std::string message = result ? PQresultErrorMessage(result) : PQerrorMessage(connection);
    return soci::postgresql_soci_error(std::string(context) + ": " + message,
                                       state ? state : "08006");
}

// "message while context.", with the connection's extended result code; read before the failed
// statement is finalized.
inline soci::sqlite3_soci_error sqlite_failure(sqlite_api::sqlite3* connection,
                                               std::string_view context) {
    return soci::sqlite3_soci_error(std::string(sqlite_api::sqlite3_errmsg(connection)) +
                                        " while " + std::string(context) + ".",
                                    sqlite_api::sqlite3_extended_errcode(connection));
}

}  // namespace corridor
