// Webhook delivery bookkeeping with an injected clock: the retry schedule and its 7-day cut-off,
// no retry after a 409 or for TEST, claims that exclude each other and survive a crash (the lease),
// the signed body, and the attempts list.
#include "ledger/webhooks/webhook_deliveries.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

#include "ledger/platforms/webhook_keys.hpp"
#include "ledger/store/batch_send.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/deferred_writes.hpp"
#include "ledger/store/outbox.hpp"
#include "ledger/store/outbox_handover.hpp"
#include "ledger/store/statement_cache.hpp"
#include "tests/support/outbox_backlog.hpp"
#include "tests/support/webhook_fixture.hpp"

using namespace corridor;
using corridor::testing::backlog_event_id;
using corridor::testing::insert_due_backlog;
using corridor::testing::outbox_rows_read;
using corridor::testing::webhook_fixture;

namespace {

constexpr std::int64_t minute_ms = 60000;
constexpr std::int64_t day_ms = 24 * 60 * minute_ms;

struct delivery_fixture : webhook_fixture {
    delivery_fixture() : webhook_fixture("hooks.example") {}
    std::vector<claimed_delivery> claim(int limit = 10) {
        return claim_due_deliveries(session(), clock, random, policy, limit);
    }
    std::string state_of(const std::string& id) {
        std::string state;
        session() << "SELECT state FROM outbox_events WHERE id = packed_id(:i)", soci::use(id),
            soci::into(state);
        return state;
    }
    // NO_ENDPOINT, no attempt counted, finished (and due, for the pruning's scan) at `at_ms`.
    bool closed_without_attempt(const std::string& id, std::int64_t at_ms) {
        std::string state;
        long long attempts = -1, next_ms = 0, finished_ms = 0, first_ms = 0;
        soci::indicator finished = soci::i_null, first = soci::i_ok;
        session() << "SELECT state, attempts, next_attempt_at_ms, finished_at_ms, "
                     "first_attempt_at_ms FROM outbox_events WHERE id = packed_id(:i)",
            soci::use(id), soci::into(state), soci::into(attempts), soci::into(next_ms),
            soci::into(finished_ms, finished), soci::into(first_ms, first);
        INFO(id << ": " << state << ", attempts " << attempts << ", due " << next_ms
                << ", finished " << finished_ms);
        return state == "NO_ENDPOINT" && attempts == 0 && first == soci::i_null &&
               finished == soci::i_ok && finished_ms == at_ms && next_ms == at_ms;
    }
};

// Sends what a ledger batch kept and commits, as the writer does on each backend.
void flush_and_commit(soci::session& session, deferred_writes& writes) {
    if (backend_of(session) == database_backend::sqlite) {
        writes.flush(session);
        run_control(session, "COMMIT");
        return;
    }
    std::vector<pipelined_statement> pipeline;
    writes.append_flush(pipeline);
    pipeline.push_back({"COMMIT", {}});
    run_pipeline(session, pipeline);
}

}  // namespace

TEST_CASE("the retry interval doubles from the initial one up to 30 minutes", "[webhooks]") {
    retry_policy policy;
    CHECK(retry_delay_ms(policy, 1) == 5000);
    CHECK(retry_delay_ms(policy, 2) == 10000);
    CHECK(retry_delay_ms(policy, 3) == 20000);
    CHECK(retry_delay_ms(policy, 9) == 1280000);
    CHECK(retry_delay_ms(policy, 10) == 30 * minute_ms);
    CHECK(retry_delay_ms(policy, 400) == 30 * minute_ms);
}

TEST_CASE("an attempt's answer decides the event's fate", "[webhooks]") {
    retry_policy policy;
    const std::int64_t created = 1'000'000;
    auto verdict = judge_attempt(policy, event_purpose::notify, 1, created, created, 200);
    CHECK(verdict.state == "DELIVERED");
    CHECK(verdict.outcome == "SUCCEEDED");
    CHECK(judge_attempt(policy, event_purpose::notify, 1, created, created, 204).state ==
          "DELIVERED");
    verdict = judge_attempt(policy, event_purpose::notify, 1, created, created, 500);
    CHECK(verdict.state == "PENDING");
    CHECK(verdict.outcome == "RETRY_SCHEDULED");
    CHECK(verdict.next_attempt_at_ms == created + 5000);
    CHECK(judge_attempt(policy, event_purpose::notify, 1, created, created, 0).state == "PENDING");
    CHECK(judge_attempt(policy, event_purpose::notify, 1, created, created, 302).state ==
          "PENDING");
    // 409: the receiver already has it.
    verdict = judge_attempt(policy, event_purpose::notify, 1, created, created, 409);
    CHECK(verdict.state == "FAILED");
    CHECK(verdict.outcome == "GAVE_UP");
    CHECK(judge_attempt(policy, event_purpose::test, 1, created, created, 500).state == "FAILED");
    CHECK(judge_attempt(policy, event_purpose::test, 1, created, created, 0).state == "FAILED");
    CHECK(judge_attempt(policy, event_purpose::approval, 1, created, created, 503).state ==
          "FAILED");
    // The next attempt may not fall after 7 days.
    std::int64_t late = created + 7 * day_ms - 29 * minute_ms;
    CHECK(judge_attempt(policy, event_purpose::notify, 300, created, late, 500).state == "FAILED");
    std::int64_t in_time = created + 7 * day_ms - 30 * minute_ms;
    CHECK(judge_attempt(policy, event_purpose::notify, 300, created, in_time, 500).state ==
          "PENDING");
}

