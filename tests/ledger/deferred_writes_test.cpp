// The ledger writer keeps the writes nothing reads back (transfer rows, outbox events, service
// account postings) for one flush before its commit: the book comes out exactly as if each had been
// sent at once, savepoints that roll back drop what was kept since, hot service accounts take one
// update per batch, and a batch whose summed postings would pass an account's ceiling is applied
// again posting by posting.
#include "ledger/store/deferred_writes.hpp"

#include <soci/postgresql/soci-postgresql.h>

#include <catch2/catch.hpp>
#include <functional>
#include <future>
#include <limits>
#include <memory>
#include <optional>

#include "ledger/book/book.hpp"
#include "ledger/store/batch_send.hpp"
#include "ledger/store/event_payloads.hpp"
#include "ledger/store/ledger_writer.hpp"
#include "ledger/store/outbox.hpp"
#include "ledger/store/statement_cache.hpp"
#include "tests/support/function_job.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;
using corridor::testing::submit;

namespace {

// Holds the writer inside a job until released, so that what is submitted meanwhile forms one
// batch.
struct writer_hold {
    std::promise<void> started, release;
    std::future<bool> done;
    explicit writer_hold(ledger_writer& writer) {
        auto released = release.get_future().share();
        done = submit(writer, [this, released](soci::session&) {
            started.set_value();
            released.wait();
            return true;
        });
        started.get_future().wait();
    }
};

long long count_of(soci::session& session, const std::string& sql) {
    long long n = 0;
    session << sql, soci::into(n);
    return n;
}

struct accounts {
    tenant owner;
    std::string platform, liquidity, fees;
};

accounts open_accounts(testing::store_fixture& f, book_services book) {
    tenant owner{f.make_platform("defer.example"), environment::sandbox};
    accounts a{owner, ensure_account(f.session(), book, owner, account_kind::platform, "", "USD"),
               ensure_account(f.session(), book, owner, account_kind::liquidity, "", "USD"),
               ensure_account(f.session(), book, owner, account_kind::fees, "", "USD")};
    auto funded =
        post_transfer(f.session(), book, owner, {a.liquidity, a.platform, 1000, "USD", "fund", ""});
    REQUIRE(funded.ok());
    return a;
}

}  // namespace

TEST_CASE("ledger writer: deferred writes flush once per batch and keep the book exact",
          "[store][writer]") {
    testing::store_fixture f;
    book_services book{f.ids, f.random, f.clock};
    accounts a = open_accounts(f, book);
    ledger_writer writer(f.database.url(), 64, 256);
    constexpr int commands = 20;

    std::vector<std::future<bool>> done;
    std::uint64_t statements_before = 0, round_trips_before = 0;
    {
        writer_hold hold(writer);
        statements_before = writer.statements_total();
        round_trips_before = writer.round_trips_total();
        for (int i = 0; i < commands; ++i) {
            done.push_back(submit(writer, [&](soci::session& s) {
                // A guarded debit of the platform account, then two service accounts.
                if (!post_transfer(s, book, a.owner,
                                   {a.platform, a.liquidity, 10, "USD", "send", ""})
                         .ok())
                    return false;
                if (!post_transfer(s, book, a.owner, {a.liquidity, a.fees, 3, "USD", "fee", ""})
                         .ok())
                    return false;
                record_event(s, f.ids, f.clock, a.owner, "ACCOUNT_STATUS", R"({"n": "x\"y\\z"})");
                return true;
            }));
        }
        hold.release.set_value();
        REQUIRE(hold.done.get());
    }
    for (auto& d : done) CHECK(d.get());
    std::uint64_t statements = writer.statements_total() - statements_before;
    std::uint64_t round_trips = writer.round_trips_total() - round_trips_before;
    // Per command: its savepoint, its release and the guarded debit; per batch: the transaction,
    // one update per service account, and the rows (one statement per table on PostgreSQL; on
    // SQLite one per power of two of rows: 40 transfers and 20 events take two each); the holding
    // job's batch and first preparations stay under 30. Sent at once, each command would cost 9
    // statements.
    bool sqlite = f.database.backend() == database_backend::sqlite;
    CHECK(statements <= commands * 3 + (sqlite ? 4 : 2) + 30);
    // On PostgreSQL a command's savepoint control waits for its debit and goes out with it: two
    // round trips per command, and the flush and commit in one.
    if (!sqlite) CHECK(round_trips <= commands * 2 + 12);

    CHECK(find_account(f.session(), a.owner, a.platform)->balance() == 1000 - commands * 10);
    CHECK(find_account(f.session(), a.owner, a.fees)->balance() == commands * 3);
    auto liquidity = find_account(f.session(), a.owner, a.liquidity);
    CHECK(liquidity->credits_posted == commands * 10);
    CHECK(liquidity->debits_posted == 1000 + commands * 3);
    CHECK(count_of(f.session(), "SELECT COUNT(*) FROM ledger_transfers") == 1 + commands * 2);
    {
        // Each event's payload survives the batch's flush (array literal quoting included).
        int matching = 0;
        soci::rowset<std::string> payloads =
            (f.session().prepare << "SELECT payload FROM outbox_events");
        for (const auto& stored : payloads)
            matching += unpack_event_payload(stored) == "{\"n\": \"x\\\"y\\\\z\"}";
        CHECK(matching == commands);
    }
    CHECK(audit_book(f.session()).empty());
    writer.stop();
}

