// The backlog read in order with claims held in memory (read_due_deliveries): the order and the
// place a read goes on from, held events passed over, nothing written until an answer's move,
// which counts the attempt and leaves an event that moved on meanwhile as it is; TEST events and
// lapsed leases claimed in the database; the read's plan with statistics from before a backlog.
#include <catch2/catch.hpp>
#include <string>
#include <unordered_set>
#include <vector>

#include "ledger/store/database.hpp"
#include "ledger/store/outbox.hpp"
#include "ledger/webhooks/webhook_deliveries.hpp"
#include "tests/support/outbox_backlog.hpp"
#include "tests/support/webhook_fixture.hpp"

using namespace corridor;
using corridor::testing::backlog_event_id;
using corridor::testing::insert_due_backlog;
using corridor::testing::outbox_rows_read;
using corridor::testing::webhook_fixture;

namespace {

struct reader_fixture : webhook_fixture {
    reader_fixture() : webhook_fixture("reader.example") {}
    due_read read(int limit, const std::optional<due_position>& after = std::nullopt,
                  const std::unordered_set<std::string>& held = {}) {
        return read_due_deliveries(session(), clock, random, policy, after, held, limit);
    }
    struct row {
        std::string state;
        long long attempts = -1, next_ms = 0;
        bool leased = false, first_attempt_set = false;
        long long first_attempt_ms = 0;
    };
    row row_of(const std::string& id) {
        row out;
        std::string token;
        soci::indicator token_set = soci::i_ok, first_set = soci::i_ok;
        session() << "SELECT state, attempts, next_attempt_at_ms, claim_token, first_attempt_at_ms "
                     "FROM outbox_events WHERE id = packed_id(:i)",
            soci::use(id), soci::into(out.state), soci::into(out.attempts), soci::into(out.next_ms),
            soci::into(token, token_set), soci::into(out.first_attempt_ms, first_set);
        out.leased = token_set == soci::i_ok;
        out.first_attempt_set = first_set == soci::i_ok;
        return out;
    }
    std::vector<std::string> ids_of(const std::vector<claimed_delivery>& claims) {
        std::vector<std::string> out;
        for (const auto& claim : claims) out.push_back(claim.id);
        return out;
    }
};

}  // namespace

TEST_CASE("the backlog is read in order from a place, held events passed over, nothing written",
          "[store][webhooks]") {
    reader_fixture f;
    std::vector<std::string> events;
    for (int i = 0; i < 5; ++i) events.push_back(f.event());  // one millisecond: the ids decide
    f.clock.advance_ms(1);
    for (int i = 0; i < 3; ++i) events.push_back(f.event());
    f.clock.advance_ms(1);

    auto first = f.read(3);
    REQUIRE(f.ids_of(first.claimed) ==
            std::vector<std::string>(events.begin(), events.begin() + 3));
    CHECK_FALSE(first.reached_end);
    REQUIRE(first.last.has_value());
    CHECK(first.last->id == events[2]);
    for (const auto& claim : first.claimed) {
        CHECK(claim.claim_token.empty());  // held in memory
        CHECK(claim.attempt == 1);
        CHECK(claim.url == webhook_fixture::endpoint);
        CHECK_FALSE(claim.private_key_pem.empty());
    }
    for (const auto& id : events) {  // nothing was written
        auto row = f.row_of(id);
        CHECK(row.state == "PENDING");
        CHECK(row.attempts == 0);
        CHECK_FALSE(row.leased);
        CHECK_FALSE(row.first_attempt_set);
    }

    // Going on from the place: the rest, across the millisecond, and the end of the backlog.
    auto rest = f.read(10, first.last);
    CHECK(f.ids_of(rest.claimed) == std::vector<std::string>(events.begin() + 3, events.end()));
    CHECK(rest.reached_end);
    CHECK(rest.last->id == events.back());

    // From the first again, what is held is passed over and not counted against the limit.
    std::unordered_set<std::string> held(events.begin(), events.begin() + 4);
    auto again = f.read(2, std::nullopt, held);
    CHECK(f.ids_of(again.claimed) == std::vector<std::string>{events[4], events[5]});
    CHECK(again.last->id == events[5]);
    CHECK_FALSE(again.reached_end);

    // An event not yet due is not read.
    f.clock.advance_ms(-10);
    CHECK(f.read(10).claimed.empty());
}