TEST_CASE("a failing endpoint is retried on schedule for 7 days with the same webhookId",
          "[store][webhooks]") {
    delivery_fixture f;
    std::string id = f.event();
    std::int64_t created = f.clock.now_ms();
    std::vector<std::int64_t> attempt_times;
    for (int guard = 0; guard < 1000; ++guard) {
        auto claimed = f.claim();
        if (claimed.empty()) {
            if (f.state_of(id) != "PENDING") break;
            // Not due yet: nothing may be claimed a millisecond before its time.
            std::int64_t due = 0;
            f.session() << "SELECT next_attempt_at_ms FROM outbox_events WHERE id = packed_id(:i)",
                soci::use(id), soci::into(due);
            REQUIRE(due > f.clock.now_ms());
            f.clock.set_ms(due - 1);
            REQUIRE(f.claim().empty());
            f.clock.set_ms(due);
            continue;
        }
        REQUIRE(claimed.size() == 1);
        CHECK(claimed[0].id == id);
        CHECK(claimed[0].attempt == static_cast<int>(attempt_times.size()) + 1);
        attempt_times.push_back(f.clock.now_ms());
        f.answer(claimed[0], 503);
    }
    CHECK(f.state_of(id) == "FAILED");
    REQUIRE(attempt_times.size() > 300);
    CHECK(attempt_times.front() == created);
    CHECK(attempt_times[1] - attempt_times[0] == 5000);
    CHECK(attempt_times[2] - attempt_times[1] == 10000);
    for (std::size_t i = 1; i < attempt_times.size(); ++i) {
        CHECK(attempt_times[i] - attempt_times[i - 1] <= 30 * minute_ms);
    }
    CHECK(attempt_times.back() - created <= 7 * day_ms);
    CHECK(attempt_times.back() - created > 7 * day_ms - 30 * minute_ms);
    // Every attempt was recorded under the one webhookId, the last one as GAVE_UP.
    delivery_attempt_filter filter;
    filter.event_id = id;
    auto listed = list_delivery_attempts(f.session(), f.owner, filter, {100, std::nullopt, true});
    CHECK(listed.total_count == static_cast<std::int64_t>(attempt_times.size()));
    CHECK(listed.items.front().outcome == "GAVE_UP");
    CHECK(listed.items.front().attempt == static_cast<int>(attempt_times.size()));
    CHECK(listed.items.back().outcome == "RETRY_SCHEDULED");
    CHECK(listed.items.back().response_status == 503);
}

TEST_CASE("a round is claimed in the order its events were recorded, within a millisecond too",
          "[store][webhooks]") {
    delivery_fixture f;
    std::vector<std::string> recorded;
    // One change records several events in one transaction, at one clock reading.
    for (int i = 0; i < 40; ++i) recorded.push_back(f.event());
    auto claimed = f.claim(100);
    REQUIRE(claimed.size() == recorded.size());
    for (std::size_t i = 0; i < recorded.size(); ++i) CHECK(claimed[i].id == recorded[i]);
}

TEST_CASE("a round reads its own events, not the backlog, with statistics from before it",
          "[store][webhooks]") {
    delivery_fixture f;
    bool postgresql = backend_of(f.session()) == database_backend::postgresql;
    // Rounds run while the outbox is small (a prepared statement settles on a plan by its sixth
    // run), and the statistics say that nothing is pending.
    for (int i = 0; i < 8; ++i) {
        f.event();
        for (auto& delivery : f.claim()) f.answer(delivery, 200);
    }
    if (postgresql) f.session() << "ANALYZE outbox_events";
    // Then a backlog builds up: 20,000 events due one millisecond apart.
    insert_due_backlog(f.session(), 20000, f.clock.now_ms() - 60000);
    soci::transaction round(f.session());
    long long before = postgresql ? outbox_rows_read(f.session()) : 0;
    auto claimed = f.claim(10);
    long long claim_read = postgresql ? outbox_rows_read(f.session()) - before : 0;
    REQUIRE(claimed.size() == 10);
    for (std::size_t i = 0; i < claimed.size(); ++i)
        CHECK(claimed[i].id == backlog_event_id(static_cast<int>(i)));
    std::vector<attempt_report> reports(claimed.size());
    std::vector<finished_attempt> attempts;
    for (std::size_t i = 0; i < claimed.size(); ++i) {
        reports[i].attempted_at_ms = f.clock.now_ms();
        reports[i].response_status = 200;
        attempts.push_back({&claimed[i], &reports[i]});
    }
    finish_deliveries(f.session(), f.ids, f.clock, f.policy, attempts);
    if (postgresql) {
        // The oldest ten by the due index, each looked up by id twice (claimed, then moved):
        // not the 20,000 pending ones (a bitmap scan and sort, or a join over the whole outbox).
        long long read = outbox_rows_read(f.session()) - before;
        INFO("rows of outbox_events read by the claim: " << claim_read
                                                         << ", by the round: " << read);
        CHECK(claim_read <= 30);
        CHECK(read <= 60);
    }
    round.commit();
    CHECK(f.state_of(backlog_event_id(0)) == "DELIVERED");
    CHECK(f.state_of(backlog_event_id(9)) == "DELIVERED");
    CHECK(f.state_of(backlog_event_id(10)) == "PENDING");
}