TEST_CASE("ledger writer: deferred writes follow savepoints and failed commands",
          "[store][writer]") {
    testing::store_fixture f;
    book_services book{f.ids, f.random, f.clock};
    accounts a = open_accounts(f, book);
    ledger_writer writer(f.database.url(), 64, 256);
    auto kept = submit(writer, [&](soci::session& s) {
        if (!post_transfer(s, book, a.owner, {a.liquidity, a.fees, 7, "USD", "fee", ""}).ok())
            return false;
        run_control(s, "SAVEPOINT request");
        if (!post_transfer(s, book, a.owner, {a.liquidity, a.fees, 100, "USD", "fee", ""}).ok())
            return false;
        record_event(s, f.ids, f.clock, a.owner, "ACCOUNT_STATUS", "{}");
        run_control(s, "ROLLBACK TO SAVEPOINT request");
        run_control(s, "RELEASE SAVEPOINT request");
        return true;
    });
    auto refused = submit(writer, [&](soci::session& s) {
        if (!post_transfer(s, book, a.owner, {a.liquidity, a.fees, 1000, "USD", "fee", ""}).ok())
            return false;
        record_event(s, f.ids, f.clock, a.owner, "ACCOUNT_STATUS", "{}");
        return false;
    });
    CHECK(kept.get());
    CHECK_FALSE(refused.get());
    CHECK(find_account(f.session(), a.owner, a.fees)->balance() == 7);
    CHECK(count_of(f.session(), "SELECT COUNT(*) FROM ledger_transfers") == 2);
    CHECK(count_of(f.session(), "SELECT COUNT(*) FROM outbox_events") == 0);
    CHECK(audit_book(f.session()).empty());
    writer.stop();
}

TEST_CASE("ledger writer: summed postings past the ceiling fail only the command that does not fit",
          "[store][writer]") {
    testing::store_fixture f;
    book_services book{f.ids, f.random, f.clock};
    accounts a = open_accounts(f, book);
    constexpr long long posted_max = std::numeric_limits<long long>::max();
    f.session() << "UPDATE ledger_accounts SET credits_posted = :c WHERE id = :i",
        soci::use(posted_max - 150), soci::use(a.fees);
    ledger_writer writer(f.database.url(), 64, 256);
    std::vector<std::future<bool>> done;
    {
        writer_hold hold(writer);
        for (int i = 0; i < 2; ++i) {
            done.push_back(submit(writer, [&](soci::session& s) {
                return post_transfer(s, book, a.owner, {a.liquidity, a.fees, 100, "USD", "fee", ""})
                    .ok();
            }));
        }
        hold.release.set_value();
        REQUIRE(hold.done.get());
    }
    CHECK(done[0].get());
    CHECK_FALSE(done[1].get());
    CHECK(find_account(f.session(), a.owner, a.fees)->credits_posted == posted_max - 50);
    CHECK(count_of(f.session(), "SELECT COUNT(*) FROM ledger_transfers WHERE code = 'fee'") == 1);
    writer.stop();
}

