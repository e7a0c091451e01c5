// A COMMIT sent without waiting for its answer (the bulk import's batches on PostgreSQL): its rows
// are committed once it is settled, the connection is usable again, and a transaction that had
// failed is reported as not committed rather than taken for committed.
#include "ledger/store/pending_commit.hpp"

#include <soci/postgresql/soci-postgresql.h>

#include <catch2/catch.hpp>

#include "ledger/store/database.hpp"
#include "tests/support/test_database.hpp"

using namespace corridor;

namespace {

long long probe_rows(soci::session& session) {
    long long count = 0;
    session << "SELECT COUNT(*) FROM pending_commit_probe", soci::into(count);
    return count;
}

}  // namespace

TEST_CASE("a sent commit commits; the connection serves the next statement once it is settled",
          "[store][pending_commit]") {
    testing::test_database database;
    auto& session = database.session();
    session << "CREATE TABLE pending_commit_probe (n INTEGER PRIMARY KEY)";
    auto other = database.open_another();
    pending_commit commit;
    {
        write_transaction transaction(session);
        session << "INSERT INTO pending_commit_probe (n) VALUES (1)";
        commit = pending_commit::send(transaction, session);
    }  // the transaction is the database's now: leaving its scope does not roll it back
    // On PostgreSQL the answer is still to be read; SQLite commits at once.
    CHECK(commit.settled() == (database.backend() == database_backend::sqlite));
    commit.settle();
    CHECK(commit.settled());
    CHECK(probe_rows(*other) == 1);
    CHECK(probe_rows(session) == 1);
    // Settling twice is harmless, and a new transaction starts on the connection.
    commit.settle();
    write_transaction next(session);
    session << "INSERT INTO pending_commit_probe (n) VALUES (2)";
    next.commit();
    CHECK(probe_rows(*other) == 2);
}

TEST_CASE("a sent commit of a failed transaction throws when settled and commits nothing",
          "[store][pending_commit]") {
    testing::test_database database;
    auto& session = database.session();
    session << "CREATE TABLE pending_commit_probe (n INTEGER PRIMARY KEY)";
    session << "INSERT INTO pending_commit_probe (n) VALUES (1)";
    write_transaction transaction(session);
    session << "INSERT INTO pending_commit_probe (n) VALUES (2)";
    CHECK_THROWS_AS(session << "INSERT INTO pending_commit_probe (n) VALUES (1)", soci::soci_error);
    auto commit = pending_commit::send(transaction, session);
    if (database.backend() == database_backend::postgresql) {
        // The failed statement aborted the transaction: PostgreSQL answers its COMMIT with
        // ROLLBACK, not an error, and settle says it did not commit.
        CHECK_FALSE(commit.settled());
        CHECK_THROWS_AS(commit.settle(), soci::postgresql_soci_error);
        CHECK(commit.settled());
        CHECK(probe_rows(session) == 1);
        CHECK(probe_rows(*database.open_another()) == 1);
    } else {
        // SQLite undoes only the failed statement, and commits the rest at once.
        CHECK(commit.settled());
        CHECK(probe_rows(*database.open_another()) == 2);
    }
}

TEST_CASE("a commit left unsettled is settled when it goes out of scope",
          "[store][pending_commit]") {
    testing::test_database database;
    auto& session = database.session();
    session << "CREATE TABLE pending_commit_probe (n INTEGER PRIMARY KEY)";
    {
        write_transaction transaction(session);
        session << "INSERT INTO pending_commit_probe (n) VALUES (1)";
        auto commit = pending_commit::send(transaction, session);
    }
    // The connection had its answer read: it takes the next statement.
    CHECK(probe_rows(session) == 1);
}