TEST_CASE("a 409 stops the retries and a 2xx delivers", "[store][webhooks]") {
    delivery_fixture f;
    std::string conflicted = f.event();
    std::string delivered = f.event();
    auto claimed = f.claim();
    REQUIRE(claimed.size() == 2);
    f.answer(claimed[0].id == conflicted ? claimed[0] : claimed[1], 409);
    f.answer(claimed[0].id == delivered ? claimed[0] : claimed[1], 200);
    CHECK(f.state_of(conflicted) == "FAILED");
    CHECK(f.state_of(delivered) == "DELIVERED");
    f.clock.advance_ms(8 * day_ms);
    CHECK(f.claim().empty());
}

TEST_CASE("a round's attempts are recorded together, each event moved per its own answer",
          "[store][webhooks]") {
    delivery_fixture f;
    std::vector<std::string> events;
    for (int i = 0; i < 4; ++i) events.push_back(f.event());
    auto claimed = f.claim();
    REQUIRE(claimed.size() == 4);
    std::sort(claimed.begin(), claimed.end(), [&](const auto& a, const auto& b) {
        return std::find(events.begin(), events.end(), a.id) <
               std::find(events.begin(), events.end(), b.id);
    });
    // The fourth claim went stale (another claimer took the event): recorded, the event unmoved.
    claimed[3].claim_token = "stale";
    const int statuses[] = {200, 500, 409, 200};
    std::vector<attempt_report> reports(4);
    std::vector<finished_attempt> round;
    for (int i = 0; i < 4; ++i) {
        reports[i].attempted_at_ms = f.clock.now_ms();
        reports[i].latency_ms = 10 + i;
        reports[i].response_status = statuses[i];
        // Quotes, backslashes, control bytes and non-ASCII survive the trip as printable text.
        reports[i].response_excerpt = "say \"no\" \\ \x01\xc3\xa9\n" + std::to_string(i);
    }
    reports[1].error = "tab\there";
    for (int i = 0; i < 4; ++i) round.push_back({&claimed[i], &reports[i]});
    auto verdicts = finish_deliveries(f.session(), f.ids, f.clock, f.policy, round);
    REQUIRE(verdicts.size() == 4);
    CHECK(verdicts[0].outcome == "SUCCEEDED");
    CHECK(verdicts[1].outcome == "RETRY_SCHEDULED");
    CHECK(verdicts[1].next_attempt_at_ms == f.clock.now_ms() + f.policy.initial_interval_ms);
    CHECK(verdicts[2].outcome == "GAVE_UP");
    CHECK(f.state_of(events[0]) == "DELIVERED");
    CHECK(f.state_of(events[1]) == "PENDING");
    CHECK(f.state_of(events[2]) == "FAILED");
    CHECK(f.state_of(events[3]) == "PENDING");
    long long next = 0, finished = 0;
    f.session() << "SELECT next_attempt_at_ms FROM outbox_events WHERE id = packed_id(:i)",
        soci::use(events[1]), soci::into(next);
    CHECK(next == verdicts[1].next_attempt_at_ms);
    f.session() << "SELECT finished_at_ms FROM outbox_events WHERE id = packed_id(:i)",
        soci::use(events[2]), soci::into(finished);
    CHECK(finished == f.clock.now_ms());
    auto listed = list_delivery_attempts(f.session(), f.owner, {}, page_request{});
    REQUIRE(listed.items.size() == 4);
    for (int i = 0; i < 4; ++i) {
        const auto* found = &listed.items[0];
        for (const auto& item : listed.items)
            if (item.event_id == events[i]) found = &item;
        CHECK(found->event_id == events[i]);
        CHECK(found->attempt == 1);
        CHECK(found->url == "https://receiver.example/hooks");
        CHECK(found->response_status == statuses[i]);
        CHECK(found->latency_ms == 10 + i);
        CHECK(found->outcome == verdicts[i].outcome);
        CHECK(found->next_attempt_at_ms == verdicts[i].next_attempt_at_ms);
        CHECK(found->response_excerpt == "say \"no\" \\ ???\n" + std::to_string(i));
    }
    // The retried one comes round again on schedule, as its next attempt.
    f.clock.advance_ms(f.policy.initial_interval_ms);
    auto again = f.claim();
    REQUIRE(again.size() == 1);
    CHECK(again[0].id == events[1]);
    CHECK(again[0].attempt == 2);
}