TEST_CASE("batch send: control in one round trip, a failed pipelined statement stops the commit",
          "[store][writer]") {
    testing::test_database database;
    soci::session& session = database.session();
    session << "CREATE TABLE pipeline_probe (n BIGINT NOT NULL)";
    auto rows = [&] { return count_of(session, "SELECT COUNT(*) FROM pipeline_probe"); };
    bool sqlite = database.backend() == database_backend::sqlite;
    std::uint64_t round_trips = this_thread_traffic.round_trips;
    run_controls(session, {sqlite ? "BEGIN IMMEDIATE" : "BEGIN", "SAVEPOINT a", "SAVEPOINT b"});
    // PostgreSQL: one query; SQLite: one call each (and a first preparation for some).
    if (sqlite) {
        CHECK(this_thread_traffic.round_trips - round_trips >= 3);
    } else {
        CHECK(this_thread_traffic.round_trips - round_trips == 1);
    }
    session << "INSERT INTO pipeline_probe (n) VALUES (1)";
    run_controls(session,
                 {"ROLLBACK TO SAVEPOINT b", "RELEASE SAVEPOINT b", "RELEASE SAVEPOINT a"});
    run_control(session, "COMMIT");
    CHECK(rows() == 0);
    if (sqlite) return;  // pipelines are PostgreSQL's
    run_controls(session, {"BEGIN"});
    // The second statement overflows a bigint (22003): the COMMIT after it must not commit.
    std::vector<pipelined_statement> failing = {
        {"INSERT INTO pipeline_probe (n) VALUES ($1)", {"1"}},
        {"INSERT INTO pipeline_probe (n) VALUES ($1::bigint + 9223372036854775807)", {"1"}},
        {"COMMIT", {}}};
    try {
        run_pipeline(session, failing);
        FAIL("the pipeline should have failed");
    } catch (const soci::postgresql_soci_error& error) {
        CHECK(error.sqlstate() == "22003");
    }
    run_control(session, "ROLLBACK");
    CHECK(rows() == 0);
    round_trips = this_thread_traffic.round_trips;
    run_controls(session, {"BEGIN"});
    run_pipeline(session, {{"INSERT INTO pipeline_probe (n) VALUES ($1)", {"7"}}, {"COMMIT", {}}});
    CHECK(this_thread_traffic.round_trips - round_trips == 2);
    CHECK(rows() == 1);
}

