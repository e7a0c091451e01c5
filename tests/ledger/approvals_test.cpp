// The approval protocol of an incoming payment in PENDING, through the domain layer: each answer of
// the platform to the approval webhook (200, 403, 422, 202, none, 5xx), the deferred decision
// through approve/reject, the time-out, and the refusal of any decision after the first.
#include "ledger/payments/approvals.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include "ledger/store/event_payloads.hpp"
#include "ledger/store/outbox.hpp"
#include "tests/support/receiver_fixture.hpp"

using namespace corridor;
using corridor::testing::receiver_fixture;

namespace {

struct approval_fixture : receiver_fixture {
    transaction_record begin(std::vector<counterparty_field> requested = {}) {
        incoming_payment_request request = incoming_request();
        request.counterparty_information = R"({"FULL_NAME":"Bob Sender"})";
        request.requested_fields = std::move(requested);
        auto begun = begin_incoming_approval(session(), services(), request);
        REQUIRE(begun.ok());
        return begun.value();
    }
    incoming_approval answer(const transaction_record& t, int status, std::string_view body = "") {
        auto applied =
            apply_approval_answer(session(), services(), owner, t.id, status, body, timeout_ms);
        REQUIRE(applied.ok());
        return applied.value();
    }
    transaction_record reread(const transaction_record& t) {
        return *find_transaction(session(), owner, t.id);
    }
    // The INCOMING_PAYMENT events about transaction `t`, oldest first: {purpose, status}.
    std::vector<std::pair<std::string, std::string>> events_of(const transaction_record& t) {
        std::vector<std::pair<std::string, std::string>> out;
        soci::rowset<soci::row> rows =
            (session().prepare << "SELECT purpose, payload FROM outbox_events WHERE "
                                  "type = 'INCOMING_PAYMENT' ORDER BY id");
        for (const auto& row : rows) {
            auto payload =
                boost::json::parse(unpack_event_payload(row.get<std::string>(1))).as_object();
            const auto& transaction = payload.at("transaction").as_object();
            if (transaction.at("id").as_string() != t.id) continue;
            out.emplace_back(row.get<std::string>(0),
                             std::string(transaction.at("status").as_string()));
        }
        return out;
    }

    std::int64_t timeout_ms = 5000;
};

const std::vector<counterparty_field> needs_name = {{"FULL_NAME", true}, {"EMAIL", false}};

}  // namespace

TEST_CASE("an incoming payment under approval is PENDING and asks the platform once",
          "[store][approvals]") {
    approval_fixture f;
    auto t = f.begin(needs_name);
    CHECK(t.type == "INCOMING");
    CHECK(t.status == "PENDING");
    CHECK(t.customer_id == f.customer_id);
    CHECK(t.received_amount == 1234);
    auto approval = find_incoming_approval(f.session(), f.owner, t.id);
    REQUIRE(approval.has_value());
    CHECK(approval->state == "AWAITING_WEBHOOK");
    std::string purpose, payload;
    f.session() << "SELECT purpose, payload FROM outbox_events WHERE id = packed_id(:i)",
        soci::use(approval->event_id), soci::into(purpose), soci::into(payload);
    CHECK(purpose == "APPROVAL");
    auto body = boost::json::parse(unpack_event_payload(payload)).as_object();
    CHECK(body.at("transaction").at("status").as_string() == "PENDING");
    CHECK(body.at("transaction").at("counterpartyInformation").at("FULL_NAME").as_string() ==
          "Bob Sender");
    CHECK(body.at("transaction").at("source").at("umaAddress").as_string() ==
          "$bob@sender.example");
    const auto& requested = body.at("requestedReceiverCustomerInfoFields").as_array();
    REQUIRE(requested.size() == 2);
    CHECK(requested[0].at("name").as_string() == "FULL_NAME");
    CHECK(requested[0].at("mandatory").as_bool());
}