TEST_CASE("a TEST event is sent once, even when it fails", "[store][webhooks]") {
    delivery_fixture f;
    std::string id = f.event(event_purpose::test, "TEST");
    auto claimed = claim_delivery(f.session(), f.clock, f.random, f.policy, id);
    REQUIRE(claimed.has_value());
    CHECK(claimed->attempt == 1);
    CHECK_FALSE(claimed->interrupted);
    CHECK(f.answer(*claimed, 500).outcome == "GAVE_UP");
    CHECK(f.state_of(id) == "FAILED");
    f.clock.advance_ms(day_ms);
    CHECK(f.claim().empty());
}

TEST_CASE(
    "claims exclude each other until the lease runs out, then a crashed attempt is claimed again",
    "[store][webhooks]") {
    delivery_fixture f;
    std::string id = f.event();
    auto first = f.claim();
    REQUIRE(first.size() == 1);
    CHECK_FALSE(first[0].private_key_pem.empty());
    CHECK(first[0].url == "https://receiver.example/hooks");
    // Another claimer (another process) sees nothing while the lease holds.
    f.clock.advance_ms(f.policy.lease_ms - 1);
    CHECK(f.claim().empty());
    // The first claimer died: after the lease the event is due again, same id, next attempt.
    f.clock.advance_ms(1);
    auto second = f.claim();
    REQUIRE(second.size() == 1);
    CHECK(second[0].id == id);
    CHECK(second[0].attempt == 2);
    CHECK(second[0].claim_token != first[0].claim_token);
    // The late answer of the first claim is recorded but no longer moves the event.
    f.answer(first[0], 200);
    CHECK(f.state_of(id) == "PENDING");
    f.answer(second[0], 200);
    CHECK(f.state_of(id) == "DELIVERED");
}

TEST_CASE("a TEST or approval event whose attempt was interrupted is not sent again",
          "[store][webhooks]") {
    delivery_fixture f;
    std::string id = f.event(event_purpose::test, "TEST");
    REQUIRE(claim_delivery(f.session(), f.clock, f.random, f.policy, id).has_value());
    f.clock.advance_ms(f.policy.lease_ms);
    auto again = f.claim();
    REQUIRE(again.size() == 1);
    CHECK(again[0].interrupted);
    CHECK(f.answer(again[0], 0).outcome == "GAVE_UP");
    CHECK(f.state_of(id) == "FAILED");
}

TEST_CASE("a NOTIFY event of a tenant without an endpoint is recorded closed, never claimed",
          "[store][webhooks]") {
    delivery_fixture f;
    tenant production{f.owner.platform_id, environment::production};  // no endpoint
    std::vector<std::string> ids;
    for (int i = 0; i < 3; ++i) {
        ids.push_back(record_event(f.session(), f.ids, f.clock, production, "ACCOUNT_STATUS",
                                   R"({"accountId":"a"})"));
    }
    std::int64_t recorded_ms = f.clock.now_ms();
    f.clock.advance_ms(1000);
    for (const auto& id : ids) {
        // Closed as it was written: no attempt counted, finished and due at its creation.
        CHECK(f.closed_without_attempt(id, recorded_ms));
    }
    CHECK(f.claim().empty());
    for (const auto& id : ids) CHECK(f.closed_without_attempt(id, recorded_ms));
    // A TEST or approval event is never closed for want of an endpoint: its sender reports it.
    std::string approval = record_event(f.session(), f.ids, f.clock, production, "INCOMING_PAYMENT",
                                        R"({"transaction":{}})", event_purpose::approval);
    CHECK(f.state_of(approval) == "PENDING");
    // Once an endpoint is set, the events recorded after it are sent to it.
    f.set_endpoint(production, "https://production.example/hooks");
    std::string sent = record_event(f.session(), f.ids, f.clock, production, "ACCOUNT_STATUS",
                                    R"({"accountId":"a"})");
    CHECK(f.state_of(sent) == "PENDING");
    auto claimed = f.claim();
    REQUIRE(claimed.size() == 2);
    for (const auto& claim : claimed) {
        CHECK((claim.id == sent || claim.id == approval));
        CHECK(claim.url == "https://production.example/hooks");
    }
    // The closed ones stay closed until resent; a resent one goes to the endpoint now set.
    CHECK(f.state_of(ids[0]) == "NO_ENDPOINT");
    REQUIRE(resend_webhook_event(f.session(), f.clock, production, ids[0]));
    auto resent = f.claim();
    REQUIRE(resent.size() == 1);
    CHECK(resent[0].id == ids[0]);
    CHECK(resent[0].attempt == 1);
    CHECK(f.answer(resent[0], 200).state == "DELIVERED");
}

