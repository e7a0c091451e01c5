#pragma once
// Prepared statements kept for the life of a session. Parsing and planning a statement costs more
// than running it (SQLite spends most of a payment in sqlite3_prepare_v2 otherwise), so the hot
// statements of the money path are prepared once per session and then only re-executed: a call
// copies its parameter values into storage the cached entry owns and runs the statement.
//
// The cache belongs to sessions made by open_session (database.hpp), whose deleter drops it before
// the connection closes. A session made any other way has no cache and gets a statement prepared
// for the one call, exactly as before.
//
// Keys are the addresses of the SQL texts, so every text handed to these functions must have static
// storage duration (a string literal, or a static string built once).
#include <soci/soci.h>

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>

#include "ledger/base/assert.hpp"

namespace corridor {

// What this thread has sent to its database sessions: a round trip is one wait for the database's
// answer (on PostgreSQL a network round trip; on SQLite one call into the library), which may carry
// several statements (a pipeline, a multi-statement control string). The ledger writer reports the
// difference over its batches as corridor_ledger_round_trips_total and _statements_total.
struct database_traffic {
    std::uint64_t round_trips = 0;
    std::uint64_t statements = 0;
};
inline thread_local database_traffic this_thread_traffic;
inline void count_round_trip(std::uint64_t statements = 1) {
    this_thread_traffic.round_trips += 1;
    this_thread_traffic.statements += statements;
}

class cached_statement {
public:
    virtual ~cached_statement() = default;
    // The text it was prepared from: entries are found by the text's address, and a hit is only
    // trusted when the text there is still the same (an address can be reused by another string).
    std::string sql;
};

class statement_cache {
public:
    explicit statement_cache(bool sqlite) : sqlite_(sqlite) {}
    cached_statement* find(const void* key) const {
        auto found = entries_.find(key);
        return found == entries_.end() ? nullptr : found->second.get();
    }
    cached_statement& insert(const void* key, std::unique_ptr<cached_statement> entry) {
        auto& slot = entries_[key];
        slot = std::move(entry);
        return *slot;
    }
    void erase(const void* key) { entries_.erase(key); }
    bool sqlite() const { return sqlite_; }
    // PostgreSQL: the pipelined statements (batch_send.hpp) prepared on this session's connection.
    // A session opened after a lost connection starts with none, as its new server backend does.
    struct pipelined_statements {
        std::unordered_map<std::string, std::string> names;  // by statement text
        std::uint64_t names_used = 0;  // a name is never given twice, even to a failed Parse
    };
    pipelined_statements& pipelined() { return pipelined_; }

private:
    bool sqlite_;
    pipelined_statements pipelined_;
    std::unordered_map<const void*, std::unique_ptr<cached_statement>> entries_;
};

// The session's cache, or null for a session not made by open_session.
statement_cache* statement_cache_of(soci::session& session);
// Creates and drops a session's cache (open_session and its deleter).
void attach_statement_cache(soci::session& session);
void detach_statement_cache(soci::session& session);
// Returns a used SQLite statement to its initial state, so that a cached SELECT keeps no read
// snapshot open between calls (a connection with a statement in progress would keep reading its
// old snapshot and hold back checkpoints). A write with RETURNING that is still handing out rows is
// first run to its end.
void reset_sqlite_statement(soci::statement& statement);

namespace detail {

template <class T>
constexpr bool bindable_v = std::is_same_v<T, std::string> || std::is_same_v<T, long long> ||
                            std::is_same_v<T, int>;

// A statement with positional parameters of the given types, bound to the entry's own storage.
template <class... Params>
class prepared_command final : public cached_statement {
public:
    static_assert((bindable_v<Params> && ...), "parameters are std::string, long long or int");
    prepared_command(soci::session& session, const char* sql) : statement(session) {
        std::apply([this](auto&... value) { (statement.exchange(soci::use(value)), ...); }, params);
        statement.alloc();
        statement.prepare(sql);
        statement.define_and_bind();
    }
    std::tuple<Params...> params;
    soci::statement statement;
};

// A query whose result columns are bound to a Row (a type with bind(soci::statement&)).
template <class Row, class... Params>
class prepared_query final : public cached_statement {
public:
    static_assert((bindable_v<Params> && ...), "parameters are std::string, long long or int");
    prepared_query(soci::session& session, const char* sql) : statement(session) {
        row.bind(statement);
        std::apply([this](auto&... value) { (statement.exchange(soci::use(value)), ...); }, params);
        statement.alloc();
        statement.prepare(sql);
        statement.define_and_bind();
    }
    Row row;
    std::tuple<Params...> params;
    soci::statement statement;
};

// Runs use(entry) on the session's cached entry for `sql`, creating it on first use.
template <class Entry, class Use>
decltype(auto) with_prepared(soci::session& session, const char* sql, Use&& use) {
    statement_cache* cache = statement_cache_of(session);
    if (!cache) {
        Entry once(session, sql);
        return use(once);
    }
    cached_statement* found = cache->find(sql);
    if (found && found->sql != sql) found = nullptr;  // same address, another statement
    if (!found) {
        auto created = std::make_unique<Entry>(session, sql);
        created->sql = sql;
        found = &cache->insert(sql, std::move(created));
    }
    CORRIDOR_ASSERT(typeid(*found) == typeid(Entry));  // one text, one set of parameter types
    auto& entry = static_cast<Entry&>(*found);
    try {
        decltype(auto) out = use(entry);
        if (cache->sqlite()) reset_sqlite_statement(entry.statement);
        return out;
    } catch (...) {
        // A failed SQLite statement is prepared afresh next time rather than trusted again. A
        // PostgreSQL one stays: the server keeps it regardless of the transaction's fate.
        if (cache->sqlite()) cache->erase(sql);
        throw;
    }
}

}  // namespace detail

// Executes `sql` with the arguments as its positional parameters (std::string, long long or int);
// returns the number of rows affected.
template <class... Args>
long long run_prepared(soci::session& session, const char* sql, const Args&... args) {
    using entry = detail::prepared_command<Args...>;
    return detail::with_prepared<entry>(session, sql, [&](entry& e) -> long long {
        e.params = std::tie(args...);
        count_round_trip();
        e.statement.execute(true);
        return e.statement.get_affected_rows();
    });
}

// Runs a query expected to return at most one row (a SELECT, or a statement with RETURNING) into
// `out`; false when it returned none.
template <class Row, class... Args>
bool fetch_prepared(soci::session& session, const char* sql, Row& out, const Args&... args) {
    using entry = detail::prepared_query<Row, Args...>;
    return detail::with_prepared<entry>(session, sql, [&](entry& e) -> bool {
        e.params = std::tie(args...);
        count_round_trip();
        e.statement.execute(true);
        if (!e.statement.got_data()) return false;
        out = std::move(e.row);
        return true;
    });
}

// A transaction-control statement without parameters (BEGIN, SAVEPOINT, RELEASE, COMMIT...):
// cached on SQLite; sent as a one-off on PostgreSQL, which keeps such commands out of prepared
// statements.
void run_control(soci::session& session, const char* sql);

}  // namespace corridor
