#include "ledger/migrations.hpp"

#include <string>
#include <vector>

#include "ledger/assert.hpp"
#include "ledger/clock.hpp"
#include "ledger/database.hpp"

namespace corridor {
namespace {

struct migration {
    int version;
    const char* name;
    std::vector<const char*> statements;
};

// Append only: a released migration is never edited. Portable SQL for SQLite and PostgreSQL;
// times are integer milliseconds since the epoch, booleans 0/1, JSON documents as TEXT.
const std::vector<migration>& all_migrations() {
    static const std::vector<migration> migrations = {
        {1,
         "platforms, configuration, tokens, customers",
         {
             R"(CREATE TABLE platforms (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                is_regulated INTEGER NOT NULL,
                created_at_ms BIGINT NOT NULL))",
             R"(CREATE TABLE platform_configs (
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                id TEXT NOT NULL UNIQUE,
                uma_domain TEXT NOT NULL,
                proxy_uma_subdomain TEXT NOT NULL UNIQUE,
                webhook_endpoint TEXT,
                supported_currencies TEXT NOT NULL,
                created_at_ms BIGINT NOT NULL,
                updated_at_ms BIGINT NOT NULL,
                PRIMARY KEY (platform_id, environment)))",
             "CREATE UNIQUE INDEX platform_configs_uma_domain ON platform_configs (environment, "
             "uma_domain)",
             R"(CREATE TABLE tokens (
                id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                name TEXT NOT NULL,
                permissions INTEGER NOT NULL,
                client_id TEXT NOT NULL UNIQUE,
                secret_hash TEXT NOT NULL,
                is_deleted INTEGER NOT NULL,
                created_at_ms BIGINT NOT NULL,
                updated_at_ms BIGINT NOT NULL))",
             "CREATE INDEX tokens_by_tenant ON tokens (platform_id, environment, id)",
             R"(CREATE TABLE customers (
                id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                platform_customer_id TEXT NOT NULL,
                customer_type TEXT NOT NULL,
                uma_address TEXT NOT NULL,
                kyc_status TEXT NOT NULL,
                full_name TEXT,
                birth_date TEXT,
                nationality TEXT,
                address TEXT,
                business_info TEXT,
                beneficial_owners TEXT,
                is_deleted INTEGER NOT NULL,
                created_at_ms BIGINT NOT NULL,
                updated_at_ms BIGINT NOT NULL))",
             "CREATE INDEX customers_by_tenant ON customers (platform_id, environment, id)",
             "CREATE UNIQUE INDEX customers_uma_address ON customers (environment, uma_address) "
             "WHERE is_deleted = 0",
             "CREATE UNIQUE INDEX customers_platform_customer_id ON customers (platform_id, "
             "environment, platform_customer_id) WHERE is_deleted = 0",
         }},
    };
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

}  // namespace

int latest_migration_version() { return all_migrations().back().version; }

int applied_migration_version(soci::session& session) {
    ensure_migrations_table(session);
    int version = 0;
    soci::indicator indicator = soci::i_null;
    session << "SELECT MAX(version) FROM schema_migrations", soci::into(version, indicator);
    return indicator == soci::i_ok ? version : 0;
}

int apply_migrations(soci::session& session) {
    {
        // CREATE TABLE IF NOT EXISTS is not safe against itself on PostgreSQL: two sessions
        // that both find the table missing collide on the catalog's unique index. Take the lock.
        write_transaction transaction(session);
        lock_migrations(session);
        ensure_migrations_table(session);
        transaction.commit();
    }
    int applied = 0;
    system_clock wall;
    for (const auto& step : all_migrations()) {
        write_transaction transaction(session);
        lock_migrations(session);
        int present = 0;
        session << "SELECT COUNT(*) FROM schema_migrations WHERE version = :v",
            soci::use(step.version), soci::into(present);
        if (present != 0) continue;
        for (const char* statement : step.statements) session << statement;
        long long now_ms = wall.now_ms();
        std::string name = step.name;
        session << "INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (:v, :n, "
                   ":t)",
            soci::use(step.version), soci::use(name), soci::use(now_ms);
        transaction.commit();
        ++applied;
    }
    CORRIDOR_ASSERT(applied_migration_version(session) == latest_migration_version());
    return applied;
}

}  // namespace corridor