TEST_CASE("a resend of an id that is not a webhook id finds nothing and changes nothing",
          "[store][webhooks]") {
    delivery_fixture f;
    tenant production{f.owner.platform_id, environment::production};  // no endpoint: closed
    std::string id = record_event(f.session(), f.ids, f.clock, production, "ACCOUNT_STATUS",
                                  R"({"accountId":"a"})");
    REQUIRE(f.state_of(id) == "NO_ENDPOINT");
    std::string uuid = id.substr(std::string("Webhook:").size());
    // A request may carry any text: each is refused before the database sees it (the stored
    // ids' form must not decide whether a malformed one errs or finds nothing).
    for (const std::string& bad : {std::string("Webhook:nope"), std::string("nope"),
                                   std::string(""), std::string("Webhook:"), "Transaction:" + uuid,
                                   uuid, id + "0", id.substr(0, id.size() - 1)}) {
        CAPTURE(bad);
        CHECK_FALSE(resend_webhook_event(f.session(), f.clock, production, bad));
        CHECK(f.state_of(id) == "NO_ENDPOINT");
    }
    // Another tenant's (the sandbox's) is not found either; its own tenant resends it.
    CHECK_FALSE(resend_webhook_event(f.session(), f.clock, f.owner, id));
    CHECK(f.state_of(id) == "NO_ENDPOINT");
    CHECK(resend_webhook_event(f.session(), f.clock, production, id));
    CHECK(f.state_of(id) == "PENDING");
}

TEST_CASE("events recorded in a ledger batch are closed at once when their tenant has no endpoint",
          "[store][webhooks]") {
    delivery_fixture f;
    tenant production{f.owner.platform_id, environment::production};  // no endpoint
    soci::session& session = f.session();
    bool sqlite = backend_of(session) == database_backend::sqlite;
    std::vector<std::string> closed, pending;
    deferred_writes writes;
    run_controls(session, {sqlite ? "BEGIN IMMEDIATE" : "BEGIN"});
    {
        // As the ledger writer records them: kept for the batch's flush, one statement for all
        // rows on PostgreSQL (with the COMMIT, in one pipeline), one per row on SQLite.
        deferring_scope scope(session, writes);
        for (int i = 0; i < 3; ++i) {
            closed.push_back(record_event(session, f.ids, f.clock, production, "ACCOUNT_STATUS",
                                          R"({"accountId":"a"})"));
            pending.push_back(f.event());
        }
        flush_and_commit(session, writes);
    }
    for (const auto& id : closed) CHECK(f.closed_without_attempt(id, f.clock.now_ms()));
    for (const auto& id : pending) CHECK(f.state_of(id) == "PENDING");
    auto claimed = f.claim();
    REQUIRE(claimed.size() == pending.size());
    for (std::size_t i = 0; i < claimed.size(); ++i) CHECK(claimed[i].id == pending[i]);
}

TEST_CASE("a ledger batch's events are handed over leased, within delivery's room",
          "[store][webhooks]") {
    delivery_fixture f;
    tenant production{f.owner.platform_id, environment::production};  // no endpoint
    soci::session& session = f.session();
    bool sqlite = backend_of(session) == database_backend::sqlite;
    const std::string token = "handover-token";
    std::vector<std::string> received;
    set_outbox_handover(token, f.policy.lease_ms, [&received](std::vector<std::string> ids) {
        received.insert(received.end(), ids.begin(), ids.end());
    });
    struct reset {
        ~reset() { set_outbox_handover({}, 0, {}); }
    } no_handover_after;
    set_outbox_handover_room(2);
    std::vector<std::string> sent;
    std::string closed;
    deferred_writes writes;
    run_controls(session, {sqlite ? "BEGIN IMMEDIATE" : "BEGIN"});
    {
        deferring_scope scope(session, writes);
        for (int i = 0; i < 3; ++i) sent.push_back(f.event());
        closed = record_event(session, f.ids, f.clock, production, "ACCOUNT_STATUS",
                              R"({"accountId":"a"})");
        flush_and_commit(session, writes);
    }
    outbox_committed_on_this_thread();  // as the writer does after its commit
    // Room for two: those two are handed over; the third is written due at once, and the event
    // without an endpoint closed, as before.
    REQUIRE(received == std::vector<std::string>{sent[0], sent[1]});
    CHECK(f.closed_without_attempt(closed, f.clock.now_ms()));
    auto claimed = f.claim();
    REQUIRE(claimed.size() == 1);
    CHECK(claimed[0].id == sent[2]);
    // Read back under this process's token: attempt 1, the tenant's endpoint; another token, an
    // id that was never written, and the closed event give nothing to send.
    auto read = read_handed_over(
        session, f.clock, token,
        {sent[0], sent[1], closed, "Webhook:00000000-0000-7000-8000-000000000000"});
    REQUIRE(read.claimed.size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
        CHECK(read.claimed[i].id == sent[i]);
        CHECK(read.claimed[i].attempt == 1);
        CHECK(read.claimed[i].claim_token == token);
        CHECK(read.claimed[i].url == "https://receiver.example/hooks");
        CHECK(!read.claimed[i].private_key_pem.empty());
    }
    REQUIRE(read.without_endpoint.size() == 1);
    CHECK(read.without_endpoint[0] == production);
    CHECK(read_handed_over(session, f.clock, "another", {sent[0]}).claimed.empty());
    // The first is answered by this process; the second's process dies: once its lease has run
    // out (not before) a claim takes it, as it takes the claim of a process that died.
    CHECK(f.answer(read.claimed[0], 200).state == "DELIVERED");
    f.clock.advance_ms(f.policy.lease_ms - 1);
    CHECK(f.claim().empty());
    f.clock.advance_ms(1);
    auto after = f.claim();
    std::vector<std::string> after_ids;
    for (const auto& delivery : after) after_ids.push_back(delivery.id);
    std::sort(after_ids.begin(), after_ids.end());
    std::vector<std::string> expected = {sent[1], sent[2]};
    std::sort(expected.begin(), expected.end());
    CHECK(after_ids == expected);
    for (const auto& delivery : after) {
        if (delivery.id == sent[1]) CHECK(delivery.attempt == 2);
    }
}

