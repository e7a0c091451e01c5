#pragma once
// Statements over many rows at once, for batches (the bulk import): one insert per table for all
// the rows and one lookup per chunk of keys, instead of one statement per row. On PostgreSQL the
// insert is one COPY (through libpq) and a lookup one round trip whatever the row count, its keys
// travelling as one array parameter (unnest), so the statement text never changes with the row
// count. SQLite has no arrays and no round trips to save; there an INSERT of a few dozen rows,
// prepared once per call through the SQLite library and bound in place, is stepped over the rows
// (an IN list serves the lookups).
#include <soci/soci.h>

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace corridor {

// An "INSERT ... VALUES (...)" whose parameters ($1 to $params, PostgreSQL's form) are all in its
// VALUES list, which starts at `values_at` (the position of " VALUES ("), as a statement of `rows`
// rows: the list repeated, the parameters of row r (from 0) moved up by r * params. Both writers'
// flushes send kept INSERTs this way (SQLite after turning $n into ?n).
std::string insert_rows_text(const std::string& sql, std::size_t values_at, std::size_t params,
                             std::size_t rows);

// Keys of one lookup at most: bounds the parameters of a SQLite statement (its limit is 32766)
// and the size of one PostgreSQL message.
constexpr std::size_t multi_row_chunk_rows_max = 500;

enum class column_type { text, integer };

struct multi_row_column {
    std::string name;
    column_type type = column_type::text;
};

// A column whose value is the same in every row of an insert (the tenant of a batch, its time):
// not kept per row; on SQLite bound once per statement, on PostgreSQL escaped once and repeated
// in each row of the COPY.
struct multi_row_shared_value {
    multi_row_column column;
    std::string value;
};

// Rows gathered in memory, then inserted into `table`: on PostgreSQL by one COPY, on SQLite by
// statements of a few dozen rows each.
// Values are given as text (integers in decimal); a nullopt is SQL NULL. Each row also gets the
// `shared` values.
class multi_row_insert {
public:
    multi_row_insert(std::string table, std::vector<multi_row_column> columns,
                     std::vector<multi_row_shared_value> shared = {});
    // One value per column, in the columns' order.
    void add(std::vector<std::optional<std::string>> row);
    std::size_t size() const { return rows_.size(); }
    // Inserts every row added; a constraint violation throws as a single INSERT would. Outside a
    // transaction it inserts all rows or none; inside one, a failure may leave some of the rows
    // in it, so the caller rolls the transaction back (as every caller does on an exception).
    void run(soci::session& session) const;

private:
    void run_sqlite(soci::session& session) const;
    void run_postgres(soci::session& session) const;
    // The INSERT of `rows` rows on SQLite.
    std::string insert_sql(std::size_t rows) const;

    std::string table_;
    std::vector<multi_row_column> columns_;
    std::vector<multi_row_shared_value> shared_;
    std::vector<std::vector<std::optional<std::string>>> rows_;
};

// The values of `keys` found by `select_sql`, a query of one text column whose WHERE clause ends in
// "<column> IN_LIST": on SQLite the marker becomes an IN list; on PostgreSQL the query runs once
// per key of an array (a LATERAL join), each an index lookup. `params` bind, in order, to the
// named parameters before the marker.
std::set<std::string> select_existing(soci::session& session, const std::string& select_sql,
                                      const std::vector<std::string>& params,
                                      const std::vector<std::string>& keys);

// A PostgreSQL array literal of text values ({"a","b",NULL}).
std::string postgres_array_literal(const std::vector<std::optional<std::string>>& values);
std::string postgres_array_literal(const std::vector<std::string>& values);

}  // namespace corridor
