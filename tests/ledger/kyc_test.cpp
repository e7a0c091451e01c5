// KYC in the store: which statuses move money, single-use expiring links stored only as hashes,
// and sandbox reviews that decide at their time, once, with their KYC_STATUS event.
#include "ledger/customers/kyc.hpp"

#include <catch2/catch.hpp>

#include "ledger/store/database.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;
using corridor::testing::store_fixture;

namespace {

customer make_customer(store_fixture& fixture, const tenant& owner, const std::string& id) {
    new_customer request;
    request.platform_customer_id = id;
    request.customer_type = "INDIVIDUAL";
    request.kyc_status = "PENDING_REVIEW";
    auto created =
        create_customer(fixture.session(), fixture.customers(), owner, "acme.example", request);
    REQUIRE(created);
    return created.value();
}

std::string status_of(store_fixture& fixture, const tenant& owner, const std::string& id) {
    return find_customer(fixture.session(), owner, id)->kyc_status;
}

int events(soci::session& session, const std::string& type) {
    int count = 0;
    session << "SELECT COUNT(*) FROM outbox_events WHERE type = :t", soci::use(type),
        soci::into(count);
    return count;
}

}  // namespace

TEST_CASE("only approved statuses move money; only PENDING_REVIEW is not final", "[kyc]") {
    for (auto status : {"APPROVED", "MANUALLY_APPROVED"}) CHECK(kyc_allows_money_movement(status));
    for (auto status :
         {"PENDING_REVIEW", "REJECTED", "EXPIRED", "CANCELED", "MANUALLY_REJECTED", ""}) {
        CHECK_FALSE(kyc_allows_money_movement(status));
    }
    CHECK_FALSE(is_final_kyc_status("PENDING_REVIEW"));
    CHECK(is_final_kyc_status("REJECTED"));
    CHECK(sandbox_kyc_decision("Ana Pereira") == "APPROVED");
    CHECK(sandbox_kyc_decision("Rita REJECTED") == "REJECTED");
    CHECK(sandbox_kyc_decision("rejecta") == "REJECTED");
}

TEST_CASE("kyc links are single use, expire, and are stored only as a hash", "[store][kyc]") {
    store_fixture fixture;
    tenant owner{fixture.make_platform("acme.example"), environment::sandbox};
    auto subject = make_customer(fixture, owner, "c1");
    auto& session = fixture.session();
    auto token = create_kyc_link(session, fixture.random, fixture.clock, owner, subject.id,
                                 std::string("https://p.example/done"), 60000);
    CHECK(token.size() == 43);
    int stored_plain = -1;
    session << "SELECT COUNT(*) FROM kyc_links WHERE token_hash = :t", soci::use(token),
        soci::into(stored_plain);
    CHECK(stored_plain == 0);

    auto link = find_kyc_link(session, token);
    REQUIRE(link);
    CHECK(link->owner == owner);
    CHECK(link->customer_id == subject.id);
    CHECK(link->redirect_uri == "https://p.example/done");
    CHECK(link->expires_at_ms == fixture.clock.now_ms() + 60000);
    CHECK_FALSE(find_kyc_link(session, token + "x"));
    CHECK_FALSE(find_kyc_link(session, ""));

    CHECK(consume_kyc_link(session, fixture.clock, token));
    CHECK_FALSE(consume_kyc_link(session, fixture.clock, token));
    CHECK(find_kyc_link(session, token)->used_at_ms == fixture.clock.now_ms());

    auto later = create_kyc_link(session, fixture.random, fixture.clock, owner, subject.id,
                                 std::nullopt, 1000);
    CHECK_FALSE(find_kyc_link(session, later)->redirect_uri);
    fixture.clock.advance_ms(1000);
    CHECK_FALSE(consume_kyc_link(session, fixture.clock, later));
}

TEST_CASE("sandbox reviews decide when due, once, with a KYC_STATUS event; production waits",
          "[store][kyc]") {
    store_fixture fixture;
    auto platform = fixture.make_platform("acme.example");
    tenant sandbox{platform, environment::sandbox};
    tenant production{platform, environment::production};
    auto& session = fixture.session();
    auto approved = make_customer(fixture, sandbox, "ok");
    auto rejected = make_customer(fixture, sandbox, "no");
    auto live = make_customer(fixture, production, "live");
    auto now = fixture.clock.now_ms();
    submit_kyc_review(session, fixture.ids, fixture.clock, sandbox, approved.id, "Ana Pereira",
                      now + 500);
    submit_kyc_review(session, fixture.ids, fixture.clock, sandbox, rejected.id, "Rita Reject",
                      now + 500);
    submit_kyc_review(session, fixture.ids, fixture.clock, production, live.id, "Ana Pereira", now);
    CHECK_FALSE(customer_may_move_money(session, sandbox, approved.id));
    CHECK(customer_may_move_money(session, sandbox, ""));

    CHECK(decide_due_kyc_reviews(session, fixture.ids, fixture.clock, 10) == 0);
    CHECK(status_of(fixture, sandbox, approved.id) == "PENDING_REVIEW");
    fixture.clock.advance_ms(500);
    CHECK(decide_due_kyc_reviews(session, fixture.ids, fixture.clock, 10) == 2);
    CHECK(status_of(fixture, sandbox, approved.id) == "APPROVED");
    CHECK(status_of(fixture, sandbox, rejected.id) == "REJECTED");
    CHECK(status_of(fixture, production, live.id) == "PENDING_REVIEW");
    CHECK(customer_may_move_money(session, sandbox, approved.id));
    CHECK_FALSE(customer_may_move_money(session, sandbox, rejected.id));
    CHECK(events(session, "KYC_STATUS") == 2);
    CHECK(decide_due_kyc_reviews(session, fixture.ids, fixture.clock, 10) == 0);
    CHECK(events(session, "KYC_STATUS") == 2);

    // A new submission replaces a pending one: only the latest is decided.
    auto twice = make_customer(fixture, sandbox, "twice");
    submit_kyc_review(session, fixture.ids, fixture.clock, sandbox, twice.id, "Rita Reject",
                      fixture.clock.now_ms());
    submit_kyc_review(session, fixture.ids, fixture.clock, sandbox, twice.id, "Ana Pereira",
                      fixture.clock.now_ms());
    CHECK(decide_due_kyc_reviews(session, fixture.ids, fixture.clock, 10) == 1);
    CHECK(status_of(fixture, sandbox, twice.id) == "APPROVED");
}
