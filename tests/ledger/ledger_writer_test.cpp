// The ledger writer applies each command in its own savepoint: a failed command leaves nothing,
// a command that failed on transient contention is rolled back and run again (a bounded number of
// times), and completion is reported only after the batch's commit.
#include "ledger/store/ledger_writer.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "ledger/store/database.hpp"
#include "tests/support/function_job.hpp"
#include "tests/support/test_database.hpp"

using namespace corridor;

namespace {

// Inserts one row, then fails the first `failures` runs (retryable or not) before succeeding.
class flaky_job final : public session_job {
public:
    flaky_job(std::string tag, int failures, bool retryable, std::promise<job_outcome> done,
              std::shared_ptr<std::atomic<int>> runs)
        : tag_(std::move(tag)),
          failures_(failures),
          retryable_(retryable),
          done_(std::move(done)),
          runs_(std::move(runs)) {}

    bool run(soci::session& session) noexcept override {
        int runs = ++*runs_;
        try {
            session << "INSERT INTO writer_probe (tag) VALUES (:t)", soci::use(tag_);
        } catch (...) {
            return false;
        }
        return runs > failures_;
    }
    bool retryable() const noexcept override { return retryable_; }
    void finish(job_outcome outcome) noexcept override { done_.set_value(outcome); }

private:
    std::string tag_;
    int failures_;
    bool retryable_;
    std::promise<job_outcome> done_;
    std::shared_ptr<std::atomic<int>> runs_;  // outlives the job, which the writer destroys
};

struct outcome {
    job_outcome finished;
    bool durable;
    int runs;
    long long rows;
};

outcome submit(ledger_writer& writer, soci::session& reader, const std::string& tag, int failures,
               bool retryable) {
    std::promise<job_outcome> done;
    auto finished = done.get_future();
    auto runs_seen = std::make_shared<std::atomic<int>>(0);
    writer.submit(
        std::make_unique<flaky_job>(tag, failures, retryable, std::move(done), runs_seen));
    job_outcome result = finished.get();
    bool durable = result == job_outcome::committed;
    int runs = runs_seen->load();
    long long rows = 0;
    reader << "SELECT COUNT(*) FROM writer_probe WHERE tag = :t", soci::use(tag), soci::into(rows);
    return {result, durable, runs, rows};
}

}  // namespace

TEST_CASE("ledger writer: savepoints per command, bounded retries on contention",
          "[store][writer]") {
    testing::test_database database;
    const database_url& url = database.url();
    soci::session* reader = &database.session();
    *reader << "CREATE TABLE writer_probe (tag TEXT NOT NULL)";
    ledger_writer writer(url, 8, 64);

    auto clean = submit(writer, *reader, "clean", 0, false);
    CHECK(clean.durable);
    CHECK(clean.runs == 1);
    CHECK(clean.rows == 1);

    // Contention twice, then success: the two failed attempts leave no rows behind.
    auto recovered = submit(writer, *reader, "recovered", 2, true);
    CHECK(recovered.durable);
    CHECK(recovered.runs == 3);
    CHECK(recovered.rows == 1);

    // A failure that is not contention runs once and leaves nothing.
    auto refused = submit(writer, *reader, "refused", 1, false);
    CHECK_FALSE(refused.durable);
    CHECK(refused.finished == job_outcome::rolled_back);  // its own failure, not the batch's
    CHECK(refused.runs == 1);
    CHECK(refused.rows == 0);

    // Contention that does not clear gives up after the bound.
    auto exhausted = submit(writer, *reader, "exhausted", 100, true);
    CHECK_FALSE(exhausted.durable);
    CHECK(exhausted.runs == ledger_writer::command_attempts_max);
    CHECK(exhausted.rows == 0);
    CHECK(writer.commands_retried() == 2 + (ledger_writer::command_attempts_max - 1));
    writer.stop();

    // On PostgreSQL every batch leaves its marker (looked up if its COMMIT loses the connection);
    // on SQLite, where a local file has no lost COMMIT, the writer writes none.
    long long markers = -1;
    *reader << "SELECT COUNT(*) FROM ledger_batches WHERE fenced = 0", soci::into(markers);
    CHECK(markers == (database.backend() == database_backend::postgresql ? 4 : 0));
    CHECK(writer.outcomes_unknown() == 0);
}

