// Invitations in the store: created PENDING with a random code, read only by their tenant, claimed
// once with the INVITATION_CLAIMED event in the claim's transaction, cancelled only by their
// platform, and EXPIRED by the clock alone (a manual clock: no sleeping).
#include "ledger/customers/invitation_store.hpp"

#include <catch2/catch.hpp>
#include <set>

#include "ledger/store/database.hpp"
#include "ledger/store/event_payloads.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;
using corridor::testing::store_fixture;

namespace {

struct invitation_fixture : store_fixture {
    tenant owner{make_platform("acme.example"), environment::sandbox};
    std::string inviter_id = make_inviter();

    invitation_services services() { return {ids, random, clock}; }

    std::string make_inviter() {
        new_customer request;
        request.platform_customer_id = "inviter";
        request.customer_type = "INDIVIDUAL";
        request.kyc_status = "APPROVED";
        request.fields.uma_address = "$ana@acme.example";
        auto created = create_customer(session(), customers(), owner, "acme.example", request);
        REQUIRE(created);
        return created.value().id;
    }

    invitation make(std::optional<std::int64_t> expires_at_ms = std::nullopt) {
        new_invitation request;
        request.inviter_customer_id = inviter_id;
        request.inviter_uma = "$ana@acme.example";
        request.first_name = "Maria";
        request.amount_to_send = 12550;
        request.currency = "USD";
        request.expires_at_ms = expires_at_ms;
        return create_invitation(session(), services(), owner, request);
    }

    result<invitation, invitation_error> claim(const tenant& who, const std::string& code,
                                               const std::string& invitee = "$bob@other.example") {
        write_transaction transaction(session());
        auto claimed =
            claim_invitation(session(), services(), who, code, invitee, [](const invitation& item) {
                return "{\"code\":\"" + item.code + "\",\"status\":\"" + item.status + "\"}";
            });
        if (claimed) transaction.commit();
        return claimed;
    }

    int events(const std::string& code) {
        int count = 0;
        soci::rowset<std::string> payloads =
            (session().prepare
             << "SELECT payload FROM outbox_events WHERE type = 'INVITATION_CLAIMED'");
        for (const auto& stored : payloads)
            count += unpack_event_payload(stored).find(code) != std::string::npos;
        return count;
    }
};

}  // namespace

TEST_CASE("an invitation is stored PENDING under a fresh random code", "[store][invitations]") {
    invitation_fixture fixture;
    auto created = fixture.make();
    CHECK(created.status == "PENDING");
    CHECK(created.code.size() == invitation_code_chars);
    CHECK(created.code.find_first_not_of("abcdefghijklmnopqrstuvwxyz234567") == std::string::npos);
    auto read = find_invitation(fixture.session(), fixture.clock, fixture.owner, created.code);
    REQUIRE(read);
    CHECK(read->inviter_uma == "$ana@acme.example");
    CHECK(read->first_name == "Maria");
    CHECK(read->amount_to_send == 12550);
    CHECK(read->currency == "USD");
    CHECK_FALSE(read->invitee_uma);
    CHECK_FALSE(read->expires_at_ms);
    CHECK(read->created_at_ms == fixture.clock.now_ms());

    std::set<std::string> codes{created.code};
    for (int i = 0; i < 50; ++i) codes.insert(fixture.make().code);
    CHECK(codes.size() == 51);
}

TEST_CASE("another tenant's code reads as not found", "[store][invitations]") {
    invitation_fixture fixture;
    auto created = fixture.make();
    tenant production{fixture.owner.platform_id, environment::production};
    tenant other{fixture.make_platform("other.example", "Other"), environment::sandbox};
    CHECK_FALSE(find_invitation(fixture.session(), fixture.clock, production, created.code));
    CHECK_FALSE(find_invitation(fixture.session(), fixture.clock, other, created.code));
    CHECK_FALSE(find_invitation(fixture.session(), fixture.clock, fixture.owner, "nope"));
    CHECK(find_invitation_by_code(fixture.session(), fixture.clock, created.code)->owner ==
          fixture.owner);
    CHECK(fixture.claim(other, created.code).error() == invitation_error::not_found);
    CHECK(fixture.claim(production, created.code).error() == invitation_error::not_found);
    // Cancel: another platform of the environment may learn it exists (403), not another
    // environment.
    CHECK(cancel_invitation(fixture.session(), fixture.clock, other, created.code).error() ==
          invitation_error::other_platform);
    CHECK(cancel_invitation(fixture.session(), fixture.clock, production, created.code).error() ==
          invitation_error::not_found);
    CHECK(find_invitation(fixture.session(), fixture.clock, fixture.owner, created.code)->status ==
          "PENDING");
    CHECK(fixture.events(created.code) == 0);
}

