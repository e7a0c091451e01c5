// The WAL checkpointer keeps SQLite's write-ahead log short without the writer's connection doing
// the copying: past the soft limit a background checkpoint copies committed pages into the
// database file; past the hard limit the writer's own connection does it.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <thread>

#include "ledger/store/wal_checkpointer.hpp"
#include "tests/support/test_database.hpp"

using namespace corridor;

namespace {

// Commits `count` transactions of `rows` rows of about a page each.
void write_rows(soci::session& session, int count, int rows = 1) {
    std::string payload(3000, 'x');
    for (int i = 0; i < count; ++i) {
        soci::transaction transaction(session);
        for (int row = 0; row < rows; ++row) {
            session << "INSERT INTO checkpoint_probe (payload) VALUES (:p)", soci::use(payload);
        }
        transaction.commit();
    }
}

// The probe table, and a log emptied of everything written before the test.
void start_with_empty_log(testing::test_database& database) {
    database.session() << "CREATE TABLE checkpoint_probe (id INTEGER PRIMARY KEY, payload TEXT)";
    database.session() << "PRAGMA wal_checkpoint(TRUNCATE)";
}

// Frames in the WAL, as a new connection sees it (its own checkpoint attempt reports the length).
int wal_frames(const testing::test_database& database) {
    auto observer = database.open_another();
    int busy = 0, log = 0, copied = 0;
    *observer << "PRAGMA wal_checkpoint(PASSIVE)", soci::into(busy), soci::into(log), soci::into(copied);
    return log;
}

}  // namespace

TEST_CASE("the background checkpointer copies the WAL once it passes the soft limit", "[checkpoint]") {
    testing::test_database database(testing::schema::empty);
    if (database.backend() != database_backend::sqlite) return;  // SQLite's WAL only
    start_with_empty_log(database);
    wal_checkpointer checkpointer(database.url(), 100, 100000);
    auto writer = database.open_another();
    checkpointer.watch(*writer);

    write_rows(*writer, 3);
    CHECK(checkpointer.checkpoints_total() == 0);  // below the soft limit nothing is asked for

    write_rows(*writer, 100);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (checkpointer.checkpoints_total() == 0 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    REQUIRE(checkpointer.checkpoints_total() >= 1);
    CHECK(checkpointer.writer_checkpoints_total() == 0);
    long long rows = 0;
    *writer << "SELECT COUNT(*) FROM checkpoint_probe", soci::into(rows);
    CHECK(rows == 103);
}

TEST_CASE("the writer checkpoints on its own past the hard limit", "[checkpoint]") {
    testing::test_database database(testing::schema::empty);
    if (database.backend() != database_backend::sqlite) return;
    start_with_empty_log(database);
    wal_checkpointer checkpointer(database.url(), 1000, 1001);
    auto writer = database.open_another();
    checkpointer.watch(*writer);
    write_rows(*writer, 10);
    CHECK(checkpointer.writer_checkpoints_total() == 0);
    CHECK(wal_frames(database) > 10);  // no automatic checkpoint on the writer's connection
    // One commit takes the log from below the soft limit past the hard one, so the writer's
    // connection checkpoints before the background thread is even asked.
    write_rows(*writer, 1, 1500);
    CHECK(checkpointer.writer_checkpoints_total() == 1);
    CHECK(checkpointer.checkpoints_total() == 0);
    write_rows(*writer, 1);
    CHECK(wal_frames(database) < 100);  // the log restarted after the writer's checkpoint
}