TEST_CASE("200 with the mandatory fields approves; the payment stays PENDING for its flow",
          "[store][approvals]") {
    approval_fixture f;
    auto t = f.begin(needs_name);
    auto approval = f.answer(t, 200, R"({"receiverCustomerInfo":{"FULL_NAME":"Alice Receiver"}})");
    CHECK(approval.state == "APPROVED");
    CHECK(boost::json::parse(approval.receiver_customer_info).at("FULL_NAME").as_string() ==
          "Alice Receiver");
    CHECK(f.reread(t).status == "PENDING");
    // camelCase keys count too.
    auto other = f.begin(needs_name);
    CHECK(f.answer(other, 200, R"({"receiverCustomerInfo":{"fullName":"Alice"}})").state ==
          "APPROVED");
}

TEST_CASE("200 without a mandatory field fails the payment with MISSING_MANDATORY_PAYEE_DATA",
          "[store][approvals]") {
    approval_fixture f;
    auto t = f.begin(needs_name);
    CHECK(f.answer(t, 200, R"({"receiverCustomerInfo":{"EMAIL":"a@b.example"}})").state ==
          "FAILED");
    auto after = f.reread(t);
    CHECK(after.status == "FAILED");
    CHECK(after.failure_reason == "MISSING_MANDATORY_PAYEE_DATA");
    // Without requested fields, a bare 200 approves.
    auto plain = f.begin();
    CHECK(f.answer(plain, 200).state == "APPROVED");
}

TEST_CASE("403 rejects with the platform's reason", "[store][approvals]") {
    approval_fixture f;
    auto t = f.begin();
    auto approval = f.answer(t, 403, R"({"reason":"sanctions screening"})");
    CHECK(approval.state == "REJECTED");
    CHECK(approval.reason == "sanctions screening");
    auto after = f.reread(t);
    CHECK(after.status == "REJECTED");
    CHECK(after.failure_reason.empty());
    CHECK(f.events_of(t) == std::vector<std::pair<std::string, std::string>>{
                                {"APPROVAL", "PENDING"}, {"NOTIFY", "REJECTED"}});
}

TEST_CASE("422 asks the sender for more information", "[store][approvals]") {
    approval_fixture f;
    auto t = f.begin();
    auto approval = f.answer(
        t, 422, R"({"message":"need more","requiredFields":["BIRTH_DATE","NATIONALITY"]})");
    CHECK(approval.state == "NEEDS_INFORMATION");
    CHECK(approval.required_fields == R"(["BIRTH_DATE","NATIONALITY"])");
    CHECK(f.reread(t).status == "REJECTED");
}

TEST_CASE("no answer, a 5xx or an unexpected status fails it with PAYMENT_APPROVAL_WEBHOOK_ERROR",
          "[store][approvals]") {
    approval_fixture f;
    for (int status : {0, 500, 503, 404, 301}) {
        auto t = f.begin();
        CHECK(f.answer(t, status).state == "FAILED");
        auto after = f.reread(t);
        CHECK(after.status == "FAILED");
        CHECK(after.failure_reason == "PAYMENT_APPROVAL_WEBHOOK_ERROR");
        CHECK(f.events_of(t).back() == std::pair<std::string, std::string>{"NOTIFY", "FAILED"});
    }
}

