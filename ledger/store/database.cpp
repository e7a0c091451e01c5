#include "ledger/store/database.hpp"

#include "ledger/store/control_queue.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/store/outbox.hpp"
#include "ledger/store/sqlite_wal_buffer.hpp"
#include "ledger/store/statement_cache.hpp"
#include "ledger/store/transaction_state.hpp"

#include <soci/postgresql/soci-postgresql.h>
#include <soci/sqlite3/soci-sqlite3.h>
#include <sqlite3.h>

#include <libpq-fe.h>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <stdexcept>

namespace corridor {

std::optional<database_url> database_url::parse(std::string_view text) {
    database_url url;
    url.text = std::string(text);
    if (text.starts_with("sqlite:")) {
        url.backend = database_backend::sqlite;
        url.connect_string = std::string(text.substr(7));
        if (url.connect_string.starts_with("//")) url.connect_string.erase(0, 2);
        if (url.connect_string.empty()) return std::nullopt;
        return url;
    }
    if (text.starts_with("postgresql://") || text.starts_with("postgres://")) {
        url.backend = database_backend::postgresql;
        url.connect_string = std::string(text);
        return url;
    }
    return std::nullopt;
}

std::string database_url::redacted() const {
    if (backend != database_backend::postgresql) return text;
    std::string out = text;
    auto scheme_end = out.find("://");
    auto at = out.find('@');
    if (scheme_end != std::string::npos && at != std::string::npos) {
        auto colon = out.find(':', scheme_end + 3);
        if (colon != std::string::npos && colon < at)
            out = out.substr(0, colon + 1) + "***" + out.substr(at);
    }
    // A password given as a query parameter (password=...) is hidden too.
    for (auto key = out.find("password="); key != std::string::npos;
         key = out.find("password=", key + 12)) {
        auto end = out.find('&', key);
        out =
            out.substr(0, key) + "password=***" + (end == std::string::npos ? "" : out.substr(end));
    }
    return out;
}

namespace {

// soci rewrites connect strings it parses, which breaks URIs; libpq's own parser turns the URI into
// the key=value form that passes through untouched.
std::string postgresql_keyword_string(const std::string& uri) {
    char* error = nullptr;
    PQconninfoOption* options = PQconninfoParse(uri.c_str(), &error);
    if (!options) {
        std::string message = error ? error : "invalid PostgreSQL URL";
        if (error) PQfreemem(error);
        throw std::runtime_error("database URL: " + message);
    }
    std::string out;
    for (PQconninfoOption* option = options; option->keyword; ++option) {
        if (!option->val || !*option->val) continue;
        std::string value = option->val;
        std::string quoted;
        for (char c : value) {
            if (c == '\\' || c == '\'') quoted.push_back('\\');
            quoted.push_back(c);
        }
        if (!out.empty()) out += ' ';
        out += std::string(option->keyword) + "='" + quoted + "'";
    }
    PQconninfoFree(options);
    return out;
}

// soci sessions are used by one thread at a time, so SQLite's per-connection mutexes (its default
// serialized mode) only cost time on every call; multi-thread mode leaves them out. Memory
// statistics, which take a global mutex on every allocation, are not used either. Both settings
// apply only before SQLite initializes; if something initialized it earlier, the defaults stay.
void configure_sqlite_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        sqlite_api::sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
        sqlite_api::sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
        install_sqlite_wal_buffer();  // a commit's WAL frames in few writes (sqlite_wal_buffer.hpp)
    });
}

// packed_id(text): the uuid of "<type>:<uuid>" as 16 bytes, NULL for NULL or ''. PostgreSQL has
// the same function (migration 46), so statements bind typed ids on both backends alike.
void sqlite_packed_id(sqlite_api::sqlite3_context* context, int, sqlite_api::sqlite3_value** args) {
    if (sqlite3_value_type(args[0]) == SQLITE_NULL) return sqlite3_result_null(context);
    const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(args[0]));
    std::string_view typed(text, static_cast<std::size_t>(sqlite3_value_bytes(args[0])));
    if (typed.empty()) return sqlite3_result_null(context);
    unsigned char bytes[16];
    if (!pack_id(typed, bytes)) {
        return sqlite3_result_error(context, "packed_id: not an id with a uuid", -1);
    }
    sqlite3_result_blob(context, bytes, 16,
                        reinterpret_cast<sqlite_api::sqlite3_destructor_type>(-1));
}