TEST_CASE(
    "batch send: pipelined statements are prepared once per connection, again after a new one",
    "[store][writer]") {
    testing::test_database database;
    if (database.backend() == database_backend::sqlite) return;  // pipelines are PostgreSQL's
    soci::session& session = database.session();
    session << "CREATE TABLE pipeline_prepared (n BIGINT NOT NULL)";
    const std::string insert = "INSERT INTO pipeline_prepared (n) VALUES ($1)";
    const std::string doubled = "INSERT INTO pipeline_prepared (n) VALUES ($1::bigint * 2)";
    auto rows = [&](soci::session& on) {
        return count_of(on, "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM pipeline_prepared");
    };
    // The connection's prepared statements of `sql`, under the names the pipeline gives them.
    auto prepared = [](soci::session& on, const std::string& sql) {
        long long n = 0;
        on << "SELECT COUNT(*) FROM pg_prepared_statements WHERE name LIKE 'corridor_pipe_%' AND "
              "statement = :s",
            soci::use(sql), soci::into(n);
        return n;
    };
    // The same text twice in one pipeline: one Parse, two executions.
    run_controls(session, {"BEGIN"});
    run_pipeline(session, {{insert, {"1"}}, {insert, {"2"}}, {"COMMIT", {}}});
    CHECK(rows(session) == 3);
    CHECK(prepared(session, insert) == 1);
    // Executed by name from then on, in whatever transaction.
    run_controls(session, {"BEGIN"});
    run_pipeline(session, {{insert, {"4"}}, {"COMMIT", {}}});
    CHECK(rows(session) == 7);
    CHECK(prepared(session, insert) == 1);
    // A Parse skipped after a failure makes no statement: the next pipeline prepares it for real
    // (executing a name the server does not know would fail).
    run_controls(session, {"BEGIN"});
    try {
        run_pipeline(session, {{"INSERT INTO pipeline_prepared (n) VALUES ($1::bigint + "
                                "9223372036854775807)",
                                {"1"}},
                               {doubled, {"8"}},
                               {"COMMIT", {}}});
        FAIL("the pipeline should have failed");
    } catch (const soci::postgresql_soci_error& error) {
        CHECK(error.sqlstate() == "22003");
    }
    run_control(session, "ROLLBACK");
    CHECK(prepared(session, doubled) == 0);
    run_controls(session, {"BEGIN"});
    run_pipeline(session, {{doubled, {"8"}}, {insert, {"1"}}, {"COMMIT", {}}});
    CHECK(rows(session) == 24);
    CHECK(prepared(session, doubled) == 1);
    // An UPDATE not marked prepared stays unnamed: planned with its values every time, never a
    // generic plan.
    const std::string update = "UPDATE pipeline_prepared SET n = n + $1 WHERE n = $2";
    run_controls(session, {"BEGIN"});
    run_pipeline(session, {{update, {"1", "16"}}, {"COMMIT", {}}});
    CHECK(rows(session) == 25);
    CHECK(prepared(session, update) == 0);
    // A new connection (as after a lost one) has none and prepares its own.
    session_ptr another = database.open_another();
    CHECK(prepared(*another, insert) == 0);
    run_controls(*another, {"BEGIN"});
    run_pipeline(*another, {{insert, {"1"}}, {"COMMIT", {}}});
    CHECK(rows(*another) == 26);
    CHECK(prepared(*another, insert) == 1);
}

