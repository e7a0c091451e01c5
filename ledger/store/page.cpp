#include "ledger/store/page.hpp"

#include <array>

#include "ledger/base/assert.hpp"
#include "ledger/base/encoding.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/store/tenant_keys.hpp"

namespace corridor {
namespace {

constexpr std::string_view cursor_prefix = "k1|";

}  // namespace

std::string encode_cursor(std::string_view last_id) {
    CORRIDOR_ASSERT(!last_id.empty());
    return base64url_encode(std::string(cursor_prefix) + std::string(last_id));
}

std::optional<std::string> decode_cursor(std::string_view cursor) {
    auto decoded = base64url_decode(cursor);
    if (!decoded || !decoded->starts_with(cursor_prefix)) return std::nullopt;
    std::string id = decoded->substr(cursor_prefix.size());
    if (id.empty() || id.size() > 128) return std::nullopt;
    // Only the ids encode_cursor is given come back: "<Type>:<uuid>". A cursor cut short or
    // edited by a client would otherwise decode to a prefix of an id and silently move the page
    // (an ascending walk would repeat a row).
    auto colon = id.find(':');
    if (colon == std::string::npos || colon == 0) return std::nullopt;
    for (char c : std::string_view(id).substr(0, colon)) {
        if (!std::isalnum(static_cast<unsigned char>(c))) return std::nullopt;
    }
    if (!is_typed_id(std::string_view(id).substr(0, colon), id)) return std::nullopt;
    return id;
}

sql_filter tenant_filter(const tenant& owner) {
    sql_filter filter;
    filter.equals("platform_id", owner.platform_id);
    filter.equals("environment", std::string(owner.env_name()));
    return filter;
}

sql_filter tenant_key_filter(const tenant& owner) {
    sql_filter filter;
    filter.clause("tenant_key = " + tenant_key_of("{}", "{}"),
                  std::vector<std::string>{owner.platform_id, std::string(owner.env_name())});
    return filter;
}

std::string sql_filter::next_placeholder() {
    return "f" + std::to_string(count_++);
}

void sql_filter::equals(std::string_view column, std::string value) {
    auto name = next_placeholder();
    clauses_.push_back(std::string(column) + " = :" + name);
    strings_.emplace_back(name, std::move(value));
}

void sql_filter::equals(std::string_view column, std::int64_t value) {
    auto name = next_placeholder();
    clauses_.push_back(std::string(column) + " = :" + name);
    integers_.emplace_back(name, value);
}

void sql_filter::at_least(std::string_view column, std::int64_t value) {
    auto name = next_placeholder();
    clauses_.push_back(std::string(column) + " >= :" + name);
    integers_.emplace_back(name, value);
}

void sql_filter::at_most(std::string_view column, std::int64_t value) {
    auto name = next_placeholder();
    clauses_.push_back(std::string(column) + " <= :" + name);
    integers_.emplace_back(name, value);
}

void sql_filter::id_after(std::string_view column, std::string id, bool descending,
                          stored_ids ids) {
    // A cursor's id is one decode_cursor accepted: packed_id() takes it.
    auto name = next_placeholder();
    std::string bound = ids == stored_ids::packed ? "packed_id(:" + name + ")" : ":" + name;
    clauses_.push_back(std::string(column) + (descending ? " < " : " > ") + bound);
    strings_.emplace_back(name, std::move(id));
}

void sql_filter::clause(std::string_view sql_with_placeholder, std::string value) {
    std::string sql(sql_with_placeholder);
    auto at = sql.find("{}");
    CORRIDOR_ASSERT(at != std::string::npos);
    // Each `{}` gets its own placeholder: not every backend lets one name stand twice.
    while (at != std::string::npos) {
        auto name = next_placeholder();
        sql.replace(at, 2, ":" + name);
        strings_.emplace_back(name, value);
        at = sql.find("{}", at);
    }
    clauses_.push_back(std::move(sql));
}

void sql_filter::clause(std::string_view sql_with_placeholders,
                        const std::vector<std::string>& values) {
    std::string sql(sql_with_placeholders);
    std::size_t at = 0;
    for (const auto& value : values) {
        at = sql.find("{}", at);
        CORRIDOR_ASSERT(at != std::string::npos);
        auto name = next_placeholder();
        sql.replace(at, 2, ":" + name);
        strings_.emplace_back(name, value);
    }
    CORRIDOR_ASSERT(sql.find("{}", at) == std::string::npos);
    clauses_.push_back(std::move(sql));
}

void sql_filter::packed_id_equals(std::string_view column, std::string_view type,
                                  const std::string& id) {
    if (!is_made_id(type, id)) return raw("1 = 0");
    clause(std::string(column) + " = packed_id({})", id);
}

std::string sql_filter::where_sql() const {
    std::string sql;
    for (std::size_t i = 0; i < clauses_.size(); ++i) {
        sql += i == 0 ? " WHERE " : " AND ";
        sql += clauses_[i];
    }
    return sql;
}

void sql_filter::bind(soci::statement& statement) {
    for (auto& [name, value] : strings_) statement.exchange(soci::use(value, name));
    for (auto& [name, value] : integers_) statement.exchange(soci::use(value, name));
}

std::int64_t count_rows(soci::session& session, std::string_view table, sql_filter filter) {
    long long count = 0;
    soci::statement statement(session);
    statement.exchange(soci::into(count));
    filter.bind(statement);
    statement.alloc();
    statement.prepare("SELECT COUNT(*) FROM " + std::string(table) + filter.where_sql());
    statement.define_and_bind();
    statement.execute(true);
    CORRIDOR_ASSERT(count >= 0);
    return count;
}

}  // namespace corridor
