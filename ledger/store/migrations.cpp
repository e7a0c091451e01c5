#include "ledger/store/migrations.hpp"

#include <algorithm>
#include <iostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/base/assert.hpp"
#include "ledger/base/clock.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/schema_history.hpp"

namespace corridor {
namespace {

// Every migration, the first schema and then each change in order (schema_history.hpp).
const std::vector<migration>& all_migrations() {
    static const std::vector<migration> migrations = [] {
        auto all = initial_schema_migrations();
        for (auto part : {schema_change_migrations(), compact_storage_migrations()}) {
            all.insert(all.end(), part.begin(), part.end());
        }
        return all;
    }();
    return migrations;
}

void ensure_migrations_table(soci::session& session) {
    session << "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
               "name TEXT NOT NULL, applied_at_ms BIGINT NOT NULL)";
}

// Serialises concurrent `migrate` runs of several processes until the transaction ends. SQLite
// needs nothing more: write_transaction already holds its single write lock.
void lock_migrations(soci::session& session) {
    if (backend_of(session) == database_backend::postgresql) {
        session << "SELECT pg_advisory_xact_lock(7244011)";
    }
}

bool migrations_table_exists(soci::session& session) {
    int found = 0;
    if (backend_of(session) == database_backend::postgresql) {
        session << "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = "
                   "current_schema() AND table_name = 'schema_migrations'",
            soci::into(found);
    } else {
        session << "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = "
                   "'schema_migrations'",
            soci::into(found);
    }
    return found > 0;
}

std::set<int> applied_versions(soci::session& session) {
    std::set<int> versions;
    if (!migrations_table_exists(session)) return versions;
    soci::rowset<int> rows = (session.prepare << "SELECT version FROM schema_migrations");
    for (int version : rows) versions.insert(version);
    return versions;
}

std::string joined(const std::vector<int>& versions) {
    std::string out;
    for (int version : versions) out += (out.empty() ? "" : ", ") + std::to_string(version);
    return out;
}

// What a migration found that the operator must act on (written by its own statements into
// schema_migration_notes), on the standard error stream where the process logs.
void report_notes(soci::session& session, int version) {
    if (version < 20) return;  // the notes table comes with migration 20
    std::string note;
    soci::statement select = (session.prepare << "SELECT note FROM schema_migration_notes WHERE "
                                                 "version = :v",
                              soci::use(version), soci::into(note));
    select.execute(false);
    while (select.fetch()) std::cerr << "migration " << version << ": " << note << std::endl;
}

// A statement of a migration, unless it is for the other backend: one that starts with
// "postgresql: " runs (without the prefix) on PostgreSQL only, one that starts with "sqlite: " on
// SQLite only.
void run_migration_statement(soci::session& session, std::string_view statement) {
    constexpr std::string_view postgresql_only = "postgresql: ";
    constexpr std::string_view sqlite_only = "sqlite: ";
    bool postgresql = backend_of(session) == database_backend::postgresql;
    if (statement.starts_with(postgresql_only)) {
        if (!postgresql) return;
        statement.remove_prefix(postgresql_only.size());
    } else if (statement.starts_with(sqlite_only)) {
        if (postgresql) return;
        statement.remove_prefix(sqlite_only.size());
    }
    session << std::string(statement);
}

}  // namespace

schema_status read_schema_status(soci::session& session) {
    schema_status status;
    status.binary_version = latest_migration_version();
    auto applied = applied_versions(session);
    if (!applied.empty()) status.database_version = *applied.rbegin();
    std::set<int> known;
    for (const auto& step : all_migrations()) {
        known.insert(step.version);
        if (!applied.contains(step.version)) status.pending.push_back({step.version, step.name});
    }
    for (int version : applied) {
        if (!known.contains(version)) status.unknown.push_back(version);
    }
    return status;
}

std::vector<migration_step> known_migrations() {
    std::vector<migration_step> out;
    for (const auto& step : all_migrations()) out.push_back({step.version, step.name});
    return out;
}

std::string newer_schema_message(const schema_status& status) {
    std::string message =
        "the database schema (version " + std::to_string(status.database_version) +
        ") is newer than this binary (schema version " + std::to_string(status.binary_version) +
        "): it holds migration(s) " + joined(status.unknown) + " that this binary does not know";
    return message + ". Run a Corridor release of schema version " +
           std::to_string(std::max(status.database_version, status.binary_version)) +
           " or later, or restore a backup taken before the upgrade";
}

void require_current_schema(soci::session& session) {
    auto status = read_schema_status(session);
    if (status.newer_than_binary()) throw schema_newer_than_binary(newer_schema_message(status));
    if (!status.pending.empty()) {
        std::vector<int> pending;
        for (const auto& step : status.pending) pending.push_back(step.version);
        throw schema_not_migrated(
            "the database schema is at version " + std::to_string(status.database_version) +
            " and this binary needs version " + std::to_string(status.binary_version) +
            " (pending migration(s) " + joined(pending) + "): run `corridor migrate` first");
    }
}

int latest_migration_version() {
    int latest = 0;
    for (const auto& step : all_migrations()) latest = std::max(latest, step.version);
    return latest;
}

int migration_count() {
    return static_cast<int>(all_migrations().size());
}

int applied_migration_version(soci::session& session) {
    ensure_migrations_table(session);
    int version = 0;
    soci::indicator indicator = soci::i_null;
    session << "SELECT MAX(version) FROM schema_migrations", soci::into(version, indicator);
    return indicator == soci::i_ok ? version : 0;
}

int apply_migrations(soci::session& session) {
    int applied = apply_migrations_up_to(session, latest_migration_version());
    CORRIDOR_ASSERT(applied_migration_version(session) == latest_migration_version());
    return applied;
}

int apply_migrations_up_to(soci::session& session, int version_max) {
    {
        // CREATE TABLE IF NOT EXISTS is not safe against itself on PostgreSQL: two sessions
        // that both find the table missing collide on the catalog's unique index. Take the lock.
        write_transaction transaction(session);
        lock_migrations(session);
        ensure_migrations_table(session);
        // Checked under the lock: a newer binary migrating at the same moment is seen here.
        auto status = read_schema_status(session);
        if (status.newer_than_binary())
            throw schema_newer_than_binary(newer_schema_message(status));
        transaction.commit();
    }
    int applied = 0;
    system_clock wall;
    for (const auto& step : all_migrations()) {
        if (step.version > version_max) break;
        write_transaction transaction(session);
        lock_migrations(session);
        int present = 0;
        session << "SELECT COUNT(*) FROM schema_migrations WHERE version = :v",
            soci::use(step.version), soci::into(present);
        if (present != 0) continue;
        for (const char* statement : step.statements) run_migration_statement(session, statement);
        report_notes(session, step.version);
        long long now_ms = wall.now_ms();
        std::string name = step.name;
        session << "INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (:v, :n, "
                   ":t)",
            soci::use(step.version), soci::use(name), soci::use(now_ms);
        transaction.commit();
        ++applied;
    }
    return applied;
}

}  // namespace corridor
