#include "ledger/store/sqlite_rows.hpp"

#include <soci/sqlite3/soci-sqlite3.h>

#include <bit>
#include <cctype>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "ledger/base/assert.hpp"
#include "ledger/store/multi_row.hpp"
#include "ledger/store/native_connection.hpp"
#include "ledger/store/statement_cache.hpp"

namespace corridor {
namespace {

using sqlite_api::sqlite3_stmt;

// One prepared statement of `rows` rows, kept in the session's statement cache (finalized there
// before the connection closes).
class prepared_rows final : public cached_statement {
public:
    prepared_rows(const sqlite_rows_statement* of, std::size_t rows, sqlite3_stmt* handle)
        : of(of), rows(rows), handle(handle) {}
    ~prepared_rows() override { sqlite_api::sqlite3_finalize(handle); }
    prepared_rows(const prepared_rows&) = delete;
    prepared_rows& operator=(const prepared_rows&) = delete;

    const sqlite_rows_statement* of;
    std::size_t rows;
    sqlite3_stmt* handle;
};

sqlite_api::sqlite3* connection_of(soci::session& session) {
    return sqlite_connection(session);
}

// As soci reports a failed statement, so that callers tell errors apart as before
// (is_unique_violation reads the result code and the message).
[[noreturn]] void fail(sqlite_api::sqlite3* connection, const char* what) {
    throw sqlite_failure(connection, std::string("executing a multi-row \"") + what + "\"");
}

// The cache key of the statement of 2^k rows: the k-th byte of the static description, distinct
// for every description and row count (k < 7 <= sizeof(sqlite_rows_statement)).
const void* key_of(const sqlite_rows_statement& statement, std::size_t rows) {
    static_assert(std::bit_width(sqlite_rows_max) <= sizeof(sqlite_rows_statement));
    return reinterpret_cast<const char*>(&statement) + (std::bit_width(rows) - 1);
}

// A failed statement is prepared afresh next time rather than trusted again (as with_prepared).
void forget(soci::session& session, const sqlite_rows_statement& statement, std::size_t rows) {
    if (statement_cache* cache = statement_cache_of(session)) cache->erase(key_of(statement, rows));
}

// A kept statement's text (run_sqlite_text_statement) at an address that lasts for the process:
// the statement cache is keyed by address, and kept statements carry copies of their text.
const std::string& interned(const std::string& sql) {
    static std::mutex lock;
    static std::set<std::string, std::less<>> texts;
    std::lock_guard hold(lock);
    return *texts.insert(sql).first;
}

// SQLite's form of a PostgreSQL statement: $n becomes ?n (the same number, so the same binding).
std::string sqlite_parameters(const std::string& sql) {
    std::string out = sql;
    for (std::size_t i = 0; i + 1 < out.size(); ++i) {
        if (out[i] == '$' && std::isdigit(static_cast<unsigned char>(out[i + 1]))) out[i] = '?';
    }
    return out;
}

// A kept INSERT's text as a multi-row statement: its VALUES row repeated, the parameters of row r
// numbered from r * n + 1. Made once per text, at an address that lasts for the process.
const sqlite_rows_statement& rows_statement_of(const std::string& sql, int params) {
    static std::mutex lock;
    static std::map<std::string, std::unique_ptr<sqlite_rows_statement>, std::less<>> known;
    std::lock_guard hold(lock);
    auto& slot = known[sql];
    if (slot) return *slot;
    std::size_t at = sql.find(" VALUES (");
    CORRIDOR_ASSERT(at != std::string::npos && sql.find('$') > at);
    auto text = [sql, at, params](std::size_t rows) {
        return sqlite_parameters(insert_rows_text(sql, at, static_cast<std::size_t>(params), rows));
    };
    slot = std::make_unique<sqlite_rows_statement>(sqlite_rows_statement{text, params});
    return *slot;
}

class prepared_text final : public cached_statement {
public:
    explicit prepared_text(sqlite3_stmt* handle) : handle(handle) {}
    ~prepared_text() override { sqlite_api::sqlite3_finalize(handle); }
    prepared_text(const prepared_text&) = delete;
    prepared_text& operator=(const prepared_text&) = delete;

