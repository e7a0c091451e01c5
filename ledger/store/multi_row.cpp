#include "ledger/store/multi_row.hpp"

#include <libpq-fe.h>
#include <soci/postgresql/soci-postgresql.h>
#include <soci/sqlite3/soci-sqlite3.h>
#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <memory>

#include "ledger/base/assert.hpp"
#include "ledger/store/control_queue.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/native_connection.hpp"
#include "ledger/store/pg_arrays.hpp"
#include "ledger/store/transaction_state.hpp"

namespace corridor {
std::string insert_rows_text(const std::string& sql, std::size_t values_at, std::size_t params,
                             std::size_t rows) {
    std::string out = sql.substr(0, values_at + 8);  // up to " VALUES "
    for (std::size_t r = 0; r < rows; ++r) {
        if (r) out += ", ";
        for (std::size_t i = values_at + 8; i < sql.size(); ++i) {
            if (sql[i] != '$' || i + 1 == sql.size() ||
                !std::isdigit(static_cast<unsigned char>(sql[i + 1]))) {
                out += sql[i];
                continue;
            }
            std::size_t number = 0;
            for (++i; i < sql.size() && std::isdigit(static_cast<unsigned char>(sql[i])); ++i)
                number = number * 10 + static_cast<std::size_t>(sql[i] - '0');
            --i;
            out += '$' + std::to_string(number + r * params);
        }
    }
    return out;
}

namespace {

constexpr std::string_view list_marker = "IN_LIST";

// Parameters bound by position to a statement being built: soci keeps references, so the values
// live here, reserved up front so that they never move.
class bound_values {
public:
    explicit bound_values(std::size_t count) {
        values_.reserve(count);
        indicators_.reserve(count);
    }
    void bind(soci::statement& statement, const std::optional<std::string>& value) {
        values_.push_back(value.value_or(""));
        indicators_.push_back(value ? soci::i_ok : soci::i_null);
        CORRIDOR_ASSERT(values_.size() <= values_.capacity());
        statement.exchange(soci::use(values_.back(), indicators_.back()));
    }

private:
    std::vector<std::string> values_;
    std::vector<soci::indicator> indicators_;
};

// Rows of one SQLite INSERT: few enough that the statement parses in microseconds, enough that
// stepping it costs little per row.
constexpr std::size_t sqlite_statement_rows = 32;

// A statement prepared on a SQLite connection, finalized when it goes.
class sqlite_statement {
public:
    sqlite_statement(sqlite_api::sqlite3* connection, const std::string& sql)
        : connection_(connection), sql_(sql) {
        int rc = sqlite_api::sqlite3_prepare_v3(connection, sql.c_str(), -1, 0, &handle_, nullptr);
        if (rc != SQLITE_OK) fail();
    }
    ~sqlite_statement() { sqlite_api::sqlite3_finalize(handle_); }
    sqlite_statement(const sqlite_statement&) = delete;
    sqlite_statement& operator=(const sqlite_statement&) = delete;

    // Binds `value` to parameter `index` (from 1) without copying it: it must stay unchanged
    // until the statement has run.
    void bind(int index, const std::optional<std::string>& value, column_type type) {
        int rc = SQLITE_OK;
        if (!value) {
            rc = sqlite_api::sqlite3_bind_null(handle_, index);
        } else if (type == column_type::integer) {
            // Integers arrive as text: bound as integers, they are stored as integers whatever
            // the column's declared type.
            long long number = 0;
            auto [end, error] =
                std::from_chars(value->data(), value->data() + value->size(), number);
            CORRIDOR_ASSERT(error == std::errc() && end == value->data() + value->size());
            rc = sqlite_api::sqlite3_bind_int64(handle_, index, number);
        } else {
            rc = sqlite_api::sqlite3_bind_text(handle_, index, value->data(),
                                               static_cast<int>(value->size()), SQLITE_STATIC);
        }
        if (rc != SQLITE_OK) fail();
    }
    void run() {
        int rc = sqlite_api::sqlite3_step(handle_);
        sqlite_api::sqlite3_reset(handle_);
        if (rc != SQLITE_DONE) fail();
    }

private:
    // As soci reports a failed statement: the caller tells constraint violations apart by
    // the result code and the message (is_unique_violation).
    [[noreturn]] void fail() const {
        throw sqlite_failure(connection_, "executing \"" + sql_ + "\"");
    }

