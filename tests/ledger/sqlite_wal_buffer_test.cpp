// SQLite's WAL writes gathered into few writes (sqlite_wal_buffer.hpp) lose nothing and hide
// nothing: a commit is readable by another connection as soon as it returns, whatever the
// writer's synchronous setting (the commit frame is written out before SQLite publishes it); a
// transaction of many times the buffer's size commits whole; a rolled-back one leaves no trace;
// everything is there after the connections close and the file is opened again.
#include "ledger/store/sqlite_wal_buffer.hpp"

#include <soci/soci.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "ledger/store/database.hpp"

using namespace corridor;
namespace fs = std::filesystem;

namespace {

struct temp_database {
    fs::path folder =
        fs::temp_directory_path() / ("corridor-wal-buffer-" + std::to_string(::getpid()) + "-" +
                                     std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    database_url url;
    temp_database() {
        fs::create_directories(folder);
        url = *database_url::parse("sqlite:" + (folder / "test.db").string());
    }
    ~temp_database() {
        std::error_code ignored;
        fs::remove_all(folder, ignored);
    }
};

long long count_and_bytes(soci::session& session, long long& bytes) {
    long long count = 0;
    session << "SELECT COUNT(*), COALESCE(SUM(length(body)), 0) FROM notes", soci::into(count),
        soci::into(bytes);
    return count;
}

}  // namespace

TEST_CASE("sqlite wal buffer: commits are whole, visible at once and kept", "[store]") {
    temp_database db;
    constexpr int body_bytes = 3000;  // about a page a row
    constexpr int rows_large = 200;   // about 600 KiB: many times the gathered writes' limit
    static_assert(rows_large * body_bytes > 8 * wal_buffer_bytes_max);
    {
        auto writer = open_session(db.url);
        auto reader = open_session(db.url);
        *writer << "CREATE TABLE notes (id INTEGER PRIMARY KEY, body BLOB NOT NULL)";

        // Visible to the other connection when the commit returns, with synchronous on or off.
        for (const char* sync : {"FULL", "OFF"}) {
            *writer << (std::string("PRAGMA synchronous=") + sync);
            long long before_bytes = 0, after_bytes = 0;
            long long before = count_and_bytes(*reader, before_bytes);
            *writer << "INSERT INTO notes (body) VALUES (zeroblob(" + std::to_string(body_bytes) +
                           "))";
            long long after = count_and_bytes(*reader, after_bytes);
            CHECK(after == before + 1);
            CHECK(after_bytes == before_bytes + body_bytes);
        }

        // A large transaction commits whole.
        *writer << "BEGIN IMMEDIATE";
        for (int i = 0; i < rows_large; ++i)
            *writer << "INSERT INTO notes (body) VALUES (randomblob(" + std::to_string(body_bytes) +
                           "))";
        *writer << "COMMIT";
        long long bytes = 0;
        CHECK(count_and_bytes(*reader, bytes) == 2 + rows_large);
        CHECK(bytes == (2 + rows_large) * static_cast<long long>(body_bytes));

        // A large transaction rolled back leaves nothing, and the next commit is whole.
        *writer << "BEGIN IMMEDIATE";
        for (int i = 0; i < rows_large; ++i)
            *writer << "INSERT INTO notes (body) VALUES (randomblob(" + std::to_string(body_bytes) +
                           "))";
        *writer << "ROLLBACK";
        *writer << "UPDATE notes SET body = zeroblob(10) WHERE id = 1";
        CHECK(count_and_bytes(*reader, bytes) == 2 + rows_large);
        CHECK(bytes == (1 + rows_large) * static_cast<long long>(body_bytes) + 10);
        std::string integrity;
        *reader << "PRAGMA integrity_check", soci::into(integrity);
        CHECK(integrity == "ok");
    }
    // Opened again (the WAL recovered or checkpointed at close): everything committed is there.
    auto again = open_session(db.url);
    long long bytes = 0;
    CHECK(count_and_bytes(*again, bytes) == 2 + rows_large);
    CHECK(bytes == (1 + rows_large) * static_cast<long long>(body_bytes) + 10);
}
