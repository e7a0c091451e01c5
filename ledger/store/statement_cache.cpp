#include "ledger/store/statement_cache.hpp"

#include <soci/sqlite3/soci-sqlite3.h>
#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <mutex>

#include "ledger/store/control_queue.hpp"
#include "ledger/store/deferred_writes.hpp"

namespace corridor {
namespace {

// Sessions are used by one thread at a time, so only the registry itself needs the lock.
std::mutex registry_mutex;
std::unordered_map<const soci::session*, std::unique_ptr<statement_cache>>& registry() {
    static auto* caches = new std::unordered_map<const soci::session*, std::unique_ptr<statement_cache>>();
    return *caches;
}
// Changes whenever a cache is attached or detached, so that a thread's remembered answer is only
// trusted while the registry is as it was when the answer was read.
std::atomic<std::uint64_t> registry_generation{0};

// The last answer on this thread: a thread runs statement after statement on one session (the
// ledger writer a few dozen per payment), and each lookup would otherwise take the lock.
struct remembered_cache {
    const soci::session* session = nullptr;
    statement_cache* cache = nullptr;
    std::uint64_t generation = 0;
};
thread_local remembered_cache last_lookup;

// soci tells its logger about every statement it prepares: a one-off statement (session << sql, a
// rowset) once per execution, a cached statement once per session (on PostgreSQL a round trip of
// its own). Executions of cached statements are counted by run_prepared and fetch_prepared.
class traffic_logger final : public soci::logger_impl {
public:
    explicit traffic_logger(soci::session* session) : session_(session) {}
    void start_query(const std::string& query) override {
        send_queued_controls(*session_);  // before the statement soci is about to send
        count_round_trip();
        last_query_ = query;
    }
    std::string get_last_query() const override { return last_query_; }

private:
    logger_impl* do_clone() const override { return new traffic_logger(session_); }
    soci::session* session_;
    std::string last_query_;
};

}  // namespace

statement_cache* statement_cache_of(soci::session& session) {
    // Every cached statement is looked up here just before it runs.
    send_queued_controls(session);
    std::uint64_t generation = registry_generation.load(std::memory_order_acquire);
    if (last_lookup.session == &session && last_lookup.generation == generation) {
        return last_lookup.cache;
    }
    std::lock_guard lock(registry_mutex);
    auto& caches = registry();
    auto found = caches.find(&session);
    statement_cache* cache = found == caches.end() ? nullptr : found->second.get();
    last_lookup = {&session, cache, registry_generation.load(std::memory_order_relaxed)};
    return cache;
}

void attach_statement_cache(soci::session& session) {
    session.set_logger(new traffic_logger(&session));
    auto cache = std::make_unique<statement_cache>(session.get_backend_name() == "sqlite3");
    std::lock_guard lock(registry_mutex);
    auto& slot = registry()[&session];
    CORRIDOR_ASSERT(!slot);
    slot = std::move(cache);
    registry_generation.fetch_add(1, std::memory_order_release);
}

void detach_statement_cache(soci::session& session) {
    std::unique_ptr<statement_cache> cache;
    {
        std::lock_guard lock(registry_mutex);
        auto& caches = registry();
        auto found = caches.find(&session);
        if (found == caches.end()) return;
        cache = std::move(found->second);
        caches.erase(found);
        registry_generation.fetch_add(1, std::memory_order_release);
    }
    // The statements finalize here, while their connection is still open.
}

void reset_sqlite_statement(soci::statement& statement) {
    auto* backend = static_cast<soci::sqlite3_statement_backend*>(statement.get_backend());
    if (!backend || !backend->stmt_) return;
    auto* handle = backend->stmt_;
    if (!sqlite3_stmt_readonly(handle) && sqlite3_stmt_busy(handle)) {
        while (sqlite3_step(handle) == SQLITE_ROW) {
        }
    }
    sqlite3_reset(handle);
}

void run_control(soci::session& session, const char* sql) {
    if (queue_control(session, sql)) {
        if (deferred_writes* deferred = deferred_writes_of(session)) deferred->on_control(sql);
        return;
    }
    statement_cache* cache = statement_cache_of(session);
    if (cache && cache->sqlite()) {
        run_prepared(session, sql);
    } else {
        session << sql;  // counted by the session's logger
    }
    // Writes kept for the batch's flush follow the savepoints they were made in.
    if (deferred_writes* deferred = deferred_writes_of(session)) deferred->on_control(sql);
}

}  // namespace corridor