TEST_CASE(
    "batch send: a prepared UPDATE gets an index plan on a small table, sequential scans back on "
    "after it",
    "[store][writer]") {
    testing::test_database database;
    if (database.backend() == database_backend::sqlite) return;  // pipelines are PostgreSQL's
    soci::session& session = database.session();
    // Small enough that a sequential scan costs less on paper than the primary key's index.
    session << "CREATE TABLE plan_probe (id TEXT PRIMARY KEY, n BIGINT NOT NULL)";
    session << "INSERT INTO plan_probe SELECT 'probe-' || g, 0 FROM generate_series(1, 60) g";
    session << "ANALYZE plan_probe";
    const std::string update =
        "UPDATE plan_probe SET n = n + $1 WHERE id = $2 AND n <= $3 RETURNING n";
    auto setting = [&] {
        std::string value;
        session << "SHOW enable_seqscan", soci::into(value);
        return value;
    };
    auto plan_of = [&](const std::string& explain) {
        std::string plan, line;
        soci::statement lines = (session.prepare << explain, soci::into(line));
        lines.execute(false);
        while (lines.fetch()) plan += line + "\n";
        return plan;
    };
    // The same statement prepared as the server prepares any other: its generic plan scans the
    // whole table (what the window must prevent, or this case proves nothing).
    session << "PREPARE plain_probe (bigint, text, bigint) AS " + update;
    session << "SET plan_cache_mode = force_generic_plan";
    CHECK(plan_of("EXPLAIN EXECUTE plain_probe(1, 'probe-7', 100)").find("Seq Scan") !=
          std::string::npos);
    session << "RESET plan_cache_mode";
    // Executed ten times in pipelines of the writer's kind: prepared once, planned with sequential
    // scans off (custom plans first, then the generic plan PostgreSQL keeps).
    for (int i = 0; i < 10; ++i) {
        run_controls(session, {"BEGIN"});
        auto answers = run_pipeline_answers(
            session, {{update, {"1", "probe-7", "100"}, false, true}, {"SELECT 2", {}}});
        REQUIRE(answers.size() == 2);
        CHECK(answers[0] == std::to_string(i + 1));
        CHECK(answers[1] == "2");
        // Only the prepared statement ran with them off: the rest of the transaction has them.
        CHECK(setting() == "on");
        run_control(session, "COMMIT");
    }
    CHECK(setting() == "on");
    const auto& names = statement_cache_of(session)->pipelined().names;
    REQUIRE(names.count(update) == 1);
    const std::string name = names.at(update);
    long long generic_plans = 0;
    session << "SELECT generic_plans FROM pg_prepared_statements WHERE name = :n", soci::use(name),
        soci::into(generic_plans);
    CHECK(generic_plans >= 1);
    // The generic plan kept for it is an index scan, now that sequential scans are allowed again.
    session << "SET plan_cache_mode = force_generic_plan";
    std::string plan = plan_of("EXPLAIN EXECUTE " + name + "(1, 'probe-7', 100)");
    session << "RESET plan_cache_mode";
    CHECK(plan.find("Index Scan using plan_probe_pkey") != std::string::npos);
    CHECK(plan.find("Seq Scan") == std::string::npos);
    // Outside a transaction block nothing is changed (SET LOCAL would have no transaction).
    run_pipeline(session, {{update, {"1", "probe-8", "100"}, false, true}});
    CHECK(setting() == "on");
    long long n = 0;
    session << "SELECT n FROM plan_probe WHERE id = 'probe-8'", soci::into(n);
    CHECK(n == 1);
}

TEST_CASE("ledger writer: kept rows go out in multi-row INSERTs of a few texts, in order",
          "[ledger]") {
    const std::string insert = "INSERT INTO probe (a, b) VALUES ($1, $2)";
    const std::string other = "UPDATE probe SET b = $1 WHERE a = $2";
    // Seven rows and an UPDATE kept after the first: the rows go out at the place of the first,
    // as 4 + 2 + 1 rows, then the UPDATE.
    auto flushed = [&](int rows) {
        deferred_writes writes;
        for (int i = 0; i < rows; ++i) {
            writes.add_statement({insert, {"a" + std::to_string(i), "b" + std::to_string(i)}});
            if (i == 0) writes.add_statement({other, {"x", "a0"}});
        }
        std::vector<pipelined_statement> pipeline;
        writes.append_flush(pipeline);
        return pipeline;
    };
    auto seven = flushed(7);
    REQUIRE(seven.size() == 4);
    CHECK(seven[0].sql == "INSERT INTO probe (a, b) VALUES ($1, $2), ($3, $4), ($5, $6), ($7, $8)");
    CHECK(seven[0].params ==
          std::vector<std::string>{"a0", "b0", "a1", "b1", "a2", "b2", "a3", "b3"});
    CHECK(seven[1].sql == "INSERT INTO probe (a, b) VALUES ($1, $2), ($3, $4)");
    CHECK(seven[1].params == std::vector<std::string>{"a4", "b4", "a5", "b5"});
    CHECK(seven[2].sql == insert);
    CHECK(seven[2].params == std::vector<std::string>{"a6", "b6"});
    CHECK(seven[3].sql == other);
    // Never a text made for one batch only: each is prepared once per connection.
    for (const auto& statement : seven) CHECK_FALSE(statement.one_off);
    // Another batch's four rows use the same text; past 32 rows, several statements of 32.
    auto four = flushed(4);
    CHECK(four[0].sql == seven[0].sql);
    auto many = flushed(70);
    REQUIRE(many.size() == 5);  // 32 + 32 + 4 + 2, then the UPDATE
    CHECK(many[0].params.size() == 64);
    CHECK(many[1].sql == many[0].sql);
    CHECK(many[1].params.front() == "a32");
    CHECK(many[2].sql == seven[0].sql);
    CHECK(many[3].params.back() == "b69");
}