TEST_CASE("202 defers: approve within the time-out", "[store][approvals]") {
    approval_fixture f;
    auto t = f.begin(needs_name);
    auto approval = f.answer(t, 202);
    CHECK(approval.state == "DEFERRED");
    CHECK(approval.deadline_at_ms == f.clock.now_ms() + 5000);
    // Missing mandatory information: refused, and the payment is still open.
    auto refused = approve_incoming_payment(f.session(), f.services(), f.owner, t.id, "{}");
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == approval_error::missing_mandatory_fields);
    CHECK(refused.error().fields == std::vector<std::string>{"FULL_NAME"});
    f.clock.advance_ms(4999);
    auto approved = approve_incoming_payment(f.session(), f.services(), f.owner, t.id,
                                             R"({"FULL_NAME":"Alice"})");
    REQUIRE(approved.ok());
    CHECK(approved.value().status == "PENDING");
    CHECK(find_incoming_approval(f.session(), f.owner, t.id)->state == "APPROVED");
    // A second decision is refused, and so is the late webhook answer (it changes nothing).
    auto again = reject_incoming_payment(f.session(), f.services(), f.owner, t.id, "");
    REQUIRE_FALSE(again.ok());
    CHECK(again.error().code == approval_error::not_pending_platform_approval);
    CHECK(f.answer(t, 403).state == "APPROVED");
}

TEST_CASE("202 defers: reject within the time-out", "[store][approvals]") {
    approval_fixture f;
    auto t = f.begin();
    f.answer(t, 202);
    auto rejected =
        reject_incoming_payment(f.session(), f.services(), f.owner, t.id, "customer declined");
    REQUIRE(rejected.ok());
    CHECK(rejected.value().status == "REJECTED");
    CHECK(find_incoming_approval(f.session(), f.owner, t.id)->reason == "customer declined");
    auto late = approve_incoming_payment(f.session(), f.services(), f.owner, t.id, "");
    REQUIRE_FALSE(late.ok());
    CHECK(late.error().code == approval_error::not_pending_platform_approval);
}

TEST_CASE("202 and no decision in time: PAYMENT_APPROVAL_TIMED_OUT, and approve is refused after",
          "[store][approvals]") {
    approval_fixture f;
    auto t = f.begin();
    auto undecided = f.begin();
    f.answer(t, 202);
    f.clock.advance_ms(4999);
    CHECK(expire_due_approvals(f.session(), f.services(), 100) == 0);
    f.clock.advance_ms(1);
    // At the deadline the API refuses at once, even before the sweeper has run.
    auto at_deadline = approve_incoming_payment(f.session(), f.services(), f.owner, t.id, "");
    REQUIRE_FALSE(at_deadline.ok());
    CHECK(at_deadline.error().code == approval_error::not_pending_platform_approval);
    CHECK(expire_due_approvals(f.session(), f.services(), 100) == 1);
    auto after = f.reread(t);
    CHECK(after.status == "FAILED");
    CHECK(after.failure_reason == "PAYMENT_APPROVAL_TIMED_OUT");
    CHECK(find_incoming_approval(f.session(), f.owner, t.id)->state == "FAILED");
    CHECK(f.events_of(t).back() == std::pair<std::string, std::string>{"NOTIFY", "FAILED"});
    auto late = approve_incoming_payment(f.session(), f.services(), f.owner, t.id, "");
    REQUIRE_FALSE(late.ok());
    CHECK(late.error().code == approval_error::not_pending_platform_approval);
    // The payment still waiting for its webhook answer is not the sweeper's business.
    CHECK(f.reread(undecided).status == "PENDING");
    CHECK(expire_due_approvals(f.session(), f.services(), 100) == 0);
}

TEST_CASE("another tenant's payment, or a payment without approval, reads as not found",
          "[store][approvals]") {
    approval_fixture f;
    auto t = f.begin();
    tenant production{f.owner.platform_id, environment::production};
    auto foreign = approve_incoming_payment(f.session(), f.services(), production, t.id, "");
    REQUIRE_FALSE(foreign.ok());
    CHECK(foreign.error().code == approval_error::transaction_not_found);
    auto missing =
        reject_incoming_payment(f.session(), f.services(), f.owner, "Transaction:nope", "");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().code == approval_error::transaction_not_found);
    incoming_payment_request bad;
    bad.owner = f.owner;
    bad.destination_account_id = "InternalAccount:missing";
    bad.amount = 1;
    auto refused = begin_incoming_approval(f.session(), f.services(), bad);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == approval_error::account_not_found);
}