// typed_id(type, packed): "<type>:<uuid>" of 16 stored bytes, NULL for NULL.
void sqlite_typed_id(sqlite_api::sqlite3_context* context, int, sqlite_api::sqlite3_value** args) {
    if (sqlite3_value_type(args[1]) == SQLITE_NULL) return sqlite3_result_null(context);
    if (sqlite3_value_bytes(args[1]) != 16) {
        return sqlite3_result_error(context, "typed_id: not 16 bytes", -1);
    }
    const auto* type = reinterpret_cast<const char*>(sqlite3_value_text(args[0]));
    std::string_view type_text(type, static_cast<std::size_t>(sqlite3_value_bytes(args[0])));
    std::string out =
        unpack_id(type_text, static_cast<const unsigned char*>(sqlite3_value_blob(args[1])));
    sqlite3_result_text(context, out.data(), static_cast<int>(out.size()),
                        reinterpret_cast<sqlite_api::sqlite3_destructor_type>(-1));
}

// On every connection, before migrations run (migration 46 converts rows with them).
void register_sqlite_functions(soci::session& session) {
    auto* backend = static_cast<soci::sqlite3_session_backend*>(session.get_backend());
    constexpr int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
    if (sqlite3_create_function(backend->conn_, "packed_id", 1, flags, nullptr, sqlite_packed_id,
                                nullptr, nullptr) != SQLITE_OK ||
        sqlite3_create_function(backend->conn_, "typed_id", 2, flags, nullptr, sqlite_typed_id,
                                nullptr, nullptr) != SQLITE_OK) {
        throw std::runtime_error("cannot register SQLite functions");
    }
}

