#pragma once
// Keyset pagination: a page is the next `limit` rows after the last id seen, in id order (ids are
// time-ordered uuid v7). The cursor is opaque to clients and validated when it comes back.
#include <soci/soci.h>

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/base/tenant.hpp"

namespace corridor {

constexpr int page_limit_default = 20;
constexpr int page_limit_max = 100;

// How a table stores its ids: as their text, or as their uuids' 16 bytes (packed_id), which sort
// as the uuids' lower-case text does, so that a page is a range of the primary key either way.
enum class stored_ids { text, packed };

struct page_request {
    int limit = page_limit_default;
    std::optional<std::string> after_id;  // decoded from the cursor
    bool descending = true;               // newest first unless a list says otherwise
};

template <class T>
struct page {
    std::vector<T> items;
    bool has_more = false;
    std::string next_cursor;  // set only when has_more
    std::int64_t total_count = 0;
};

std::string encode_cursor(std::string_view last_id);
std::optional<std::string> decode_cursor(std::string_view cursor);

// Conjunctive WHERE clauses with named, bound parameters (never spliced into the SQL text).
class sql_filter {
public:
    void equals(std::string_view column, std::string value);
    void equals(std::string_view column, std::int64_t value);
    void at_least(std::string_view column, std::int64_t value);
    void at_most(std::string_view column, std::int64_t value);
    void id_after(std::string_view column, std::string id, bool descending,
                  stored_ids ids = stored_ids::text);
    // Free-form clause; each `{}` in it stands for a placeholder bound to the value.
    void clause(std::string_view sql_with_placeholder, std::string value);
    // Free-form clause whose `{}`s stand, in order, for one value each.
    void clause(std::string_view sql_with_placeholders, const std::vector<std::string>& values);
    // `column` (an id stored as 16 bytes) equals the id `id` of `type`. What is no id of that
    // type as ids are made (is_made_id) matches nothing, as an unknown id does, and never reaches
    // PostgreSQL's packed_id(), which would refuse it.
    void packed_id_equals(std::string_view column, std::string_view type, const std::string& id);
    void raw(std::string sql) { clauses_.push_back(std::move(sql)); }

    std::string where_sql() const;
    void bind(soci::statement& statement);

private:
    std::string next_placeholder();
    std::vector<std::string> clauses_;
    std::deque<std::pair<std::string, std::string>> strings_;
    std::deque<std::pair<std::string, long long>> integers_;
    int count_ = 0;
};

// A filter to the rows of one tenant (platform_id and environment), which every store query starts
// from.
sql_filter tenant_filter(const tenant& owner);

// The same for a table that names its tenant by its key (platform_configs.tenant_key): the key of
// the caller's tenant, looked up once per statement by the bound platform id and environment.
sql_filter tenant_key_filter(const tenant& owner);

// COUNT(*) of `table` under the filter.
std::int64_t count_rows(soci::session& session, std::string_view table, sql_filter filter);

// Runs `select_sql` (a SELECT without WHERE/ORDER/LIMIT) under `filter` and the page position, with
// `row` bound to each result; calls on_row(row) per row. Returns has_more.
template <class Row, class OnRow>
bool fetch_page(soci::session& session, const std::string& select_sql, sql_filter filter,
                const page_request& request, Row& row, OnRow on_row,
                stored_ids ids = stored_ids::text) {
    if (request.after_id) filter.id_after("id", *request.after_id, request.descending, ids);
    std::string sql = select_sql + filter.where_sql() + " ORDER BY id " +
                      (request.descending ? "DESC" : "ASC") + " LIMIT " +
                      std::to_string(request.limit + 1);
    soci::statement statement(session);
    row.bind(statement);
    filter.bind(statement);
    statement.alloc();
    statement.prepare(sql);
    statement.define_and_bind();
    statement.execute(false);
    int seen = 0;
    while (statement.fetch()) {
        if (seen == request.limit) return true;
        on_row(row);
        ++seen;
    }
    return false;
}

// One page of a list with the filter's total count: `convert` turns a bound row into an item
// whose `id` the next cursor is made from. Every list endpoint is this, over its own table.
template <class Item, class Row, class Convert>
page<Item> list_page(soci::session& session, std::string_view table, const std::string& select_sql,
                     const sql_filter& filter, const page_request& request, Convert convert,
                     stored_ids ids = stored_ids::text) {
    page<Item> result;
    result.total_count = count_rows(session, table, filter);
    Row row;
    result.has_more = fetch_page(
        session, select_sql, filter, request, row,
        [&](const Row& bound) { result.items.push_back(convert(bound)); }, ids);
    if (result.has_more) result.next_cursor = encode_cursor(result.items.back().id);
    return result;
}

}  // namespace corridor