    sqlite3_stmt* handle;
};

}  // namespace

kept_sqlite_statement::kept_sqlite_statement(soci::session& session, const std::string& text,
                                             std::string (*translate)(const std::string&))
    : session_(session), text_(text) {
    statement_cache* cache = statement_cache_of(session);
    if (cache) {
        auto* found = dynamic_cast<prepared_text*>(cache->find(&text));
        if (found && found->sql == text) {
            handle_ = found->handle;
            return;
        }
    }
    auto* connection = connection_of(session);
    sqlite3_stmt* handle = nullptr;
    std::string sql = translate ? translate(text) : text;
    if (sqlite_api::sqlite3_prepare_v3(connection, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT,
                                       &handle, nullptr) != SQLITE_OK) {
        sqlite_api::sqlite3_finalize(handle);
        fail(connection, "prepare");
    }
    handle_ = handle;
    owned_ = cache == nullptr;
    if (owned_) return;
    auto entry = std::make_unique<prepared_text>(handle);
    entry->sql = text;
    cache->insert(&text, std::move(entry));
}

kept_sqlite_statement::~kept_sqlite_statement() {
    if (owned_) sqlite_api::sqlite3_finalize(static_cast<sqlite3_stmt*>(handle_));
}

void kept_sqlite_statement::forget() {
    if (owned_) return;  // finalized with this object
    statement_cache* cache = statement_cache_of(session_);
    auto* found = cache ? dynamic_cast<prepared_text*>(cache->find(&text_)) : nullptr;
    if (found && found->handle == handle_) cache->erase(&text_);  // finalizes it
}

void run_sqlite_text_statement(soci::session& session, const std::string& sql,
                               const std::vector<std::string>& params) {
    CORRIDOR_ASSERT(statement_cache_of(session));  // the ledger writer's session (open_session)
    const std::string& text = interned(sql);
    kept_sqlite_statement kept(session, text, sqlite_parameters);
    auto* connection = connection_of(session);
    auto* handle = static_cast<sqlite3_stmt*>(kept.handle());
    CORRIDOR_ASSERT(sqlite_api::sqlite3_bind_parameter_count(handle) ==
                    static_cast<int>(params.size()));
    for (std::size_t i = 0; i < params.size(); ++i) {
        if (sqlite_api::sqlite3_bind_text(handle, static_cast<int>(i) + 1, params[i].data(),
                                          static_cast<int>(params[i].size()),
                                          SQLITE_STATIC) != SQLITE_OK) {
            fail(connection, "bind");
        }
    }
    count_round_trip();
    int rc = sqlite_api::sqlite3_step(handle);
    if (rc == SQLITE_DONE) {
        sqlite_api::sqlite3_reset(handle);
        sqlite_api::sqlite3_clear_bindings(handle);  // the values belong to the caller
        return;
    }
    soci::sqlite3_soci_error error = sqlite_failure(connection, "executing a kept statement");
    kept.forget();
    throw error;
}

void run_sqlite_text_inserts(soci::session& session, const std::string& sql,
                             const std::vector<const std::vector<std::string>*>& params) {
    if (params.empty()) return;
    int per_row = static_cast<int>(params.front()->size());
    sqlite_rows_runner(session, rows_statement_of(sql, per_row))
        .run(params.size(), [&](std::size_t r, sqlite_row_binder& bind, int first) {
            CORRIDOR_ASSERT(static_cast<int>(params[r]->size()) == per_row);
            for (int p = 0; p < per_row; ++p) bind.text(first + p, (*params[r])[p]);
        });
}

void sqlite_row_binder::text(int index, const std::string& value) {
    auto* handle = static_cast<sqlite3_stmt*>(handle_);
    if (sqlite_api::sqlite3_bind_text(handle, index, value.data(), static_cast<int>(value.size()),
                                      SQLITE_STATIC) != SQLITE_OK) {
        fail(sqlite_api::sqlite3_db_handle(handle), "bind");
    }
}

void sqlite_row_binder::blob(int index, const std::string& value) {
    auto* handle = static_cast<sqlite3_stmt*>(handle_);
    if (sqlite_api::sqlite3_bind_blob(handle, index, value.data(), static_cast<int>(value.size()),
                                      SQLITE_STATIC) != SQLITE_OK) {
        fail(sqlite_api::sqlite3_db_handle(handle), "bind");
    }
}

void sqlite_row_binder::blob_copy(int index, const void* data, int size) {
    auto* handle = static_cast<sqlite3_stmt*>(handle_);
    if (sqlite_api::sqlite3_bind_blob(handle, index, data, size,
                                      reinterpret_cast<sqlite_api::sqlite3_destructor_type>(-1)) !=
        SQLITE_OK) {
        fail(sqlite_api::sqlite3_db_handle(handle), "bind");
    }
}

void sqlite_row_binder::integer(int index, long long value) {
    auto* handle = static_cast<sqlite3_stmt*>(handle_);
    if (sqlite_api::sqlite3_bind_int64(handle, index, value) != SQLITE_OK) {
        fail(sqlite_api::sqlite3_db_handle(handle), "bind");
    }
}

void sqlite_row_binder::null(int index) {
    auto* handle = static_cast<sqlite3_stmt*>(handle_);
    if (sqlite_api::sqlite3_bind_null(handle, index) != SQLITE_OK) {
        fail(sqlite_api::sqlite3_db_handle(handle), "bind");
    }
}

std::string sqlite_row_param(const sqlite_rows_statement& statement, std::size_t row, int param) {
    CORRIDOR_ASSERT(param >= 1 && param <= statement.params_per_row);
    return "?" + std::to_string(row * static_cast<std::size_t>(statement.params_per_row) +
                                static_cast<std::size_t>(param));
}

std::size_t sqlite_rows_runner::chunk_rows(std::size_t left) {
    CORRIDOR_ASSERT(left > 0);
    return std::bit_floor(std::min(left, sqlite_rows_max));
}

void* sqlite_rows_runner::prepared(std::size_t rows) {
    statement_cache* cache = statement_cache_of(session_);
    CORRIDOR_ASSERT(cache && cache->sqlite());  // the ledger writer's session (open_session)
    const void* key = key_of(statement_, rows);
    auto* found = dynamic_cast<prepared_rows*>(cache->find(key));
    if (found && found->of == &statement_ && found->rows == rows) return found->handle;
    std::string sql = statement_.sql(rows);
    sqlite3_stmt* handle = nullptr;
    auto* connection = connection_of(session_);
    if (sqlite_api::sqlite3_prepare_v3(connection, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT,
                                       &handle, nullptr) != SQLITE_OK) {
        sqlite_api::sqlite3_finalize(handle);
        fail(connection, "prepare");
    }
    auto entry = std::make_unique<prepared_rows>(&statement_, rows, handle);
    entry->sql = std::move(sql);
    cache->insert(key, std::move(entry));
    return handle;
}

void sqlite_rows_runner::step(void* opaque, std::size_t rows) {
    auto* handle = static_cast<sqlite3_stmt*>(opaque);
    count_round_trip();
    int rc = sqlite_api::sqlite3_step(handle);
    if (rc == SQLITE_DONE) {
        sqlite_api::sqlite3_reset(handle);
        // The bound values belong to the caller and may go once this returns.
        sqlite_api::sqlite3_clear_bindings(handle);
        return;
    }
    auto* connection = sqlite_api::sqlite3_db_handle(handle);
    soci::sqlite3_soci_error error = sqlite_failure(connection, "executing a multi-row INSERT");
    forget(session_, statement_, rows);  // finalizes it
    throw error;
}

}  // namespace corridor