TEST_CASE("an event whose endpoint is removed before its claim is closed by the round",
          "[store][webhooks]") {
    delivery_fixture f;
    std::vector<std::string> ids = {f.event(), f.event()};
    for (const auto& id : ids) REQUIRE(f.state_of(id) == "PENDING");
    config_patch patch;
    patch.webhook_endpoint = std::optional<std::string>{};  // cleared
    REQUIRE(update_platform_config(f.session(), f.platforms(), f.owner, patch).ok());
    f.clock.advance_ms(500);
    CHECK(f.claim().empty());
    for (const auto& id : ids) {
        // Closed in one statement, the attempt the claim counted taken back.
        CHECK(f.closed_without_attempt(id, f.clock.now_ms()));
    }
}

TEST_CASE("finished events past the retention are pruned with their attempts, in bounded batches",
          "[store][webhooks]") {
    delivery_fixture f;
    auto count = [&](const char* table) {
        long long n = 0;
        f.session() << std::string("SELECT COUNT(*) FROM ") + table, soci::into(n);
        return n;
    };
    std::string delivered = f.event(), failed = f.event(), retried = f.event();
    std::string test_event = f.event(event_purpose::test, "TEST");
    for (const auto& claim : f.claim()) {
        int status = claim.id == delivered ? 200 : claim.id == failed ? 409 : 503;
        f.answer(claim, status);
    }
    tenant production{f.owner.platform_id, environment::production};
    std::string closed = record_event(f.session(), f.ids, f.clock, production, "ACCOUNT_STATUS",
                                      R"({"accountId":"a"})");
    CHECK(f.claim().empty());  // `closed` was recorded closed (no endpoint)
    REQUIRE(f.state_of(delivered) == "DELIVERED");
    REQUIRE(f.state_of(failed) == "FAILED");
    REQUIRE(f.state_of(test_event) == "FAILED");
    REQUIRE(f.state_of(retried) == "PENDING");
    REQUIRE(f.state_of(closed) == "NO_ENDPOINT");
    REQUIRE(count("webhook_attempts") == 4);
    std::int64_t finished_ms = f.clock.now_ms();
    // Not older than the cut-off yet: nothing goes.
    CHECK(prune_finished_events(f.session(), finished_ms, 10) == 0);
    CHECK(count("outbox_events") == 5);
    // A limit of 2 takes two, the next call the other two; the event being retried stays with its
    // attempt, however old.
    f.clock.advance_ms(30 * day_ms);
    CHECK(prune_finished_events(f.session(), finished_ms + 1, 2) == 2);
    CHECK(count("outbox_events") == 3);
    CHECK(prune_finished_events(f.session(), finished_ms + 1, 10) == 2);
    CHECK(prune_finished_events(f.session(), finished_ms + 1, 10) == 0);
    CHECK(count("outbox_events") == 1);
    CHECK(f.state_of(retried) == "PENDING");
    long long attempts_left = 0;
    std::string event_left;
    f.session() << "SELECT COUNT(*), MIN(typed_id('Webhook', event_id)) FROM webhook_attempts",
        soci::into(attempts_left), soci::into(event_left);
    CHECK(attempts_left == 1);
    CHECK(event_left == retried);
}

