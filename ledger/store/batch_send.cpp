#include "ledger/store/batch_send.hpp"

#include <libpq-fe.h>
#include <soci/postgresql/soci-postgresql.h>

#include <memory>

#include "ledger/store/control_queue.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/deferred_writes.hpp"
#include "ledger/store/statement_cache.hpp"

namespace corridor {
namespace {

PGconn* connection_of(soci::session& session) {
    return static_cast<soci::postgresql_session_backend*>(session.get_backend())->conn_;
}

struct result_closer {
    void operator()(PGresult* result) const noexcept { PQclear(result); }
};
using result_ptr = std::unique_ptr<PGresult, result_closer>;

[[noreturn]] void fail(PGconn* connection, const PGresult* result, const std::string& what) {
    const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
    std::string message = result ? PQresultErrorMessage(result) : PQerrorMessage(connection);
    throw soci::postgresql_soci_error(what + ": " + message, state ? state : "08006");
}

// Sends control statements as one query; updates nothing else.
void send_controls(PGconn* connection, const std::vector<const char*>& controls) {
    std::string joined;
    for (const char* sql : controls) {
        if (!joined.empty()) joined += "; ";
        joined += sql;
    }
    count_round_trip(controls.size());
    result_ptr result(PQexec(connection, joined.c_str()));
    if (!result || PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
        fail(connection, result.get(), "transaction control failed");
    }
}

thread_local soci::session* queue_session = nullptr;
thread_local std::vector<const char*>* queue = nullptr;

}  // namespace

control_queue_scope::control_queue_scope(soci::session& session,
                                         std::vector<const char*>& pending) {
    queue_session = &session;
    queue = &pending;
}

control_queue_scope::~control_queue_scope() {
    queue_session = nullptr;
    queue = nullptr;
}

bool control_queue_active(soci::session& session) {
    return queue_session == &session;
}

bool queue_control(soci::session& session, const char* sql) {
    if (queue_session != &session) return false;
    std::string_view text(sql);
    if (!text.starts_with("SAVEPOINT ") && !text.starts_with("RELEASE SAVEPOINT ") &&
        !text.starts_with("ROLLBACK TO SAVEPOINT ")) {
        return false;
    }
    queue->push_back(sql);
    return true;
}

void send_queued_controls(soci::session& session) {
    if (queue_session != &session || queue->empty()) return;
    std::vector<const char*> controls;
    controls.swap(*queue);
    send_controls(connection_of(session), controls);
}

void run_controls(soci::session& session, const std::vector<const char*>& controls) {
    if (controls.empty()) return;
    deferred_writes* deferred = deferred_writes_of(session);
    if (backend_of(session) == database_backend::sqlite || controls.size() == 1) {
        for (const char* sql : controls) run_control(session, sql);
        return;
    }
    send_controls(connection_of(session), controls);
    if (deferred) {
        for (const char* sql : controls) deferred->on_control(sql);
    }
}

namespace {

// Sends `statements` in pipeline mode and waits once for all answers; `answers`, when given,
// receives the first column of each one's first row.
void send_pipeline(PGconn* connection, const std::vector<pipelined_statement>& statements,
                   std::vector<std::optional<std::string>>* answers) {
    if (PQenterPipelineMode(connection) != 1) fail(connection, nullptr, "pipeline mode");
    // Leaves pipeline mode however this ends (it fails while results are still unread only when the
    // connection broke, which the writer's next use of the session reports).
    struct pipeline_exit {
        PGconn* connection;
        ~pipeline_exit() { PQexitPipelineMode(connection); }
    } exit{connection};
    count_round_trip(statements.size());
    for (const auto& statement : statements) {
        std::vector<const char*> values;
        values.reserve(statement.params.size());
        for (const auto& param : statement.params) values.push_back(param.c_str());
        if (PQsendQueryParams(connection, statement.sql.c_str(), static_cast<int>(values.size()),
                              nullptr, values.data(), nullptr, nullptr, 0) != 1) {
            fail(connection, nullptr, "pipeline send");
        }
    }
    if (PQpipelineSync(connection) != 1) fail(connection, nullptr, "pipeline sync");
    // Every statement's answer (a result, then null), then the sync point's. The first failure is
    // kept; the statements after it come back aborted.
    result_ptr failure;
    for (std::size_t i = 0; i < statements.size(); ++i) {
        while (true) {
            result_ptr result(PQgetResult(connection));
            if (!result) break;
            auto status = PQresultStatus(result.get());
            if (answers && status == PGRES_TUPLES_OK && PQntuples(result.get()) > 0 &&
                PQnfields(result.get()) > 0 && !PQgetisnull(result.get(), 0, 0)) {
                (*answers)[i] = std::string(PQgetvalue(result.get(), 0, 0));
            }
            if (status == PGRES_FATAL_ERROR && !failure) failure = std::move(result);
            if (status == PGRES_PIPELINE_SYNC) fail(connection, nullptr, "pipeline ended early");
        }
        if (PQstatus(connection) == CONNECTION_BAD) fail(connection, nullptr, "pipeline");
    }
    result_ptr sync(PQgetResult(connection));
    if (!sync || PQresultStatus(sync.get()) != PGRES_PIPELINE_SYNC) {
        fail(connection, failure.get(), "pipeline sync");
    }
    if (failure) fail(connection, failure.get(), "pipelined statement failed");
}

}  // namespace

void run_pipeline(soci::session& session, const std::vector<pipelined_statement>& statements) {
    if (statements.empty()) return;
    send_pipeline(connection_of(session), statements, nullptr);
}

std::vector<std::optional<std::string>> run_pipeline_answers(
    soci::session& session, const std::vector<pipelined_statement>& statements) {
    // The waiting savepoint statements go first, in the same pipeline (the deferred writes have
    // followed them already, when they were queued).
    std::vector<pipelined_statement> all;
    if (queue_session == &session) {
        for (const char* sql : *queue) all.push_back({sql, {}});
        queue->clear();
    }
    std::size_t controls = all.size();
    all.insert(all.end(), statements.begin(), statements.end());
    std::vector<std::optional<std::string>> answers(all.size());
    if (!all.empty()) send_pipeline(connection_of(session), all, &answers);
    answers.erase(answers.begin(), answers.begin() + static_cast<std::ptrdiff_t>(controls));
    return answers;
}

}  // namespace corridor