TEST_CASE("ledger writer: a batch that wrote nothing leaves no marker", "[store][writer]") {
    testing::test_database database;
    soci::session& reader = database.session();
    reader << "CREATE TABLE writer_probe (tag TEXT NOT NULL)";
    bool postgresql = database.backend() == database_backend::postgresql;
    ledger_writer writer(database.url(), 8, 64);
    auto markers = [&reader] {
        long long count = -1;
        reader << "SELECT COUNT(*) FROM ledger_batches", soci::into(count);
        return count;
    };
    auto reads = [](soci::session& session) {
        long long rows = -1;
        session << "SELECT COUNT(*) FROM writer_probe", soci::into(rows);
        return rows == 0;
    };
    auto writes = [](soci::session& session) {
        session << "INSERT INTO writer_probe (tag) VALUES ('written')";
        return true;
    };
    CHECK(markers() == 0);
    CHECK(testing::submit(writer, reads).get());  // committed, as before
    CHECK(markers() == 0);
    CHECK(testing::submit(writer, writes).get());
    CHECK(markers() == (postgresql ? 1 : 0));
    writer.stop();
}

TEST_CASE("ledger writer: a job refused once stopped is finished as not committed",
          "[store][writer]") {
    testing::test_database database;
    ledger_writer writer(database.url(), 8, 64);
    writer.stop();
    std::promise<job_outcome> done;
    auto finished = done.get_future();
    writer.submit(std::make_unique<flaky_job>("late", 0, false, std::move(done),
                                              std::make_shared<std::atomic<int>>(0)));
    CHECK(finished.get() == job_outcome::not_committed);
}

TEST_CASE("database: a lost connection is an outage, a refused statement is not",
          "[store][writer]") {
    testing::test_database database;
    auto victim = database.open_another();
    // nullopt when the statement succeeded; else whether its error counts as an outage (503).
    auto outage = [](soci::session& session, const char* sql) -> std::optional<bool> {
        try {
            session << sql;
            return std::nullopt;
        } catch (const soci::soci_error& error) {
            return is_database_unavailable(session, error);
        }
    };
    CHECK(outage(*victim, "SELECT no_such_column FROM ledger_batches") == false);
    CHECK(connection_alive(*victim));
    if (database.backend() != database_backend::postgresql) return;  // a file has no connection
    int pid = 0;
    *victim << "SELECT pg_backend_pid()", soci::into(pid);
    int terminated = 0;
    database.session() << "SELECT CASE WHEN pg_terminate_backend(:p, 5000) THEN 1 ELSE 0 END",
        soci::use(pid), soci::into(terminated);
    REQUIRE(terminated == 1);
    CHECK(outage(*victim, "SELECT 1") == true);
    CHECK_FALSE(connection_alive(*victim));
}

namespace {

// Runs `statements` inserts, each its own round trip.
class inserts_job final : public session_job {
public:
    inserts_job(int statements, std::promise<bool> done)
        : statements_(statements), done_(std::move(done)) {}
    bool run(soci::session& session) noexcept override {
        try {
            for (int i = 0; i < statements_; ++i)
                session << "INSERT INTO writer_probe (tag) VALUES ('count')";
        } catch (...) {
            return false;
        }
        return true;
    }
    void finish(job_outcome outcome) noexcept override {
        done_.set_value(outcome == job_outcome::committed);
    }

private:
    int statements_;
    std::promise<bool> done_;
};

// Round trips and statements of one batch of one command that sends `statements` inserts.
std::pair<std::uint64_t, std::uint64_t> traffic_of(ledger_writer& writer, int statements) {
    std::uint64_t round_trips = writer.round_trips_total(), sent = writer.statements_total();
    std::promise<bool> done;
    auto finished = done.get_future();
    writer.submit(std::make_unique<inserts_job>(statements, std::move(done)));
    REQUIRE(finished.get());
    return {writer.round_trips_total() - round_trips, writer.statements_total() - sent};
}

}  // namespace

