// Commits that record events wake delivery: the process's listener runs after the commit (never
// for a rollback or a commit without events), and on PostgreSQL the commit sends NOTIFY, which a
// LISTEN connection of another process receives.
#include <libpq-fe.h>
#include <poll.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <memory>

#include "ledger/base/clock.hpp"
#include "ledger/base/random.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/store/outbox.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;
using corridor::testing::store_fixture;
using corridor::testing::test_database;

namespace {

struct listener_guard {
    std::atomic<int> wakes{0};
    listener_guard() {
        set_outbox_listener([this] { wakes.fetch_add(1); });
    }
    ~listener_guard() { set_outbox_listener({}); }
};

// Events name a configured tenant: the fixture's platform, made first.
void record_one(store_fixture& f, const std::string& platform_id) {
    record_event(f.session(), f.ids, f.clock, tenant{platform_id, environment::sandbox}, "TEST",
                 R"({"note":"wake"})", event_purpose::test);
}

}  // namespace

TEST_CASE("a commit that recorded events wakes the listener once; a rollback does not",
          "[store][outbox]") {
    store_fixture f(11);
    std::string platform = f.make_platform("wake.example");
    listener_guard listener;

    {
        write_transaction transaction(f.session());
        record_one(f, platform);
        record_one(f, platform);
        CHECK(listener.wakes == 0);  // not before the commit
        transaction.commit();
    }
    CHECK(listener.wakes == 1);

    {
        write_transaction transaction(f.session());
        record_one(f, platform);
    }  // rolled back
    {
        write_transaction transaction(f.session());
        transaction.commit();  // nothing recorded in this one
    }
    CHECK(listener.wakes == 1);
}

TEST_CASE("on PostgreSQL the commit notifies other connections that LISTEN", "[store][outbox]") {
    store_fixture f(12);
    test_database& database = f.database;
    std::string platform = f.make_platform("wake.example");
    if (database.backend() != database_backend::postgresql) return;  // SQLite has no NOTIFY
    std::unique_ptr<PGconn, decltype(&PQfinish)> other(
        PQconnectdb(database.url().connect_string.c_str()), &PQfinish);
    REQUIRE(PQstatus(other.get()) == CONNECTION_OK);
    std::unique_ptr<PGresult, decltype(&PQclear)> listened(
        PQexec(other.get(), (std::string("LISTEN ") + outbox_channel).c_str()), &PQclear);
    REQUIRE(PQresultStatus(listened.get()) == PGRES_COMMAND_OK);

    {
        write_transaction transaction(database.session());
        record_one(f, platform);
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
