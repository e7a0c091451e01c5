#pragma once
// The schema's history: every migration this binary knows, as data, in the order they apply.
// Append only: a released migration is never edited. Portable SQL for SQLite and PostgreSQL (a
// statement that starts with "postgresql: " runs on PostgreSQL only, "sqlite: " on SQLite only);
// times are integer milliseconds since the epoch, booleans 0/1, JSON documents as TEXT.
// The first schema (migrations 1 to 8) is in schema_initial.cpp; every change since, appended in
// order, in schema_changes.cpp and from 43 on in schema_compact.cpp. migrations.cpp applies them.
#include <vector>

namespace corridor {

struct migration {
    int version;
    const char* name;
    std::vector<const char*> statements;
};

// Migrations 1 to 8: the tables of the first release.
std::vector<migration> initial_schema_migrations();
// Migrations 10 to 42: each later change of the schema, in the order it was made.
std::vector<migration> schema_change_migrations();
// Migrations 43 and on: the tables a payment writes in their compact form (a small key for the
// tenant and for accounts, ids as 16 bytes), then whatever follows, in order.
std::vector<migration> compact_storage_migrations();

}  // namespace corridor