TEST_CASE("ledger writer: balances and service account ids it already knows cost no round trip",
          "[store][writer]") {
    testing::store_fixture f;
    book_services book{f.ids, f.random, f.clock};
    accounts a = open_accounts(f, book);
    ledger_writer writer(f.database.url(), 64, 256);

    // In one command: the platform account's balance after its debit, and the liquidity account's
    // with its deferred credit, both without asking the database; a rolled-back posting is
    // forgotten.
    std::optional<std::int64_t> platform_after, platform_after_rollback, liquidity_after;
    std::uint64_t balance_round_trips = 99;
    auto first = submit(writer, [&](soci::session& s) {
        if (!post_transfer(s, book, a.owner, {a.platform, a.liquidity, 10, "USD", "send", ""}).ok())
            return false;
        std::uint64_t before = this_thread_traffic.round_trips;
        platform_after = account_balance(s, a.platform);
        balance_round_trips = this_thread_traffic.round_trips - before;
        liquidity_after = account_balance(s, a.liquidity);
        run_control(s, "SAVEPOINT request");
        if (!post_transfer(s, book, a.owner, {a.platform, a.liquidity, 5, "USD", "send", ""}).ok())
            return false;
        run_control(s, "ROLLBACK TO SAVEPOINT request");
        run_control(s, "RELEASE SAVEPOINT request");
        platform_after_rollback = account_balance(s, a.platform);
        return true;
    });
    REQUIRE(first.get());
    CHECK(platform_after == 990);
    CHECK(balance_round_trips == 0);
    CHECK(liquidity_after == -1000 + 10);
    CHECK(platform_after_rollback == 990);

    // A service account found in a committed batch is known to the next ones.
    std::string found;
    REQUIRE(submit(writer, [&](soci::session& s) {
                found = ensure_account(s, book, a.owner, account_kind::liquidity, "", "USD");
                return true;
            }).get());
    std::uint64_t lookup_round_trips = 99;
    REQUIRE(submit(writer, [&](soci::session& s) {
                std::uint64_t before = this_thread_traffic.round_trips;
                found = ensure_account(s, book, a.owner, account_kind::liquidity, "", "USD");
                lookup_round_trips = this_thread_traffic.round_trips - before;
                return true;
            }).get());
    CHECK(found == a.liquidity);
    CHECK(lookup_round_trips == 0);

    // One opened by a command that failed is not remembered: the next batch opens it again.
    std::string opened, reopened;
    CHECK_FALSE(submit(writer, [&](soci::session& s) {
                    opened = ensure_account(s, book, a.owner, account_kind::fees, "", "EUR");
                    return false;
                }).get());
    REQUIRE(submit(writer, [&](soci::session& s) {
                reopened = ensure_account(s, book, a.owner, account_kind::fees, "", "EUR");
                return true;
            }).get());
    CHECK(reopened != opened);
    CHECK(find_account(f.session(), a.owner, reopened).has_value());
    CHECK_FALSE(find_account(f.session(), a.owner, opened).has_value());
    CHECK(audit_book(f.session()).empty());
    writer.stop();
}

