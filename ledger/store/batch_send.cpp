#include "ledger/store/batch_send.hpp"

#include <libpq-fe.h>
#include <soci/postgresql/soci-postgresql.h>

#include <memory>
#include <string_view>
#include <unordered_map>

#include "ledger/base/assert.hpp"
#include "ledger/store/control_queue.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/deferred_writes.hpp"
#include "ledger/store/native_connection.hpp"
#include "ledger/store/statement_cache.hpp"

namespace corridor {
namespace {

PGconn* connection_of(soci::session& session) { return postgres_connection(session); }

using result_ptr = pg_result_ptr;

[[noreturn]] void fail(PGconn* connection, const PGresult* result, const std::string& what) {
    throw postgres_failure(connection, result, what);
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
thread_local std::vector<queued_statement>* queue = nullptr;

bool is_control(const queued_statement& entry) {
    return entry.guarded_slot == no_guarded_slot;
}

// The position of the latest queued "SAVEPOINT name", or npos.
std::size_t queued_savepoint(std::string_view name) {
    for (std::size_t i = queue->size(); i-- > 0;) {
        std::string_view sql((*queue)[i].sql);
        if (is_control((*queue)[i]) && sql.starts_with("SAVEPOINT ") && sql.substr(10) == name)
            return i;
    }
    return std::string_view::npos;
}

// Whether everything queued after `at` is a guarded statement.
bool only_guarded_after(std::size_t at) {
    for (std::size_t i = at + 1; i < queue->size(); ++i) {
        if (is_control((*queue)[i])) return false;
    }
    return true;
}

// A release: true when it cancels its queued SAVEPOINT (see control_queue.hpp).
bool collapse_release(std::string_view name) {
    std::size_t at = queued_savepoint(name);
    if (at == std::string_view::npos || !only_guarded_after(at)) return false;
    queue->erase(queue->begin() + static_cast<std::ptrdiff_t>(at));
    return true;
}

// A rollback to a savepoint: what is queued after its SAVEPOINT was never sent, so it is dropped
// (true: nothing to send). With the SAVEPOINT sent earlier, every guarded statement still queued
// was made inside the savepoint and is dropped, its slot gone with the rollback in the deferred
// writes, and the rollback is sent (false).
bool collapse_rollback(std::string_view name) {
    std::size_t at = queued_savepoint(name);
    if (at != std::string_view::npos) {
        queue->resize(at + 1);  // the savepoint stays open, as after ROLLBACK TO
        return true;
    }
    std::erase_if(*queue, [](const queued_statement& entry) { return !is_control(entry); });
    return false;
}

}  // namespace

control_queue_scope::control_queue_scope(soci::session& session,
                                         std::vector<queued_statement>& pending) {
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
    constexpr std::string_view release = "RELEASE SAVEPOINT ", rollback = "ROLLBACK TO SAVEPOINT ";
    if (text.starts_with(release)) {
        if (collapse_release(text.substr(release.size()))) return true;
    } else if (text.starts_with(rollback)) {
        if (collapse_rollback(text.substr(rollback.size()))) return true;
    } else if (!text.starts_with("SAVEPOINT ")) {
        return false;
    }
    queue->push_back({sql, {}, no_guarded_slot, false, {}, 0});
    return true;
}

bool queue_guarded(soci::session& session, std::string sql, std::vector<std::string> params,
                   std::size_t slot, bool prepared) {
    if (queue_session != &session) return false;
    queue->push_back({std::move(sql), std::move(params), slot, prepared, {}, 0});
    return true;
}

namespace {

// Whether a check queued already proves `condition` (queue_condition_checks).
bool check_queued(const row_condition& condition) {
    if (condition.subject.empty()) return false;
    for (auto entry = queue->rbegin(); entry != queue->rend(); ++entry) {
        if (entry->level >= condition.level && entry->subject == condition.subject) return true;
    }
    return false;
}

// Whether another condition of `conditions` proves the one at `at`: one of a higher level on the
// same subject, or an earlier one of the same level.
bool implied_by_another(const std::vector<row_condition>& conditions, std::size_t at) {
    const row_condition& condition = conditions[at];
    if (condition.subject.empty()) return false;
    for (std::size_t i = 0; i < conditions.size(); ++i) {
        const row_condition& other = conditions[i];
        if (i == at || other.subject != condition.subject) continue;
        if (other.level > condition.level || (other.level == condition.level && i < at))
            return true;
    }
    return false;
}

}  // namespace

void queue_condition_checks(soci::session& session, deferred_writes& deferred,
                            std::vector<row_condition> conditions) {
    CORRIDOR_ASSERT(queue_session == &session);  // the optimistic attempt runs in the batch
    for (std::size_t i = 0; i < conditions.size(); ++i) {
        row_condition& condition = conditions[i];
        if (implied_by_another(conditions, i) || check_queued(condition)) continue;
        std::size_t slot = deferred.add_guarded("");
        queue->push_back({condition_check_sql(condition), std::move(condition.params), slot, true,
                          std::move(condition.subject), condition.level});
    }
}

bool guarded_queued(soci::session& session) {
    if (queue_session != &session) return false;
    for (const auto& entry : *queue) {
        if (!is_control(entry)) return true;
    }
    return false;
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

// An INSERT with parameters is prepared on the connection the first time a pipeline carries it,
// under a name of its own, and only executed after that: PostgreSQL then parses and analyses it
// once per connection instead of once per payment, and its plan has no scan to choose. An UPDATE
// or SELECT is prepared only when marked `prepared` (a lookup by primary key): PostgreSQL keeps one
// generic plan for a prepared statement, made from the table as it is then, and on a small
// ledger_accounts that plan is a Seq Scan, kept while the hot rows' dead versions pile up
// (preparing the guarded UPDATEs as they were doubled PostgreSQL's CPU per payment in the
// write-path benchmark). So those are executed with sequential scans disabled (with_index_plans):
// whenever PostgreSQL plans them (the first executions, the generic plan, again after an ANALYZE
// of the table), the plan is an index scan, whatever the table's size. Unmarked UPDATEs and
// SELECTs stay unnamed, planned afresh with their values; transaction control and NOTIFY too.
// `prepared` is null for a session without a statement cache: all unnamed.
constexpr std::size_t pipelined_names_max = 64;

// What one statement of a pipeline is sent as.
struct pipeline_send {
    const std::string* prepare_sql = nullptr;  // sent with a Parse first under `name`
    std::string name;                          // empty: unnamed, parsed for this one execution
};

std::vector<pipeline_send> plan_sends(const std::vector<pipelined_statement>& statements,
                                      statement_cache::pipelined_statements* prepared) {
    std::vector<pipeline_send> sends(statements.size());
    if (!prepared) return sends;
    auto& names = prepared->names;
    // Prepared by this pipeline, before its Parse is known to have succeeded.
    std::unordered_map<std::string_view, std::string> fresh;
    for (std::size_t i = 0; i < statements.size(); ++i) {
        const auto& statement = statements[i];
        if (statement.params.empty() || statement.one_off ||
            !(statement.prepared || statement.sql.starts_with("INSERT "))) {
            continue;
        }
        if (auto known = names.find(statement.sql); known != names.end()) {
            sends[i].name = known->second;
        } else if (auto sent = fresh.find(statement.sql); sent != fresh.end()) {
            sends[i].name = sent->second;
        } else if (names.size() + fresh.size() < pipelined_names_max) {
            // soci names its own prepared statements st_N. A Parse whose answer was lost may have
            // made its statement all the same: its name is not given again.
            std::string name = "corridor_pipe_" + std::to_string(++prepared->names_used);
            fresh.emplace(statement.sql, name);
            sends[i] = {&statement.sql, std::move(name)};
        }
    }
    return sends;
}

// An UPDATE or SELECT prepared under a name, whose plan must be an index scan.
bool needs_index_plan(const pipelined_statement& statement) {
    return statement.prepared && !statement.one_off && !statement.params.empty() &&
           !statement.sql.starts_with("INSERT ");
}

// The statements of a pipeline that run with sequential scans disabled: from the first that needs
// an index plan to the last, [first, last]; none (first > last) when there is no such statement or
// the pipeline does not run in a transaction block, where SET LOCAL has no transaction to last
// for. Between the two, only the pipeline's statements run (the writer's point lookups, control
// statements and multi-row INSERTs), none of which should scan a table anyway.
struct index_plan_window {
    std::size_t first = 1, last = 0;
    bool covers(std::size_t i) const { return first <= i && i <= last; }
};

index_plan_window with_index_plans(PGconn* connection,
                                   const std::vector<pipelined_statement>& statements) {
    index_plan_window window;
    bool in_block = PQtransactionStatus(connection) == PQTRANS_INTRANS;
    for (std::size_t i = 0; i < statements.size(); ++i) {
        if (statements[i].sql == "BEGIN") in_block = true;
        if (statements[i].sql == "COMMIT") break;
        if (!in_block || !needs_index_plan(statements[i])) continue;
        if (window.first > window.last) window.first = i;
        window.last = i;
    }
    return window;
}

constexpr const char* seqscan_off_sql = "SET LOCAL enable_seqscan = off";
// Back to the session's value (the server's default: Corridor never sets it for the session).
constexpr const char* seqscan_reset_sql = "RESET enable_seqscan";

// Sends `statements` in pipeline mode and waits once for all answers; `answers`, when given,
// receives the first column of each one's first row.
void send_pipeline(PGconn* connection, const std::vector<pipelined_statement>& statements,
                   statement_cache::pipelined_statements* prepared,
                   std::vector<std::optional<std::string>>* answers) {
    if (PQenterPipelineMode(connection) != 1) fail(connection, nullptr, "pipeline mode");
    // Leaves pipeline mode however this ends (it fails while results are still unread only when the
    // connection broke, which the writer's next use of the session reports).
    struct pipeline_exit {
        PGconn* connection;
        ~pipeline_exit() { PQexitPipelineMode(connection); }
    } exit{connection};
    std::vector<pipeline_send> sends = plan_sends(statements, prepared);
    index_plan_window window = with_index_plans(connection, statements);
    count_round_trip(statements.size() + (window.first <= window.last ? 2 : 0));
    auto send_setting = [&](const char* sql) {
        if (PQsendQueryParams(connection, sql, 0, nullptr, nullptr, nullptr, nullptr, 0) != 1)
            fail(connection, nullptr, "pipeline send");
    };
    for (std::size_t i = 0; i < statements.size(); ++i) {
        const auto& statement = statements[i];
        const auto& send = sends[i];
        if (i == window.first) send_setting(seqscan_off_sql);
        int count = static_cast<int>(statement.params.size());
        if (send.prepare_sql && PQsendPrepare(connection, send.name.c_str(),
                                              send.prepare_sql->c_str(), count, nullptr) != 1) {
            fail(connection, nullptr, "pipeline prepare");
        }
        std::vector<const char*> values;
        values.reserve(statement.params.size());
        for (const auto& param : statement.params) values.push_back(param.c_str());
        int sent = send.name.empty()
                       ? PQsendQueryParams(connection, statement.sql.c_str(), count, nullptr,
                                           values.data(), nullptr, nullptr, 0)
                       : PQsendQueryPrepared(connection, send.name.c_str(), count, values.data(),
                                             nullptr, nullptr, 0);
        if (sent != 1) fail(connection, nullptr, "pipeline send");
        if (i == window.last && window.covers(i)) send_setting(seqscan_reset_sql);
    }
    if (PQpipelineSync(connection) != 1) fail(connection, nullptr, "pipeline sync");
    // Every request's answer (a result, then null; a Parse is a request of its own), then the sync
    // point's. The first failure is kept; the requests after it come back aborted.
    result_ptr failure;
    auto read_answer = [&](std::optional<std::string>* answer) {
        ExecStatusType last = PGRES_EMPTY_QUERY;
        while (true) {
            result_ptr result(PQgetResult(connection));
            if (!result) break;
            auto status = PQresultStatus(result.get());
            last = status;
            if (answer && status == PGRES_TUPLES_OK && PQntuples(result.get()) > 0 &&
                PQnfields(result.get()) > 0 && !PQgetisnull(result.get(), 0, 0)) {
                *answer = std::string(PQgetvalue(result.get(), 0, 0));
            }
            if (status == PGRES_FATAL_ERROR && !failure) failure = std::move(result);
            if (status == PGRES_PIPELINE_SYNC) fail(connection, nullptr, "pipeline ended early");
        }
        if (PQstatus(connection) == CONNECTION_BAD) fail(connection, nullptr, "pipeline");
        return last;
    };
    for (std::size_t i = 0; i < statements.size(); ++i) {
        if (i == window.first) read_answer(nullptr);  // the SET LOCAL
        // The server keeps a prepared statement whatever becomes of the transaction; a Parse
        // skipped after a failure made none.
        if (sends[i].prepare_sql && read_answer(nullptr) == PGRES_COMMAND_OK) {
            prepared->names.emplace(*sends[i].prepare_sql, sends[i].name);
        }
        read_answer(answers ? &(*answers)[i] : nullptr);
        if (i == window.last && window.covers(i)) read_answer(nullptr);  // the RESET
    }
    result_ptr sync(PQgetResult(connection));
    if (!sync || PQresultStatus(sync.get()) != PGRES_PIPELINE_SYNC) {
        fail(connection, failure.get(), "pipeline sync");
    }
    if (failure) fail(connection, failure.get(), "pipelined statement failed");
}

statement_cache::pipelined_statements* pipelined_of(soci::session& session) {
    statement_cache* cache = statement_cache_of(session);
    return cache ? &cache->pipelined() : nullptr;
}

}  // namespace

namespace {

// Conditions no guarded debit took before the queue goes out are checked on their own, in order
// behind what is queued (deferred_writes.hpp row_condition).
void queue_pending_condition_checks(soci::session& session) {
    deferred_writes* deferred = deferred_writes_of(session);
    if (!deferred || !deferred->conditions_pending()) return;
    queue_condition_checks(session, *deferred, deferred->take_conditions());
}

// Sends the queue, `statements` after it, in one pipeline; the answers of `statements`. The
// answers of guarded statements go to their slots; a guarded statement that returned no row, or
// a pipeline that failed while one was in it, marks the optimistic attempt refused.
std::vector<std::optional<std::string>> send_queue_with(
    soci::session& session, const std::vector<pipelined_statement>& statements) {
    std::vector<queued_statement> sent;
    if (queue_session == &session) {
        queue_pending_condition_checks(session);
        sent.swap(*queue);
    }
    std::vector<pipelined_statement> all;
    all.reserve(sent.size() + statements.size());
    bool guarded = false;
    for (auto& entry : sent) {
        guarded = guarded || !is_control(entry);
        all.push_back({std::move(entry.sql), std::move(entry.params), false, entry.prepared});
    }
    all.insert(all.end(), statements.begin(), statements.end());
    std::vector<std::optional<std::string>> answers(all.size());
    if (all.empty()) return answers;
    deferred_writes* deferred = guarded ? deferred_writes_of(session) : nullptr;
    try {
        send_pipeline(connection_of(session), all, pipelined_of(session), &answers);
    } catch (...) {
        if (deferred) deferred->refuse();
        throw;
    }
    for (std::size_t i = 0; i < sent.size(); ++i) {
        if (is_control(sent[i])) continue;
        CORRIDOR_ASSERT(deferred != nullptr);
        deferred->answer_guarded(sent[i].guarded_slot, answers[i]);
    }
    answers.erase(answers.begin(), answers.begin() + static_cast<std::ptrdiff_t>(sent.size()));
    return answers;
}

}  // namespace

void send_queued_controls(soci::session& session) {
    if (queue_session != &session) return;
    deferred_writes* deferred = deferred_writes_of(session);
    if (queue->empty() && !(deferred && deferred->conditions_pending())) return;
    if (guarded_queued(session) || (deferred && deferred->conditions_pending())) {
        send_queue_with(session, {});
        return;
    }
    std::vector<const char*> controls;
    controls.reserve(queue->size());
    for (const auto& entry : *queue) controls.push_back(entry.sql.c_str());
    send_controls(connection_of(session), controls);
    queue->clear();
}

void send_queued_guarded(soci::session& session) {
    if (queue_session != &session) return;
    deferred_writes* deferred = deferred_writes_of(session);
    if (guarded_queued(session) || (deferred && deferred->conditions_pending())) {
        send_queue_with(session, {});
    }
}

void run_pipeline(soci::session& session, const std::vector<pipelined_statement>& statements) {
    if (statements.empty()) return;
    send_pipeline(connection_of(session), statements, pipelined_of(session), nullptr);
}

std::vector<std::optional<std::string>> run_pipeline_answers(
    soci::session& session, const std::vector<pipelined_statement>& statements) {
    // The waiting statements go first, in the same pipeline (the deferred writes have followed
    // them already, when they were queued).
    return send_queue_with(session, statements);
}

}  // namespace corridor
