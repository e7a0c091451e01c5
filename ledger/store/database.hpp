#pragma once
// One soci code path for SQLite (embedded default) and PostgreSQL (production, several processes).
#include <soci/soci.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace corridor {

class pending_commit;

enum class database_backend { sqlite, postgresql };

struct database_url {
    database_backend backend = database_backend::sqlite;
    std::string connect_string;  // a file path for SQLite, the URI itself for PostgreSQL
    std::string text;            // as given, for messages (never contains a password: see redacted)

    // "sqlite:PATH" or "postgresql://..." (also "postgres://..."); nullopt when neither.
    static std::optional<database_url> parse(std::string_view text);
    // The URL with any password replaced by "***", for logs and messages.
    std::string redacted() const;
};

// Opens a session with the settings money needs: SQLite in WAL with synchronous=FULL (an
// acknowledged write survives power loss), foreign keys on, a busy timeout for the rare writer
// contention; PostgreSQL at READ COMMITTED with synchronous_commit on. The session carries a cache
// of prepared statements (statement_cache.hpp) that its deleter drops before disconnecting.
struct session_closer {
    void operator()(soci::session* session) const noexcept;
};
using session_ptr = std::unique_ptr<soci::session, session_closer>;
session_ptr open_session(const database_url& url);

database_backend backend_of(soci::session& session);

// A write transaction. SQLite takes the write lock at BEGIN (BEGIN IMMEDIATE) so two writers never
// deadlock upgrading read locks; PostgreSQL uses a plain BEGIN. Rolls back unless committed. Inside
// a transaction that is already open (the ledger writer's batch) it is a savepoint instead, so the
// same store function works on a pool thread and on the writer; its commit is then the batch's.
class write_transaction {
public:
    explicit write_transaction(soci::session& session);
    ~write_transaction();
    write_transaction(const write_transaction&) = delete;
    write_transaction& operator=(const write_transaction&) = delete;
    void commit();

private:
    friend class pending_commit;  // commits without waiting for the answer
    soci::session& session_;
    bool nested_ = false;
    bool open_ = true;
};

// True when the error is a unique or primary-key constraint violation, on either backend.
bool is_unique_violation(const soci::soci_error& error);
// True for transient contention (SQLite busy/locked, PostgreSQL serialization failure/deadlock).
bool is_retryable_conflict(const soci::soci_error& error);
// True when the database itself is out of reach rather than refusing the statement: the connection
// is lost (PostgreSQL restarted, the network cut) or the server is shutting down, starting up or
// out of connections. A request that meets it answers 503 with Retry-After, never 500.
bool is_database_unavailable(soci::session& session, const soci::soci_error& error);
// False when the session's connection is known to be broken (PostgreSQL; a SQLite file has none).
bool connection_alive(soci::session& session);

}  // namespace corridor
