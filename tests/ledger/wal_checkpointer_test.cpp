// The WAL checkpointer keeps SQLite's write-ahead log short without the writer's connection doing
// the copying: past the soft limit a background checkpoint copies committed pages into the
// database file; past the hard limit the writer's own connection does it.
#include "ledger/store/wal_checkpointer.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

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
    *observer << "PRAGMA wal_checkpoint(PASSIVE)", soci::into(busy), soci::into(log),
        soci::into(copied);
    return log;
}

}  // namespace

TEST_CASE("the background checkpointer copies the WAL once it passes the soft limit",
          "[checkpoint]") {
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

TEST_CASE("a checkpoint waits for the soft limit of new frames, not of the WAL's length",
          "[checkpoint]") {
    testing::test_database database(testing::schema::empty);
    if (database.backend() != database_backend::sqlite) return;
    start_with_empty_log(database);
    auto writer = database.open_another();
    write_rows(*writer, 1, 150);  // far below the connection's own automatic threshold
    // A reader that began while those frames were still only in the WAL keeps the writer from
    // starting the WAL again, as readers and a checkpoint that lags do under load.
    auto reader = database.open_another();
    soci::transaction reading(*reader);
    long long seen = 0;
    *reader << "SELECT COUNT(*) FROM checkpoint_probe", soci::into(seen);
    REQUIRE(seen == 150);

    wal_checkpointer checkpointer(database.url(), 100, 100000);
    checkpointer.watch(*writer);
    auto wait_for_checkpoints = [&](std::uint64_t count) {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (checkpointer.checkpoints_total() < count &&
               std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        return checkpointer.checkpoints_total();
    };
    write_rows(*writer, 1);  // the WAL is past the soft limit, none of it copied yet
    REQUIRE(wait_for_checkpoints(1) == 1);

    // The WAL stays longer than the soft limit, but few frames are new since that checkpoint:
    // copying them now would copy the same hot pages again and again.
    write_rows(*writer, 20);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK(checkpointer.checkpoints_total() == 1);
    CHECK(wal_frames(database) > 150);  // not started again: the reader pins it

    write_rows(*writer, 100);
    CHECK(wait_for_checkpoints(2) >= 2);
    CHECK(checkpointer.writer_checkpoints_total() == 0);
    reading.commit();
}
