#pragma once
// Numbered schema migrations, applied in order by `corridor migrate` and at `serve` start.
#include <soci/soci.h>

namespace corridor {

// Applies every migration not yet recorded in schema_migrations; returns how many were applied.
// Safe to run from several processes at once (PostgreSQL advisory lock, SQLite write lock).
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