TEST_CASE("ledger writer: statements kept for the flush follow savepoints (PostgreSQL)",
          "[store][writer]") {
    testing::test_database database;
    database.session() << "CREATE TABLE flush_probe (tag TEXT NOT NULL)";
    ledger_writer writer(database.url(), 8, 64);
    bool postgres = database.backend() == database_backend::postgresql;
    auto done = submit(writer, [&](soci::session& s) {
        deferred_writes* deferred = deferred_writes_of(s);
        if (!deferred) return false;  // the writer defers in every batch
        if (!postgres) return true;   // statements are kept on PostgreSQL only
        deferred->add_statement({"INSERT INTO flush_probe (tag) VALUES ($1)", {"kept"}});
        run_control(s, "SAVEPOINT request");
        deferred->add_statement({"INSERT INTO flush_probe (tag) VALUES ($1)", {"dropped"}});
        run_control(s, "ROLLBACK TO SAVEPOINT request");
        run_control(s, "RELEASE SAVEPOINT request");
        return true;
    });
    CHECK(done.get());
    CHECK(count_of(database.session(), "SELECT COUNT(*) FROM flush_probe WHERE tag = 'dropped'") ==
          0);
    CHECK(count_of(database.session(), "SELECT COUNT(*) FROM flush_probe WHERE tag = 'kept'") ==
          (postgres ? 1 : 0));
    writer.stop();
}

TEST_CASE("ledger writer: transfers posted together keep the guard and leave no trace when refused",
          "[store][writer]") {
    testing::store_fixture f;
    book_services book{f.ids, f.random, f.clock};
    accounts a = open_accounts(f, book);  // the platform account holds 1000
    std::string other =
        ensure_account(f.session(), book, a.owner, account_kind::platform, "", "EUR");
    std::string eur_liquidity =
        ensure_account(f.session(), book, a.owner, account_kind::liquidity, "", "EUR");
    ledger_writer writer(f.database.url(), 64, 256);
    auto moves = [&](long long amount) {
        return std::vector<transfer_request>{{a.platform, a.liquidity, amount, "USD", "send", ""},
                                             {a.liquidity, a.fees, 1, "USD", "fee", ""},
                                             {eur_liquidity, other, 50, "EUR", "receive", ""}};
    };
    // More than the balance: refused at the first transfer, and the credit that went out with it
    // is taken back. On PostgreSQL the batch's first, optimistic attempt queues the updates without
    // waiting (post_transfers succeeds there) and learns of the refusal before the flush: the batch
    // runs again waiting for each answer, and only that attempt commits.
    std::optional<transfers_refusal> refusal;
    std::optional<std::int64_t> other_balance;
    auto refused = submit(writer, [&](soci::session& s) {
        auto posted = post_transfers(s, book, a.owner, moves(1001));
        refusal = posted ? std::nullopt : std::optional(posted.error());
        other_balance = account_balance(s, other);
        return true;  // commits: nothing of the refused transfers may be in it
    });
    CHECK(refused.get());
    REQUIRE(refusal.has_value());
    CHECK(refusal->index == 0);
    CHECK(refusal->error == transfer_error::insufficient_funds);
    CHECK(other_balance == 0);
    bool postgres = f.database.backend() == database_backend::postgresql;
    CHECK(writer.optimistic_refusals() == (postgres ? 1 : 0));
    std::uint64_t round_trips_before = writer.round_trips_total();
    auto paid = submit(writer, [&](soci::session& s) {
        auto posted = post_transfers(s, book, a.owner, moves(600));
        CHECK(posted);
        if (!posted) return false;
        CHECK(posted->size() == 3);
        // The balances come back with the updates.
        CHECK(account_balance(s, a.platform) == 400);
        CHECK(account_balance(s, other) == 50);
        return true;
    });
    CHECK(paid.get());
    std::uint64_t round_trips = writer.round_trips_total() - round_trips_before;
    // On PostgreSQL the batch's BEGIN and savepoint, the guarded debit and the credit go out in
    // one round trip, the flush and COMMIT in another.
    if (postgres) CHECK(round_trips == 2);
    CHECK(find_account(f.session(), a.owner, a.platform)->balance() == 400);
    CHECK(find_account(f.session(), a.owner, other)->balance() == 50);
    CHECK(find_account(f.session(), a.owner, a.fees)->balance() == 1);
    CHECK(count_of(f.session(), "SELECT COUNT(*) FROM ledger_transfers") == 1 + 3);
    CHECK(audit_book(f.session()).empty());
    writer.stop();
}