// A driver message on one line, without soci's preamble.
std::string one_line(std::string text) {
    static constexpr std::string_view preamble = "Cannot establish connection to the database.";
    if (text.starts_with(preamble)) text.erase(0, preamble.size());
    std::string out;
    for (char c : text) {
        if (c == '\n' || c == '\t' || c == '\r') c = ' ';
        if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
        out += c;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

// Why SQLite could not open `path`, in the operating system's words where the cause is the file
// or its folder (SQLite itself says only "unable to open database file").
std::string sqlite_open_failure(const std::string& path, const std::string& driver_message) {
    namespace fs = std::filesystem;
    fs::path file(path);
    fs::path folder = file.parent_path();
    if (folder.empty()) folder = ".";
    std::error_code error;
    auto folder_status = fs::status(folder, error);
    if (error || !fs::exists(folder_status)) {
        return "its folder " + folder.string() + " does not exist";
    }
    if (!fs::is_directory(folder_status)) return folder.string() + " is not a folder";
    auto file_status = fs::status(file, error);
    if (!error && fs::exists(file_status)) {
        if (fs::is_directory(file_status)) return "it is a folder, not a file";
        if (::access(path.c_str(), R_OK | W_OK) != 0) return std::strerror(errno);
    } else if (::access(folder.c_str(), W_OK | X_OK) != 0) {
        return "cannot create it in " + folder.string() + ": " + std::strerror(errno);
    }
    return one_line(driver_message);
}

}  // namespace

void session_closer::operator()(soci::session* session) const noexcept {
    if (!session) return;
    detach_statement_cache(*session);
    delete session;
}

session_ptr open_session(const database_url& url) {
    std::unique_ptr<soci::session> session;
    if (url.backend == database_backend::sqlite) {
        configure_sqlite_once();
        try {
            session = std::make_unique<soci::session>(*soci::factory_sqlite3(),
                                                      "db=\"" + url.connect_string + "\"");
            *session << "PRAGMA journal_mode=WAL";
        } catch (const std::exception& error) {
            throw std::runtime_error("cannot open SQLite database " + url.connect_string + ": " +
                                     sqlite_open_failure(url.connect_string, error.what()));
        }
        register_sqlite_functions(*session);
        *session << "PRAGMA synchronous=FULL";
        *session << "PRAGMA foreign_keys=ON";
        *session << "PRAGMA busy_timeout=10000";
        // Savepoints (one per ledger command and one per request) keep a statement journal of the
        // pages they change; past 64 KiB SQLite spills it to a temporary file, which costs an
        // open, writes and an unlink per command. It is never used for crash recovery (the WAL
        // is), so it can live in memory like other temporary storage.
        *session << "PRAGMA temp_store=MEMORY";
        // A checkpoint copies every page changed since the last one into the database file and
        // syncs it, on whichever connection commits past the threshold (the ledger writer, in
        // practice). The hot pages (service accounts, the tails of tables and indexes) change in
        // every batch; checkpointing every 4000 pages rather than 1000 writes each of them a
        // quarter as often. The WAL may grow to about 16 MiB between checkpoints.
        *session << "PRAGMA wal_autocheckpoint=4000";
    } else {
        auto keywords = postgresql_keyword_string(url.connect_string);
        try {
            session = std::make_unique<soci::session>(*soci::factory_postgresql(), keywords);
        } catch (const std::exception& error) {
            throw std::runtime_error("cannot connect to PostgreSQL database " + url.redacted() +
                                     ": " + one_line(error.what()));
        }
        *session << "SET synchronous_commit = on";
        *session << "SET client_min_messages = warning";
    }
    session_ptr owned(session.release());
    attach_statement_cache(*owned);
    return owned;
}

database_backend backend_of(soci::session& session) {
    return session.get_backend_name() == "postgresql" ? database_backend::postgresql
                                                       : database_backend::sqlite;
}

// Whether the connection is inside a transaction already (the ledger writer's batch).
bool in_transaction(soci::session& session) {
    if (control_queue_active(session)) return true;  // the writer's batch, its BEGIN maybe queued
    if (backend_of(session) == database_backend::sqlite) {
        auto* backend = static_cast<soci::sqlite3_session_backend*>(session.get_backend());
        return sqlite3_get_autocommit(backend->conn_) == 0;
    }
    auto* backend = static_cast<soci::postgresql_session_backend*>(session.get_backend());
    return PQtransactionStatus(backend->conn_) != PQTRANS_IDLE;
}

write_transaction::write_transaction(soci::session& session)
    : session_(session), nested_(in_transaction(session)) {
    if (nested_) {
        run_control(session_, "SAVEPOINT write_transaction");
    } else if (backend_of(session_) == database_backend::sqlite) {
        run_control(session_, "BEGIN IMMEDIATE");
    } else {
        run_control(session_, "BEGIN");
    }
}

write_transaction::~write_transaction() {
    if (!open_) return;
    try {
        if (nested_) {
            run_control(session_, "ROLLBACK TO SAVEPOINT write_transaction");
            run_control(session_, "RELEASE SAVEPOINT write_transaction");
        } else {
            outbox_rolled_back_on_this_thread();
            run_control(session_, "ROLLBACK");
        }
    } catch (...) {
        // The connection is broken; the database discards the transaction on its side.
    }
}

void write_transaction::commit() {
    if (nested_) {
        run_control(session_, "RELEASE SAVEPOINT write_transaction");
        open_ = false;
        return;
    }
    // Events recorded here wake delivery once they are durable: other processes through NOTIFY
    // (sent by PostgreSQL at COMMIT, one per transaction however many events), this one after it.
    bool events = outbox_events_pending_on_this_thread();
    if (events && backend_of(session_) == database_backend::postgresql) {
        run_control(session_, outbox_notify_sql);
    }
    run_control(session_, "COMMIT");
    open_ = false;
    if (events) outbox_committed_on_this_thread();
}

bool is_unique_violation(const soci::soci_error& error) {
    if (const auto* sqlite_error = dynamic_cast<const soci::sqlite3_soci_error*>(&error)) {
        return (sqlite_error->result() & 0xff) == SQLITE_CONSTRAINT &&
               (std::strstr(error.what(), "UNIQUE") || std::strstr(error.what(), "PRIMARY KEY"));
    }
    if (const auto* pg_error = dynamic_cast<const soci::postgresql_soci_error*>(&error)) {
        return pg_error->sqlstate() == "23505";
    }
    return false;
}

bool is_retryable_conflict(const soci::soci_error& error) {
    if (const auto* sqlite_error = dynamic_cast<const soci::sqlite3_soci_error*>(&error)) {
        int code = sqlite_error->result() & 0xff;
        return code == SQLITE_BUSY || code == SQLITE_LOCKED;
    }
    if (const auto* pg_error = dynamic_cast<const soci::postgresql_soci_error*>(&error)) {
        auto state = pg_error->sqlstate();
        return state == "40001" || state == "40P01";
    }
    return false;
}

bool connection_alive(soci::session& session) {
    if (backend_of(session) != database_backend::postgresql) return true;
    auto* backend = static_cast<soci::postgresql_session_backend*>(session.get_backend());
    return backend->conn_ != nullptr && PQstatus(backend->conn_) == CONNECTION_OK;
}

bool is_database_unavailable(soci::session& session, const soci::soci_error& error) {
    if (backend_of(session) != database_backend::postgresql) return false;
    if (!connection_alive(session)) return true;
    if (const auto* pg_error = dynamic_cast<const soci::postgresql_soci_error*>(&error)) {
        auto state = pg_error->sqlstate();
        // 08: connection exception; 57P01-57P03: admin or crash shutdown, cannot connect now;
        // 53300: too many connections.
        return state.rfind("08", 0) == 0 || state == "57P01" || state == "57P02" ||
               state == "57P03" || state == "53300";
    }
    return false;
}

}  // namespace corridor