TEST_CASE("ledger writer: counts its database round trips and statements", "[store][writer]") {
    testing::test_database database;
    database.session() << "CREATE TABLE writer_probe (tag TEXT NOT NULL)";
    ledger_writer writer(database.url(), 8, 64);
    traffic_of(writer, 1);  // first use: statements prepared once per session
    auto one = traffic_of(writer, 1);
    auto four = traffic_of(writer, 4);
    // A batch costs its own control statements (transaction and savepoint) plus one round trip per
    // statement its command sends.
    CHECK(one.first >= 2);
    CHECK(four.first == one.first + 3);
    CHECK(four.second == one.second + 3);
    CHECK(one.second >= one.first);
    writer.stop();
}

namespace {

// Runs `work`; a deadlock or serialization failure it meets is transient contention (retryable),
// as the server's requests report it.
class contending_job final : public session_job {
public:
    contending_job(std::function<void(soci::session&)> work, std::promise<bool> done)
        : work_(std::move(work)), done_(std::move(done)) {}
    bool run(soci::session& session) noexcept override {
        try {
            work_(session);
            return true;
        } catch (const soci::soci_error& error) {
            retryable_ = is_retryable_conflict(error);
        } catch (...) {
            retryable_ = false;
        }
        return false;
    }
    bool retryable() const noexcept override { return retryable_; }
    void finish(job_outcome outcome) noexcept override {
        done_.set_value(outcome == job_outcome::committed);
    }

private:
    std::function<void(soci::session&)> work_;
    std::promise<bool> done_;
    bool retryable_ = false;
};

std::future<bool> submit_contending(ledger_writer& writer,
                                    std::function<void(soci::session&)> work) {
    std::promise<bool> done;
    auto future = done.get_future();
    writer.submit(std::make_unique<contending_job>(std::move(work), std::move(done)));
    return future;
}

// Waits (bounded) until `flag` is set by the other writer's command.
void wait_for(const std::atomic<bool>& flag) {
    for (int i = 0; i < 500 && !flag.load(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

}  // namespace

TEST_CASE("ledger writer: a deadlock behind an earlier command's lock reruns the batch",
          "[store][writer]") {
    testing::test_database database;
    if (database.backend() != database_backend::postgresql) return;  // one SQLite writer at a time
    soci::session& reader = database.session();
    reader << "CREATE TABLE writer_locks (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)";
    reader << "INSERT INTO writer_locks (id, v) VALUES (1, 0), (2, 0)";
    ledger_writer first(database.url(), 8, 64);
    ledger_writer second(database.url(), 8, 64);
    // Each writer is held in a command of its own until both batches below are queued, so that
    // each batch holds two commands: the first locks one row, the second waits until the other
    // writer's first command locked the other row and then takes it. Each transaction waits for
    // the other: a deadlock whose cycle runs through the earlier command's lock, which rolling back
    // to the second command's savepoint would not release.
    std::promise<void> go;
    std::shared_future<void> going = go.get_future().share();
    auto hold = [going](soci::session&) { going.wait(); };
    auto held_first = submit_contending(first, hold);
    auto held_second = submit_contending(second, hold);
    std::atomic<bool> first_locked{false}, second_locked{false};
    auto bump = [](soci::session& session, int id) {
        session << "UPDATE writer_locks SET v = v + 1 WHERE id = :id", soci::use(id);
    };
    std::vector<std::future<bool>> done;
    done.push_back(submit_contending(first, [&](soci::session& session) {
        bump(session, 1);
        first_locked = true;
    }));
    done.push_back(submit_contending(first, [&](soci::session& session) {
        wait_for(second_locked);
        bump(session, 2);
    }));
    done.push_back(submit_contending(second, [&](soci::session& session) {
        bump(session, 2);
        second_locked = true;
    }));
    done.push_back(submit_contending(second, [&](soci::session& session) {
        wait_for(first_locked);
        bump(session, 1);
    }));
    go.set_value();
    CHECK(held_first.get());
    CHECK(held_second.get());
    for (auto& command : done) CHECK(command.get());
    first.stop();
    second.stop();
    long long one = -1, two = -1;
    reader << "SELECT v FROM writer_locks WHERE id = 1", soci::into(one);
    reader << "SELECT v FROM writer_locks WHERE id = 2", soci::into(two);
    CHECK(one == 2);
    CHECK(two == 2);
    CHECK(first.batch_conflict_reruns() + second.batch_conflict_reruns() >= 1);
}