TEST_CASE("an answer's move is a claim in memory's one write; a stale one moves nothing",
          "[store][webhooks]") {
    reader_fixture f;
    std::string delivered = f.event(), retried = f.event();
    auto read = f.read(10);
    REQUIRE(read.claimed.size() == 2);
    long long answered_at = f.clock.now_ms();
    CHECK(f.answer(read.claimed[0], 200).outcome == "SUCCEEDED");
    CHECK(f.answer(read.claimed[1], 503).outcome == "RETRY_SCHEDULED");
    auto done = f.row_of(delivered);
    CHECK(done.state == "DELIVERED");
    CHECK(done.attempts == 1);
    CHECK(done.first_attempt_ms == answered_at);
    auto waiting = f.row_of(retried);
    CHECK(waiting.state == "PENDING");
    CHECK(waiting.attempts == 1);
    CHECK(waiting.next_ms == answered_at + f.policy.initial_interval_ms);
    CHECK_FALSE(waiting.leased);

    // The same claim answered again (a reader that held it too, or a late duplicate): the attempt
    // is recorded, the event neither counted twice nor moved.
    f.clock.advance_ms(5);
    CHECK(f.answer(read.claimed[1], 200).outcome == "SUCCEEDED");
    auto unmoved = f.row_of(retried);
    CHECK(unmoved.state == "PENDING");
    CHECK(unmoved.attempts == 1);
    CHECK(list_delivery_attempts(f.session(), f.owner, {}, page_request{}).items.size() == 3);

    // Given back unsent, a claim in memory has nothing to undo.
    CHECK(release_deliveries(f.session(), f.clock, {read.claimed[1]}) == 0);
    CHECK(f.row_of(retried).attempts == 1);

    // Due again on schedule, as its second attempt; the first attempt's time kept.
    f.clock.advance_ms(f.policy.initial_interval_ms);
    auto second = f.read(10);
    REQUIRE(second.claimed.size() == 1);
    CHECK(second.claimed[0].id == retried);
    CHECK(second.claimed[0].attempt == 2);
    f.clock.advance_ms(1);
    CHECK(f.answer(second.claimed[0], 200).outcome == "SUCCEEDED");
    auto finished = f.row_of(retried);
    CHECK(finished.state == "DELIVERED");
    CHECK(finished.attempts == 2);
    CHECK(finished.first_attempt_ms == answered_at);
}

TEST_CASE("the reader claims TEST events and lapsed leases in the database", "[store][webhooks]") {
    reader_fixture f;
    std::string lapsed = f.event();
    auto leased = claim_due_deliveries(f.session(), f.clock, f.random, f.policy, 10);
    REQUIRE(leased.size() == 1);
    f.clock.advance_ms(f.policy.lease_ms);  // its process died with it
    std::string test = f.event(event_purpose::test, "TEST");
    auto read = f.read(10);
    REQUIRE(f.ids_of(read.claimed) == std::vector<std::string>{lapsed, test});
    for (const auto& claim : read.claimed) {
        CHECK_FALSE(claim.claim_token.empty());
        auto row = f.row_of(claim.id);
        CHECK(row.leased);
        CHECK(row.next_ms == f.clock.now_ms() + f.policy.lease_ms);
    }
    CHECK(read.claimed[0].attempt == 2);
    CHECK(read.claimed[0].claim_token != leased[0].claim_token);
    CHECK(read.claimed[1].attempt == 1);
    CHECK(f.row_of(test).attempts == 1);  // counted before it is sent: it is sent once
    // Leased now, neither is read again while the lease holds.
    f.clock.advance_ms(1);
    CHECK(f.read(10).claimed.empty());
    // The lapsed lease's late answer is recorded but moves nothing; the new claim's moves it.
    f.answer(leased[0], 200);
    CHECK(f.row_of(lapsed).state == "PENDING");
    f.answer(read.claimed[0], 200);
    CHECK(f.row_of(lapsed).state == "DELIVERED");
}

TEST_CASE("a read of the backlog stops at its limit, with statistics from before the backlog",
          "[store][webhooks]") {
    reader_fixture f;
    bool postgresql = backend_of(f.session()) == database_backend::postgresql;
    for (int i = 0; i < 8; ++i) {
        f.event();
        for (auto& delivery : f.read(10).claimed) f.answer(delivery, 200);
    }
    if (postgresql) f.session() << "ANALYZE outbox_events";
    insert_due_backlog(f.session(), 20000, f.clock.now_ms() - 60000);
    soci::transaction round(f.session());
    long long before = postgresql ? outbox_rows_read(f.session()) : 0;
    auto first = f.read(10);
    auto next = f.read(10, first.last);
    long long read = postgresql ? outbox_rows_read(f.session()) - before : 0;
    REQUIRE(first.claimed.size() == 10);
    REQUIRE(next.claimed.size() == 10);
    CHECK(first.claimed.front().id == backlog_event_id(0));
    CHECK(next.claimed.front().id == backlog_event_id(10));
    CHECK(next.claimed.back().id == backlog_event_id(19));
    if (postgresql) {
        // The walk of outbox_events_due that stops at each LIMIT: not the 20,000 pending ones
        // (a join hashed and sorted whole).
        INFO("rows of outbox_events read by two reads of ten: " << read);
        CHECK(read <= 40);
    }
    round.commit();
}
