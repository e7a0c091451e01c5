#include "ledger/store/multi_row.hpp"

#include <algorithm>

#include "ledger/base/assert.hpp"
#include "ledger/store/database.hpp"

namespace corridor {
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

std::string parameter(std::size_t index) {
    return ":v" + std::to_string(index);
}

}  // namespace

std::string postgres_array_literal(const std::vector<std::optional<std::string>>& values) {
    std::string out = "{";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) out += ',';
        if (!values[i]) {
            out += "NULL";
            continue;
        }
        out += '"';
        for (char c : *values[i]) {
            if (c == '"' || c == '\\') out += '\\';
            out += c;
        }
        out += '"';
    }
    out += '}';
    return out;
}

multi_row_insert::multi_row_insert(std::string table, std::vector<multi_row_column> columns)
    : table_(std::move(table)), columns_(std::move(columns)) {
    CORRIDOR_ASSERT(!columns_.empty());
}

void multi_row_insert::add(std::vector<std::optional<std::string>> row) {
    CORRIDOR_ASSERT(row.size() == columns_.size());
    rows_.push_back(std::move(row));
}

void multi_row_insert::run(soci::session& session) const {
    std::size_t full_chunks = rows_.size() / multi_row_chunk_rows_max;
    std::size_t rest = rows_.size() % multi_row_chunk_rows_max;
    if (full_chunks) run_chunks(session, 0, multi_row_chunk_rows_max, full_chunks);
    if (rest) run_chunks(session, full_chunks * multi_row_chunk_rows_max, rest, 1);
}

std::string multi_row_insert::chunk_sql(std::size_t rows, bool postgres) const {
    std::string sql = "INSERT INTO " + table_ + " (";
    for (std::size_t c = 0; c < columns_.size(); ++c) sql += (c ? ", " : "") + columns_[c].name;
    sql += ") ";
    if (postgres) {
        // One array per column: the text is the same for every chunk size.
        sql += "SELECT * FROM unnest(";
        for (std::size_t c = 0; c < columns_.size(); ++c) {
            sql += (c ? ", CAST(" : "CAST(") + parameter(c) +
                   (columns_[c].type == column_type::integer ? " AS bigint[])" : " AS text[])");
        }
        return sql + ")";
    }
    // Anonymous parameters, bound by position: SQLite looks a named one up in a list, which
    // costs quadratic time over thousands of them.
    std::string row_sql = "(";
    for (std::size_t c = 0; c < columns_.size(); ++c) {
        row_sql += c ? ", " : "";
        // Integers arrive as text: the cast stores them as integers whatever the column's
        // declared type.
        row_sql += columns_[c].type == column_type::integer ? "CAST(? AS INTEGER)" : "?";
    }
    row_sql += ")";
    sql += "VALUES ";
    for (std::size_t r = 0; r < rows; ++r) sql += r ? ", " + row_sql : row_sql;
    return sql;
}

// Runs `count` chunks of `rows` rows from `begin` with one statement, prepared once: parsing a
// statement of thousands of values costs SQLite about as much as running it.
void multi_row_insert::run_chunks(soci::session& session, std::size_t begin, std::size_t rows,
                                  std::size_t count) const {
    bool postgres = backend_of(session) == database_backend::postgresql;
    std::size_t slots = postgres ? columns_.size() : rows * columns_.size();
    std::vector<std::string> values(slots);
    std::vector<soci::indicator> indicators(slots, soci::i_ok);
    soci::statement statement(session);
    for (std::size_t i = 0; i < slots; ++i) {
        statement.exchange(soci::use(values[i], indicators[i]));
    }
    statement.alloc();
    // On PostgreSQL a one-time query is one round trip (no separate prepare and deallocate).
    statement.prepare(chunk_sql(rows, postgres), postgres ? soci::details::st_one_time_query
                                                          : soci::details::st_repeatable_query);
    statement.define_and_bind();
    for (std::size_t chunk = 0; chunk < count; ++chunk) {
        std::size_t first = begin + chunk * rows;
        if (postgres) {
            for (std::size_t c = 0; c < columns_.size(); ++c) {
                std::vector<std::optional<std::string>> column;
                column.reserve(rows);
                for (std::size_t r = first; r < first + rows; ++r) column.push_back(rows_[r][c]);
                values[c] = postgres_array_literal(column);
            }
        } else {
            std::size_t i = 0;
            for (std::size_t r = first; r < first + rows; ++r) {
                for (const auto& value : rows_[r]) {
                    values[i] = value.value_or("");
                    indicators[i++] = value ? soci::i_ok : soci::i_null;
                }
            }
        }
        statement.execute(true);
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
