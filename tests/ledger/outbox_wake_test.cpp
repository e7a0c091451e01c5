// Commits that record events wake delivery: the process's listener runs after the commit (never
// for a rollback or a commit without events), and on PostgreSQL the commit sends NOTIFY, which a
// LISTEN connection of another process receives.
#include "ledger/store/outbox.hpp"

#include <catch2/catch.hpp>
#include <libpq-fe.h>
#include <poll.h>

#include <atomic>
#include <memory>

#include "ledger/base/clock.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/base/random.hpp"
#include "tests/support/test_database.hpp"

using namespace corridor;
using corridor::testing::test_database;

namespace {

struct listener_guard {
    std::atomic<int> wakes{0};
    listener_guard() { set_outbox_listener([this] { wakes.fetch_add(1); }); }
    ~listener_guard() { set_outbox_listener({}); }
};

void record_one(soci::session& session, id_generator& ids, const corridor::clock& time) {
    record_event(session, ids, time, tenant{"Platform:wake", environment::sandbox}, "TEST",
                 R"({"note":"wake"})", event_purpose::test);
}

}  // namespace

TEST_CASE("a commit that recorded events wakes the listener once; a rollback does not",
          "[store][outbox]") {
    test_database database;
    manual_clock time(1'700'000'000'000);
    seeded_random random(11);
    id_generator ids(time, random);
    listener_guard listener;

    {
        write_transaction transaction(database.session());
        record_one(database.session(), ids, time);
        record_one(database.session(), ids, time);
        CHECK(listener.wakes == 0);  // not before the commit
        transaction.commit();
    }
    CHECK(listener.wakes == 1);

    {
        write_transaction transaction(database.session());
        record_one(database.session(), ids, time);
    }  // rolled back
    {
        write_transaction transaction(database.session());
        transaction.commit();  // nothing recorded in this one
    }
    CHECK(listener.wakes == 1);
}

TEST_CASE("on PostgreSQL the commit notifies other connections that LISTEN", "[store][outbox]") {
    test_database database;
    if (database.backend() != database_backend::postgresql) return;  // SQLite has no NOTIFY
    std::unique_ptr<PGconn, decltype(&PQfinish)> other(
        PQconnectdb(database.url().connect_string.c_str()), &PQfinish);
    REQUIRE(PQstatus(other.get()) == CONNECTION_OK);
    std::unique_ptr<PGresult, decltype(&PQclear)> listened(
        PQexec(other.get(), (std::string("LISTEN ") + outbox_channel).c_str()), &PQclear);
    REQUIRE(PQresultStatus(listened.get()) == PGRES_COMMAND_OK);

    manual_clock time(1'700'000'000'000);
    seeded_random random(12);
    id_generator ids(time, random);
    {
        write_transaction transaction(database.session());
        record_one(database.session(), ids, time);
        transaction.commit();
    }
    pollfd ready{PQsocket(other.get()), POLLIN, 0};
    REQUIRE(::poll(&ready, 1, 5000) == 1);
    REQUIRE(PQconsumeInput(other.get()) == 1);
    PGnotify* notification = PQnotifies(other.get());
    REQUIRE(notification != nullptr);
    CHECK(std::string(notification->relname) == outbox_channel);
    PQfreemem(notification);
}