TEST_CASE(
    "the prune takes finished events recorded before the cut-off, oldest first, by their "
    "ids",
    "[store][webhooks]") {
    delivery_fixture f;
    // Production has no endpoint: its events are recorded closed (NO_ENDPOINT), finished at once.
    tenant closed_tenant{f.owner.platform_id, environment::production};
    auto closed = [&] {
        return record_event(f.session(), f.ids, f.clock, closed_tenant, "ACCOUNT_STATUS",
                            R"({"accountId":"a"})");
    };
    auto attempts_of = [&](const std::string& id) {
        long long n = 0;
        f.session() << "SELECT COUNT(*) FROM webhook_attempts WHERE event_id = packed_id(:i)",
            soci::use(id), soci::into(n);
        return n;
    };
    std::string first = closed(), second = closed();
    f.clock.advance_ms(day_ms);
    std::string retried = f.event();    // refused below: stays however old
    std::string delivered = f.event();  // delivered only after the cut-off
    f.clock.advance_ms(day_ms);
    std::string recent = closed();  // recorded at the cut-off, not before it
    std::int64_t cutoff = f.clock.now_ms();
    f.clock.advance_ms(minute_ms);
    for (const auto& claim : f.claim()) f.answer(claim, claim.id == delivered ? 200 : 503);
    REQUIRE(f.state_of(delivered) == "DELIVERED");
    REQUIRE(f.state_of(retried) == "PENDING");
    REQUIRE(attempts_of(delivered) == 1);

    CHECK(prune_finished_events(f.session(), cutoff, 1) == 1);
    CHECK(f.state_of(first).empty());  // the oldest first
    CHECK(f.state_of(second) == "NO_ENDPOINT");
    // The retention counts from the recording: the delivered event goes with its attempt.
    CHECK(prune_finished_events(f.session(), cutoff, 10) == 2);
    CHECK(f.state_of(second).empty());
    CHECK(f.state_of(delivered).empty());
    CHECK(attempts_of(delivered) == 0);
    CHECK(prune_finished_events(f.session(), cutoff, 10) == 0);
    CHECK(f.state_of(retried) == "PENDING");
    CHECK(attempts_of(retried) == 1);
    CHECK(f.state_of(recent) == "NO_ENDPOINT");
    CHECK(prune_finished_events(f.session(), cutoff + 1, 10) == 1);
    CHECK(f.state_of(recent).empty());
}

TEST_CASE("the body is the envelope and the payload, signed verifiably over its exact bytes",
          "[store][webhooks]") {
    delivery_fixture f;
    std::string id = f.event();
    auto claimed = f.claim();
    REQUIRE(claimed.size() == 1);
    std::string body = webhook_body(claimed[0], f.clock.now_ms());
    CHECK(
        body ==
        R"({"webhookId":")" + id +
            R"(","type":"OUTGOING_PAYMENT","timestamp":"2025-10-13T00:00:00.000Z","transaction":{"id":"Transaction:x"}})");
    webhook_signer signer(claimed[0].private_key_pem);
    std::string signature = signer.sign_base64(body);
    auto key = find_webhook_key(f.session(), f.owner);
    REQUIRE(key.has_value());
    CHECK(verify_webhook_signature(key->public_key_pem, body, signature));
    std::string tampered = body;
    tampered[tampered.size() - 3] = 'y';
    CHECK_FALSE(verify_webhook_signature(key->public_key_pem, tampered, signature));
    std::string header = signer.signature_header(body);
    CHECK(header.starts_with(R"({"v":"1","s":")"));
    // After a rotation the old key's signatures no longer verify.
    auto rotated = rotate_webhook_key(f.session(), f.clock, f.owner);
    CHECK(rotated.public_key_pem != key->public_key_pem);
    CHECK_FALSE(verify_webhook_signature(rotated.public_key_pem, body, signature));
    CHECK(rotated.public_key_pem.starts_with("-----BEGIN PUBLIC KEY-----"));
}

TEST_CASE("one signer signs many bodies, from several threads at once, each verifiably",
          "[store][webhooks]") {
    // The signing context is kept and reused between signatures: each must still be over its own
    // body, and concurrent callers must not mix them up.
    delivery_fixture f;
    f.event();
    auto claimed = f.claim();
    REQUIRE(claimed.size() == 1);
    auto key = find_webhook_key(f.session(), f.owner);
    REQUIRE(key.has_value());
    webhook_signer signer(claimed[0].private_key_pem);
    constexpr int per_thread = 100;
    std::vector<std::vector<std::pair<std::string, std::string>>> signed_by(2);
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < per_thread; ++i) {
                std::string body =
                    R"({"n":")" + std::to_string(t) + "-" + std::to_string(i) + "\"}";
                signed_by[t].emplace_back(body, signer.sign_base64(body));
            }
        });
    }
    for (auto& thread : threads) thread.join();
    int verified = 0;
    for (const auto& list : signed_by) {
        for (const auto& [body, signature] : list)
            verified += verify_webhook_signature(key->public_key_pem, body, signature) ? 1 : 0;
    }
    CHECK(verified == 2 * per_thread);
    // A signature over one body does not verify another.
    CHECK_FALSE(verify_webhook_signature(key->public_key_pem, signed_by[0][1].first,
                                         signed_by[0][0].second));
}

