// Settlement of incoming UMA payments: the invoice paid and the approval APPROVED, in either order,
// credit the receiving account once; a rejected, failed or timed-out payment is never credited and
// its invoice is no longer payable.
#include "ledger/payments/uma_receipts.hpp"

#include <catch2/catch.hpp>

#include "ledger/book/book.hpp"
#include "tests/support/receiver_fixture.hpp"

using namespace corridor;
using corridor::testing::receiver_fixture;

namespace {

struct receipt_fixture : receiver_fixture {
    // An incoming payment of 1234 cents with its invoice; returns {transaction id, payment hash}.
    std::pair<std::string, std::string> begin() { return begin_invoiced('a'); }
    void answer(const std::string& transaction_id, int status) {
        REQUIRE(
            apply_approval_answer(session(), services(), owner, transaction_id, status, "", 5000)
                .ok());
    }
    std::string status_of(const std::string& transaction_id) {
        return find_transaction(session(), owner, transaction_id)->status;
    }
    std::int64_t balance() { return *account_balance(session(), account_id); }
    result<transaction_record, receipt_failure> pay(const std::string& hash) {
        return receive_uma_invoice_payment(session(), services(), owner, hash);
    }
};

}  // namespace

TEST_CASE("paid before the approval: settled by the sweep once approved, once",
          "[store][uma_receipts]") {
    receipt_fixture f;
    auto [id, hash] = f.begin();
    auto paid = f.pay(hash);
    REQUIRE(paid.ok());
    CHECK(paid.value().status == "PENDING");
    CHECK(find_uma_invoice(f.session(), f.owner, hash)->state == "PAID");
    CHECK(settle_approved_uma_receipts(f.session(), f.services(), 10) == 0);
    CHECK(f.balance() == 0);
    f.answer(id, 200);
    CHECK(settle_approved_uma_receipts(f.session(), f.services(), 10) == 1);
    CHECK(f.status_of(id) == "COMPLETED");
    CHECK(f.balance() == 1234);
    CHECK(find_uma_invoice(f.session(), f.owner, hash)->state == "SETTLED");
    CHECK(settle_approved_uma_receipts(f.session(), f.services(), 10) == 0);
    auto again = f.pay(hash);
    REQUIRE_FALSE(again.ok());
    CHECK(again.error().code == receipt_error::not_payable);
    CHECK(f.balance() == 1234);
    CHECK(audit_book(f.session()).empty());
}

TEST_CASE("approved before paid: the payment settles when paid", "[store][uma_receipts]") {
    receipt_fixture f;
    auto [id, hash] = f.begin();
    f.answer(id, 200);
    CHECK(f.status_of(id) == "PENDING");
    auto paid = f.pay(hash);
    REQUIRE(paid.ok());
    CHECK(paid.value().status == "COMPLETED");
    CHECK(f.status_of(id) == "COMPLETED");
    CHECK(f.balance() == 1234);
}

TEST_CASE("rejected, failed or timed-out payments are never credited", "[store][uma_receipts]") {
    receipt_fixture f;
    SECTION("rejected, then paid: not payable") {
        auto [id, hash] = f.begin();
        f.answer(id, 403);
        CHECK(f.status_of(id) == "REJECTED");
        auto paid = f.pay(hash);
        REQUIRE_FALSE(paid.ok());
        CHECK(paid.error().code == receipt_error::not_payable);
    }
    SECTION("paid, then rejected: the sweep leaves it") {
        auto [id, hash] = f.begin();
        REQUIRE(f.pay(hash).ok());
        f.answer(id, 403);
        CHECK(settle_approved_uma_receipts(f.session(), f.services(), 10) == 0);
        CHECK(f.status_of(id) == "REJECTED");
    }
    SECTION("deferred and never decided: PAYMENT_APPROVAL_TIMED_OUT") {
        auto [id, hash] = f.begin();
        f.answer(id, 202);
        REQUIRE(f.pay(hash).ok());
        f.clock.advance_ms(5000);
        CHECK(expire_due_approvals(f.session(), f.services(), 10) == 1);
        CHECK(settle_approved_uma_receipts(f.session(), f.services(), 10) == 0);
        auto t = find_transaction(f.session(), f.owner, id);
        CHECK(t->status == "FAILED");
        CHECK(t->failure_reason == "PAYMENT_APPROVAL_TIMED_OUT");
    }
    SECTION("failed outside the approval: a later approval answer changes nothing") {
        auto [id, hash] = f.begin();
        auto failed = fail_incoming_payment(f.session(), f.services(), f.owner, id,
                                            "PAY_REQUEST_FAILED", "compliance");
        REQUIRE(failed.ok());
        CHECK(failed.value().failure_reason == "PAY_REQUEST_FAILED");
        f.answer(id, 200);
        CHECK(f.status_of(id) == "FAILED");
        CHECK_FALSE(f.pay(hash).ok());
        CHECK_FALSE(fail_incoming_payment(f.session(), f.services(), f.owner, id,
                                          "PAY_REQUEST_FAILED", "again")
                        .ok());
    }
    CHECK(f.balance() == 0);
}

TEST_CASE("an unknown payment hash or another tenant's is not found", "[store][uma_receipts]") {
    receipt_fixture f;
    auto [id, hash] = f.begin();
    auto unknown = f.pay(std::string(64, 'f'));
    REQUIRE_FALSE(unknown.ok());
    CHECK(unknown.error().code == receipt_error::invoice_not_found);
    tenant production{f.owner.platform_id, environment::production};
    auto elsewhere = receive_uma_invoice_payment(f.session(), f.services(), production, hash);
    REQUIRE_FALSE(elsewhere.ok());
    CHECK(elsewhere.error().code == receipt_error::invoice_not_found);
    CHECK(find_uma_invoice_of_transaction(f.session(), f.owner, id)->payment_hash == hash);
}