TEST_CASE("a claim happens once and writes its event with it", "[store][invitations]") {
    invitation_fixture fixture;
    auto created = fixture.make();
    fixture.clock.advance_ms(5000);
    auto claimed = fixture.claim(fixture.owner, created.code);
    REQUIRE(claimed);
    CHECK(claimed->status == "CLAIMED");
    CHECK(claimed->invitee_uma == "$bob@other.example");
    CHECK(claimed->claimed_at_ms == fixture.clock.now_ms());
    CHECK(fixture.events(created.code) == 1);

    CHECK(fixture.claim(fixture.owner, created.code, "$carol@x.example").error() ==
          invitation_error::already_claimed);
    CHECK(
        cancel_invitation(fixture.session(), fixture.clock, fixture.owner, created.code).error() ==
        invitation_error::already_claimed);
    CHECK(find_invitation(fixture.session(), fixture.clock, fixture.owner, created.code)
              ->invitee_uma == "$bob@other.example");
    CHECK(fixture.events(created.code) == 1);

    // The inviter cannot claim their own invitation.
    auto second = fixture.make();
    CHECK(fixture.claim(fixture.owner, second.code, "$ana@acme.example").error() ==
          invitation_error::self_claim);
    CHECK(fixture.events(second.code) == 0);
}

TEST_CASE("a claim rolled back leaves neither the claim nor its event", "[store][invitations]") {
    invitation_fixture fixture;
    auto created = fixture.make();
    {
        write_transaction transaction(fixture.session());
        auto claimed = claim_invitation(fixture.session(), fixture.services(), fixture.owner,
                                        created.code, "$bob@other.example",
                                        [](const invitation&) { return std::string("{}"); });
        REQUIRE(claimed);
        // No commit: the caller's request failed after the claim.
    }
    CHECK(find_invitation(fixture.session(), fixture.clock, fixture.owner, created.code)->status ==
          "PENDING");
    int all_events = -1;
    fixture.session() << "SELECT COUNT(*) FROM outbox_events", soci::into(all_events);
    CHECK(all_events == 0);
}

TEST_CASE("cancel moves PENDING to CANCELLED, after which nothing changes it",
          "[store][invitations]") {
    invitation_fixture fixture;
    auto created = fixture.make();
    auto cancelled =
        cancel_invitation(fixture.session(), fixture.clock, fixture.owner, created.code);
    REQUIRE(cancelled);
    CHECK(cancelled->status == "CANCELLED");
    CHECK(
        cancel_invitation(fixture.session(), fixture.clock, fixture.owner, created.code).error() ==
        invitation_error::cancelled);
    CHECK(fixture.claim(fixture.owner, created.code).error() == invitation_error::cancelled);
    CHECK(fixture.events(created.code) == 0);
}

TEST_CASE("an invitation expires by the clock alone", "[store][invitations]") {
    invitation_fixture fixture;
    auto start = fixture.clock.now_ms();
    auto created = fixture.make(start + 60000);
    CHECK(created.expires_at_ms == start + 60000);
    fixture.clock.advance_ms(59999);
    CHECK(find_invitation(fixture.session(), fixture.clock, fixture.owner, created.code)->status ==
          "PENDING");
    fixture.clock.advance_ms(1);
    CHECK(find_invitation(fixture.session(), fixture.clock, fixture.owner, created.code)->status ==
          "EXPIRED");
    CHECK(fixture.claim(fixture.owner, created.code).error() == invitation_error::expired);
    CHECK(
        cancel_invitation(fixture.session(), fixture.clock, fixture.owner, created.code).error() ==
        invitation_error::expired);
    CHECK(fixture.events(created.code) == 0);

    // Claimed in time, it stays CLAIMED after the expiry passes.
    auto kept = fixture.make(fixture.clock.now_ms() + 1000);
    REQUIRE(fixture.claim(fixture.owner, kept.code));
    fixture.clock.advance_ms(5000);
    CHECK(find_invitation(fixture.session(), fixture.clock, fixture.owner, kept.code)->status ==
          "CLAIMED");
}
