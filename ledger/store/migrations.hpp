#pragma once
// Numbered schema migrations, applied in order by `corridor migrate` and at `serve` start.
#include <soci/soci.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace corridor {

// The database holds migrations this binary does not know: it was migrated by a newer Corridor
// (a rollback to an older binary). Nothing may run on it; the message names both versions.
struct schema_newer_than_binary : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// The database still needs migrations this binary has, and the caller was told not to apply them
// (`serve --no-migrate`, the operator commands).
struct schema_not_migrated : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct migration_step {
    int version = 0;
    std::string name;
};

// What the database holds against what this binary knows. Reading it writes nothing (a database
// without the migrations table reads as version 0 with every migration pending).
struct schema_status {
    int database_version = 0;             // the highest applied version, 0 when none
    int binary_version = 0;               // latest_migration_version()
    std::vector<migration_step> pending;  // known to this binary, not applied, in order
    std::vector<int> unknown;             // applied, unknown to this binary: a newer binary ran
    bool newer_than_binary() const { return !unknown.empty(); }
    bool current() const { return pending.empty() && unknown.empty(); }
};
schema_status read_schema_status(soci::session& session);
// Every migration this binary knows, in the order it applies them: the status of a database that
// does not exist yet.
std::vector<migration_step> known_migrations();
// The refusal for a database newer than this binary, naming both versions.
std::string newer_schema_message(const schema_status& status);
// Throws schema_newer_than_binary or schema_not_migrated unless the schema is exactly this
// binary's: for processes that must not migrate.
void require_current_schema(soci::session& session);

// Applies every migration not yet recorded in schema_migrations; returns how many were applied.
// Safe to run from several processes at once (PostgreSQL advisory lock, SQLite write lock).
// Throws schema_newer_than_binary, having applied nothing, when the database is newer.
int apply_migrations(soci::session& session);
// The same, stopping after `version_max` (tests that write the data an older schema held).
int apply_migrations_up_to(soci::session& session, int version_max);
// The highest migration this build knows.
int latest_migration_version();
// How many migrations this build knows. Numbers are reserved per change, so a build may skip
// some (its count is then below the highest number).
int migration_count();
// The highest applied version in the database (0 when none).
int applied_migration_version(soci::session& session);

}  // namespace corridor