TEST_CASE("a staged next key signs only once its time has come", "[store][webhooks]") {
    delivery_fixture f;
    auto current = ensure_webhook_key(f.session(), f.clock, f.owner);
    CHECK_FALSE(find_next_webhook_key(f.session(), f.clock, f.owner).has_value());
    std::int64_t at_ms = f.clock.now_ms() + 60'000;
    auto next = stage_next_webhook_key(f.session(), f.clock, f.owner, at_ms);
    CHECK(next.public_key_pem != current.public_key_pem);
    CHECK(next.activate_at_ms == at_ms);
    auto found = find_next_webhook_key(f.session(), f.clock, f.owner);
    REQUIRE(found.has_value());
    CHECK(found->public_key_pem == next.public_key_pem);

    // Before the time: deliveries carry the current key.
    f.event();
    auto before = f.claim();
    REQUIRE(before.size() == 1);
    CHECK(before[0].private_key_pem == current.private_key_pem);
    f.answer(before[0], 200);

    // At the time: the next claim promotes the next key and signs with it alone.
    f.clock.advance_ms(60'000);
    f.event();
    auto after = f.claim();
    REQUIRE(after.size() == 1);
    std::string body = webhook_body(after[0], f.clock.now_ms());
    std::string signature = webhook_signer(after[0].private_key_pem).sign_base64(body);
    CHECK(verify_webhook_signature(next.public_key_pem, body, signature));
    CHECK_FALSE(verify_webhook_signature(current.public_key_pem, body, signature));
    CHECK(find_webhook_key(f.session(), f.owner)->public_key_pem == next.public_key_pem);
    CHECK_FALSE(find_next_webhook_key(f.session(), f.clock, f.owner).has_value());
    CHECK_FALSE(activate_next_webhook_key(f.session(), f.clock, f.owner).has_value());
}

TEST_CASE("activating a staged key whose time passed unclaimed makes it current",
          "[store][webhooks]") {
    delivery_fixture f;
    auto current = ensure_webhook_key(f.session(), f.clock, f.owner);
    auto next = stage_next_webhook_key(f.session(), f.clock, f.owner, f.clock.now_ms() + 1000);
    f.clock.advance_ms(5000);  // no delivery was claimed meanwhile, so nothing promoted it yet
    auto activated = activate_next_webhook_key(f.session(), f.clock, f.owner);
    REQUIRE(activated.has_value());
    CHECK(activated->public_key_pem == next.public_key_pem);
    CHECK(activated->public_key_pem != current.public_key_pem);
    CHECK_FALSE(activate_next_webhook_key(f.session(), f.clock, f.owner).has_value());
}

TEST_CASE("a next key without a time waits for activation; the sealing step seals it",
          "[store][webhooks][keys]") {
    delivery_fixture f;
    auto current = ensure_webhook_key(f.session(), f.clock, f.owner);
    auto next = stage_next_webhook_key(f.session(), f.clock, f.owner, std::nullopt);
    CHECK_FALSE(next.activate_at_ms.has_value());
    f.clock.advance_ms(365LL * 24 * 3600 * 1000);
    CHECK(ensure_webhook_key(f.session(), f.clock, f.owner).public_key_pem ==
          current.public_key_pem);

    // Stored in clear without a key-encryption key (as older versions did): the step seals both
    // private halves of the row, the staged one included.
    auto kek = *parse_sealing_key(std::string(64, '6'));
    int sealed_before = seal_stored_webhook_keys(f.session(), kek, f.random);
    CHECK(sealed_before >= 2);
    std::string env(f.owner.env_name()), stored_next;
    f.session() << "SELECT next_private_key_pem FROM webhook_keys WHERE platform_id = :p AND "
                   "environment = :e",
        soci::use(f.owner.platform_id), soci::use(env), soci::into(stored_next);
    CHECK(is_sealed(stored_next));
    CHECK(seal_stored_webhook_keys(f.session(), kek, f.random) == 0);
    auto wrong = *parse_sealing_key(std::string(64, '5'));
    CHECK_THROWS(seal_stored_webhook_keys(f.session(), wrong, f.random));
}

TEST_CASE("a platform made before signing keys gets one on first need", "[store][webhooks]") {
    delivery_fixture f;
    f.session() << "DELETE FROM webhook_keys";
    CHECK_FALSE(find_webhook_key(f.session(), f.owner).has_value());
    f.event();
    auto claimed = f.claim();
    REQUIRE(claimed.size() == 1);
    auto key = find_webhook_key(f.session(), f.owner);
    REQUIRE(key.has_value());
    CHECK(key->private_key_pem == claimed[0].private_key_pem);
    CHECK(ensure_webhook_key(f.session(), f.clock, f.owner).public_key_pem == key->public_key_pem);
}

TEST_CASE("attempts are listed only to their own tenant", "[store][webhooks]") {
    delivery_fixture f;
    f.event();
    auto claimed = f.claim();
    REQUIRE(claimed.size() == 1);
    f.answer(claimed[0], 0);
    auto mine = list_delivery_attempts(f.session(), f.owner, {}, {20, std::nullopt, true});
    REQUIRE(mine.items.size() == 1);
    CHECK(mine.items[0].response_status == 0);
    CHECK(mine.items[0].error == "connecting failed");
    CHECK(mine.items[0].next_attempt_at_ms == f.clock.now_ms() + 5000);
    tenant production{f.owner.platform_id, environment::production};
    CHECK(list_delivery_attempts(f.session(), production, {}, {20, std::nullopt, true})
              .items.empty());
}