    sqlite_api::sqlite3* connection_;
    std::string sql_;
    sqlite_api::sqlite3_stmt* handle_ = nullptr;
};

// Appends `value` to a COPY text-format row: NULL is \N; a backslash, tab, newline or carriage
// return is escaped, everything else goes as it is.
// The runs between those characters (nearly every value is one run) are appended whole: appended
// a character at a time, this was a fifth of the importing thread's CPU in a bulk import.
void append_copy_value(std::string& out, const std::optional<std::string>& value) {
    if (!value) {
        out += "\\N";
        return;
    }
    auto special = [](char c) { return c == '\\' || c == '\t' || c == '\n' || c == '\r'; };
    const char* next = value->data();
    const char* end = next + value->size();
    while (next != end) {
        const char* run = next;
        while (next != end && !special(*next)) ++next;
        out.append(run, static_cast<std::size_t>(next - run));
        if (next == end) break;
        switch (*next++) {
            case '\\': out += "\\\\"; break;
            case '\t': out += "\\t"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            default: CORRIDOR_ASSERT(false);  // special() holds only these four
        }
    }
}

// As soci reports a failed statement (with its SQLSTATE, which is_unique_violation reads).
[[noreturn]] void fail_copy(PGconn* connection, const PGresult* result, const std::string& sql) {
    throw postgres_failure(connection, result, "executing \"" + sql + "\"");
}

// Bytes of COPY data handed to libpq at a time.
constexpr std::size_t copy_send_bytes = 256 * 1024;

}  // namespace

std::string postgres_array_literal(const std::vector<std::optional<std::string>>& values) {
    std::string out = "{";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) out += ',';
        if (values[i]) {
            append_array_text(out, *values[i]);
        } else {
            out += "NULL";
        }
    }
    return out + '}';
}

std::string postgres_array_literal(const std::vector<std::string>& values) {
    std::string out = "{";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) out += ',';
        append_array_text(out, values[i]);
    }
    return out + '}';
}

multi_row_insert::multi_row_insert(std::string table, std::vector<multi_row_column> columns,
                                   std::vector<multi_row_shared_value> shared)
    : table_(std::move(table)), columns_(std::move(columns)), shared_(std::move(shared)) {
    CORRIDOR_ASSERT(!columns_.empty());
}

void multi_row_insert::add(std::vector<std::optional<std::string>> row) {
    CORRIDOR_ASSERT(row.size() == columns_.size());
    rows_.push_back(std::move(row));
}

void multi_row_insert::run(soci::session& session) const {
    if (rows_.empty()) return;
    if (backend_of(session) == database_backend::postgresql) return run_postgres(session);
    if (in_transaction(session)) return run_sqlite(session);
    // On SQLite the rows go in several statements: all or none of them, as one statement would.
    write_transaction transaction(session);
    run_sqlite(session);
    transaction.commit();
}

// On SQLite, through the library itself: soci copies every value it binds into a buffer of its own
// (an allocation each, eight rows of a dozen values per imported customer), and a statement of
// hundreds of rows costs as much to parse as to run. Here a statement of sqlite_statement_rows rows
// is parsed once per call and stepped over the rows, bound in place; the rest go through a
// statement of one row. The shared values are parameters 1 to N of each, bound once (a binding
// stays through a reset), and the rows' values follow.
void multi_row_insert::run_sqlite(soci::session& session) const {
    auto* connection = sqlite_connection(session);
    std::size_t groups = rows_.size() / sqlite_statement_rows;
    std::size_t row = 0;
    std::vector<std::optional<std::string>> shared_values;
    for (const auto& shared : shared_) shared_values.emplace_back(shared.value);
    auto bind_shared = [&](sqlite_statement& statement) {
        for (std::size_t s = 0; s < shared_.size(); ++s) {
            statement.bind(static_cast<int>(s + 1), shared_values[s], shared_[s].column.type);
        }
    };
    auto run_rows = [&](sqlite_statement& statement, std::size_t count) {
        int index = static_cast<int>(shared_.size()) + 1;
        for (std::size_t r = row; r < row + count; ++r) {
            for (std::size_t c = 0; c < columns_.size(); ++c) {
                statement.bind(index++, rows_[r][c], columns_[c].type);
            }
        }
        statement.run();
        row += count;
    };
    if (groups) {
        sqlite_statement statement(connection, insert_sql(sqlite_statement_rows));
        bind_shared(statement);
        for (std::size_t group = 0; group < groups; ++group) {
            run_rows(statement, sqlite_statement_rows);
        }
    }
    if (row < rows_.size()) {
        sqlite_statement statement(connection, insert_sql(1));
        bind_shared(statement);
        while (row < rows_.size()) run_rows(statement, 1);
    }
}

std::string multi_row_insert::insert_sql(std::size_t rows) const {
    std::string sql = "INSERT INTO " + table_ + " (";
    for (std::size_t c = 0; c < columns_.size(); ++c) sql += (c ? ", " : "") + columns_[c].name;
    for (const auto& shared : shared_) sql += ", " + shared.column.name;
    sql += ") ";
    // Numbered parameters: the shared values are 1 to N in every row, the rows' own follow.
    std::size_t next = shared_.size() + 1;
    sql += "VALUES ";
    for (std::size_t r = 0; r < rows; ++r) {
        sql += r ? ", (" : "(";
        for (std::size_t c = 0; c < columns_.size(); ++c) {
            sql += (c ? ", ?" : "?") + std::to_string(next++);
        }
        for (std::size_t s = 0; s < shared_.size(); ++s) sql += ", ?" + std::to_string(s + 1);
        sql += ")";
    }
    return sql;
}

