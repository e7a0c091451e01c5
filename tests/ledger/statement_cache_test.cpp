// Prepared statements cached per session: reused across calls with new parameter values, never
// holding a stale read snapshot between calls, recovering after a failed execution, and falling
// back to one-off statements on sessions that have no cache.
#include "ledger/store/statement_cache.hpp"

#include <catch2/catch.hpp>
#include <soci/sqlite3/soci-sqlite3.h>
#include <string>

#include "tests/support/test_database.hpp"

using namespace corridor;
using corridor::testing::test_database;

namespace {

struct count_row {
    long long value = 0;
    void bind(soci::statement& statement) { statement.exchange(soci::into(value)); }
};

struct probe_row {
    std::string id;
    long long amount = 0;
    void bind(soci::statement& statement) {
        statement.exchange(soci::into(id));
        statement.exchange(soci::into(amount));
    }
};

constexpr const char* insert_probe = "INSERT INTO cache_probe (id, amount) VALUES (:i, :a)";
constexpr const char* select_probe = "SELECT id, amount FROM cache_probe WHERE id = :i";
constexpr const char* count_probes = "SELECT COUNT(*) FROM cache_probe";

}  // namespace

TEST_CASE("cached statements are reused with fresh parameter values", "[store]") {
    test_database db;
    auto& session = db.session();
    REQUIRE(statement_cache_of(session) != nullptr);
    session << "CREATE TABLE cache_probe (id TEXT PRIMARY KEY, amount BIGINT NOT NULL)";
    for (long long i = 0; i < 5; ++i) {
        CHECK(run_prepared(session, insert_probe, "p" + std::to_string(i), i * 10) == 1);
    }
    for (long long i = 0; i < 5; ++i) {
        probe_row row;
        REQUIRE(fetch_prepared(session, select_probe, row, "p" + std::to_string(i)));
        CHECK(row.id == "p" + std::to_string(i));
        CHECK(row.amount == i * 10);
    }
    probe_row missing;
    CHECK_FALSE(fetch_prepared(session, select_probe, missing, std::string("absent")));
    count_row count;
    REQUIRE(fetch_prepared(session, count_probes, count));
    CHECK(count.value == 5);
    CHECK(run_prepared(session, "UPDATE cache_probe SET amount = amount + :a WHERE id <> :i", 1LL,
                       std::string("p0")) == 4);
}

TEST_CASE("a cached query sees what other connections committed since its last use", "[store]") {
    test_database db;
    auto& reader = db.session();
    reader << "CREATE TABLE cache_probe (id TEXT PRIMARY KEY, amount BIGINT NOT NULL)";
    reader << "INSERT INTO cache_probe (id, amount) VALUES ('a', 1), ('b', 2)";
    auto writer = db.open_another();
    for (long long round = 0; round < 3; ++round) {
        probe_row row;
        REQUIRE(fetch_prepared(reader, select_probe, row, std::string("a")));
        CHECK(row.amount == 1 + round);
        count_row count;
        REQUIRE(fetch_prepared(reader, count_probes, count));
        CHECK(count.value == 2 + round);
        // A reader left mid-statement would keep its snapshot and miss these.
        *writer << "UPDATE cache_probe SET amount = amount + 1 WHERE id = 'a'";
        *writer << "INSERT INTO cache_probe (id, amount) VALUES ('n" << round << "', 0)";
    }
}

TEST_CASE("a cached statement keeps working after an execution fails", "[store]") {
    test_database db;
    auto& session = db.session();
    session << "CREATE TABLE cache_probe (id TEXT PRIMARY KEY, amount BIGINT NOT NULL)";
    REQUIRE(run_prepared(session, insert_probe, std::string("x"), 1LL) == 1);
    bool unique_violation = false;
    try {
        run_prepared(session, insert_probe, std::string("x"), 2LL);
    } catch (const soci::soci_error& error) {
        unique_violation = is_unique_violation(error);
    }
    CHECK(unique_violation);
    CHECK(run_prepared(session, insert_probe, std::string("y"), 3LL) == 1);
    count_row count;
    REQUIRE(fetch_prepared(session, count_probes, count));
    CHECK(count.value == 2);
}

TEST_CASE("savepoints and transactions run through cached control statements", "[store]") {
    test_database db;
    auto& session = db.session();
    session << "CREATE TABLE cache_probe (id TEXT PRIMARY KEY, amount BIGINT NOT NULL)";
    for (int round = 0; round < 3; ++round) {
        write_transaction transaction(session);
        run_control(session, "SAVEPOINT probe");
        run_prepared(session, insert_probe, "kept" + std::to_string(round), 1LL);
        run_control(session, "RELEASE SAVEPOINT probe");
        run_control(session, "SAVEPOINT probe");
        run_prepared(session, insert_probe, "undone" + std::to_string(round), 1LL);
        run_control(session, "ROLLBACK TO SAVEPOINT probe");
        run_control(session, "RELEASE SAVEPOINT probe");
        transaction.commit();
    }
    count_row count;
    REQUIRE(fetch_prepared(session, count_probes, count));
    CHECK(count.value == 3);
}

TEST_CASE("a session made without open_session runs statements uncached", "[ledger]") {
    soci::session session(*soci::factory_sqlite3(), "db=:memory:");
    CHECK(statement_cache_of(session) == nullptr);
    session << "CREATE TABLE cache_probe (id TEXT PRIMARY KEY, amount BIGINT NOT NULL)";
    CHECK(run_prepared(session, insert_probe, std::string("a"), 5LL) == 1);
    probe_row row;
    REQUIRE(fetch_prepared(session, select_probe, row, std::string("a")));
    CHECK(row.amount == 5);
}

TEST_CASE("a thread's remembered cache lookup follows attach and detach", "[ledger]") {
    test_database db;
    auto& session = db.session();
    statement_cache* attached = statement_cache_of(session);
    REQUIRE(attached != nullptr);
    CHECK(statement_cache_of(session) == attached);  // the remembered answer
    detach_statement_cache(session);
    CHECK(statement_cache_of(session) == nullptr);
    attach_statement_cache(session);
    statement_cache* again = statement_cache_of(session);
    REQUIRE(again != nullptr);
    session << "CREATE TABLE cache_probe (id TEXT PRIMARY KEY, amount BIGINT NOT NULL)";
    CHECK(run_prepared(session, insert_probe, std::string("a"), 7LL) == 1);
    probe_row row;
    REQUIRE(fetch_prepared(session, select_probe, row, std::string("a")));
    CHECK(row.amount == 7);
}

TEST_CASE("each execution of a cached statement is one round trip; its preparation one more",
          "[store][writer]") {
    test_database db;
    auto& session = db.session();
    session << "CREATE TABLE cache_probe (id TEXT PRIMARY KEY, amount BIGINT NOT NULL)";
    std::uint64_t before = this_thread_traffic.round_trips;
    run_prepared(session, insert_probe, std::string("first"), 1LL);
    std::uint64_t first_use = this_thread_traffic.round_trips - before;
    CHECK(first_use == 2);  // prepared (soci's logger), then executed
    before = this_thread_traffic.round_trips;
    for (long long i = 0; i < 3; ++i)
        run_prepared(session, insert_probe, "again" + std::to_string(i), i);
    CHECK(this_thread_traffic.round_trips - before == 3);
    before = this_thread_traffic.round_trips;
    session << "DELETE FROM cache_probe WHERE id = 'first'";
    CHECK(this_thread_traffic.round_trips - before == 1);
}
