#pragma once
// SQLite: many rows of one table written by a few multi-row statements instead of one statement
// per row, for the ledger writer's flush. Each statement is cut to a power of two of rows (up to
// sqlite_rows_max), prepared once per session and row count through the SQLite library, and bound
// in place: a flush of n rows costs about log2(n) + n / sqlite_rows_max statements, and no value is
// copied on its way in (soci copies each into a buffer of its own).
#include <soci/soci.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace corridor {

// Rows of one statement at most: its parameters (rows times the row's parameters) stay far below
// SQLite's limit, and its text parses in well under a millisecond, once per session.
inline constexpr std::size_t sqlite_rows_max = 64;

// What binds the values of one row: `first` is the number of its first parameter, which the
// statement text gave it (sqlite_rows_statement::sql).
class sqlite_row_binder {
public:
    // The value must stay as it is until the statement has run (it is not copied).
    void text(int index, const std::string& value);
    void blob(int index, const std::string& value);         // the bytes, stored as a BLOB
    void blob_copy(int index, const void* data, int size);  // copied: may go at once
    void integer(int index, long long value);
    void null(int index);

private:
    friend class sqlite_rows_runner;
    explicit sqlite_row_binder(void* handle) : handle_(handle) {}
    void* handle_;
};

// A multi-row statement: `sql(rows)` is its text for that many rows, whose row r (from 0) uses the
// parameters numbered r * params_per_row + 1 to (r + 1) * params_per_row (?NNN; a number may
// appear more than once in a row). Defined once, as a static object: its address keys the
// session's prepared statements.
struct sqlite_rows_statement {
    std::function<std::string(std::size_t rows)> sql;
    int params_per_row;
};

// The numbered parameter "?N" of parameter `param` (from 1) of row `row` (from 0).
std::string sqlite_row_param(const sqlite_rows_statement& statement, std::size_t row, int param);

class sqlite_rows_runner {
public:
    sqlite_rows_runner(soci::session& session, const sqlite_rows_statement& statement)
        : session_(session), statement_(statement) {}
    // Runs the statement over rows [0, count): bind(r, binder, first parameter) binds row r.
    template <class Bind>
    void run(std::size_t count, Bind&& bind) {
        std::size_t row = 0;
        while (row < count) {
            std::size_t rows = chunk_rows(count - row);
            void* handle = prepared(rows);
            sqlite_row_binder binder(handle);
            for (std::size_t r = 0; r < rows; ++r) {
                bind(row + r, binder, static_cast<int>(r) * statement_.params_per_row + 1);
            }
            step(handle, rows);
            row += rows;
        }
    }

private:
    // The largest power of two not above min(left, sqlite_rows_max).
    static std::size_t chunk_rows(std::size_t left);
    void* prepared(std::size_t rows);
    void step(void* handle, std::size_t rows);

    soci::session& session_;
    const sqlite_rows_statement& statement_;
};

// A statement stepped through the SQLite library, prepared once per session: kept in the session's
// statement cache under the address of `text` (which must last for the process) and trusted while
// the text there is the same; SQLite parses `text`, or what `translate` makes of it (called only
// when it is prepared). A session without a cache gets it for this use only. handle() comes
// reset, without bindings.
class kept_sqlite_statement {
public:
    kept_sqlite_statement(soci::session& session, const std::string& text,
                          std::string (*translate)(const std::string&) = nullptr);
    ~kept_sqlite_statement();
    kept_sqlite_statement(const kept_sqlite_statement&) = delete;
    kept_sqlite_statement& operator=(const kept_sqlite_statement&) = delete;

    void* handle() const { return handle_; }  // a sqlite3_stmt
    // After a failed step: finalized, prepared afresh next time rather than trusted again.
    void forget();

private:
    soci::session& session_;
    const std::string& text_;
    void* handle_ = nullptr;
    bool owned_ = false;  // no cache: finalized with this object
};

// One statement kept for the flush in PostgreSQL's form (parameters $1..$n, all texts; a column of
// INTEGER affinity stores a number's text as the number, as a bound integer would be), run through
// the SQLite library: prepared once per session and text, its values bound in place.
void run_sqlite_text_statement(soci::session& session, const std::string& sql,
                               const std::vector<std::string>& params);
// The rows of kept INSERTs of one text ("INSERT INTO t (...) VALUES ($1, ..., $n)", every $k of
// the row in its VALUES list, `params` of each row n texts), written as sqlite_rows_runner writes
// rows: a few multi-row statements instead of one per row.
void run_sqlite_text_inserts(soci::session& session, const std::string& sql,
                             const std::vector<const std::vector<std::string>*>& params);

}  // namespace corridor