// On PostgreSQL, one COPY ... FROM STDIN for all the rows, through libpq (soci has no COPY): the
// server reads the rows as text with no statement to plan, no arrays to parse and unnest, and
// writes them into the table's pages several at a time. Against a multi-row INSERT over one array
// per column, about 8% less of PostgreSQL's CPU per account. A row that breaks a constraint fails
// the whole COPY with the same error an INSERT would raise. The shared values are escaped once.
void multi_row_insert::run_postgres(soci::session& session) const {
    PGconn* connection = postgres_connection(session);
    std::string sql = "COPY " + table_ + " (";
    for (std::size_t c = 0; c < columns_.size(); ++c) sql += (c ? ", " : "") + columns_[c].name;
    for (const auto& shared : shared_) sql += ", " + shared.column.name;
    sql += ") FROM STDIN";
    std::string shared_tail;
    for (const auto& shared : shared_) {
        shared_tail += '\t';
        append_copy_value(shared_tail, shared.value);
    }
    shared_tail += '\n';
    // Past soci, so in the ledger writer's batch its queued savepoints must go first, as they go
    // before any statement soci sends.
    send_queued_controls(session);
    pg_result_ptr started(PQexec(connection, sql.c_str()));
    if (!started || PQresultStatus(started.get()) != PGRES_COPY_IN) {
        fail_copy(connection, started.get(), sql);
    }
    std::string data;
    data.reserve(copy_send_bytes + 4096);
    auto send = [&] {
        if (PQputCopyData(connection, data.data(), static_cast<int>(data.size())) != 1) {
            fail_copy(connection, nullptr, sql);
        }
        data.clear();
    };
    for (const auto& row : rows_) {
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (c) data += '\t';
            append_copy_value(data, row[c]);
        }
        data += shared_tail;
        if (data.size() >= copy_send_bytes) send();
    }
    if (!data.empty()) send();
    if (PQputCopyEnd(connection, nullptr) != 1) fail_copy(connection, nullptr, sql);
    pg_result_ptr finished(PQgetResult(connection));
    // The connection is left as soci expects it: every result read.
    while (pg_result_ptr more{PQgetResult(connection)}) {
    }
    if (!finished || PQresultStatus(finished.get()) != PGRES_COMMAND_OK) {
        fail_copy(connection, finished.get(), sql);
    }
}

std::set<std::string> select_existing(soci::session& session, const std::string& select_sql,
                                      const std::vector<std::string>& params,
                                      const std::vector<std::string>& keys) {
    auto marker = select_sql.find(list_marker);
    CORRIDOR_ASSERT(marker != std::string::npos);
    bool postgres = backend_of(session) == database_backend::postgresql;
    std::set<std::string> found;
    for (std::size_t begin = 0; begin < keys.size(); begin += multi_row_chunk_rows_max) {
        std::size_t end = std::min(keys.size(), begin + multi_row_chunk_rows_max);
        soci::statement statement(session);
        std::string value;
        statement.exchange(soci::into(value));
        bound_values bound(params.size() + (postgres ? 1 : end - begin));
        std::string sql = select_sql;
        if (postgres) {
            // One index lookup per key, whatever the table's statistics say: written as
            // "column = ANY(array)" PostgreSQL may plan (with a fresh table's estimates, does plan)
            // a scan of every row of the tenant with the array as a filter. The array binds first,
            // as it comes first in the text.
            std::vector<std::optional<std::string>> chunk(keys.begin() + begin, keys.begin() + end);
            bound.bind(statement, postgres_array_literal(chunk));
            for (const auto& param : params) bound.bind(statement, param);
            sql.replace(marker, list_marker.size(), "= k.v");
            sql = "SELECT found.* FROM unnest(CAST(:list AS text[])) AS k(v) CROSS JOIN LATERAL (" +
                  sql + " LIMIT 1) AS found";
        } else {
            for (const auto& param : params) bound.bind(statement, param);
            std::string list = "IN (";
            for (std::size_t k = begin; k < end; ++k) {
                bound.bind(statement, keys[k]);
                list += k == begin ? "?" : ", ?";
            }
            sql.replace(marker, list_marker.size(), list + ")");
        }
        statement.alloc();
        statement.prepare(
            sql, postgres ? soci::details::st_one_time_query : soci::details::st_repeatable_query);
        statement.define_and_bind();
        if (statement.execute(true)) {
            do found.insert(value);
            while (statement.fetch());
        }
    }
    return found;
}

}  // namespace corridor
