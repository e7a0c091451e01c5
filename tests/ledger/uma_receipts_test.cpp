// Settlement of incoming UMA payments: the invoice paid and the approval APPROVED, in either order,
// credit the receiving account once; a rejected, failed or timed-out payment is never credited and
// its invoice is no longer payable.
#include "ledger/uma_receipts.hpp"

#include <catch2/catch.hpp>

#include "ledger/approvals.hpp"
#include "ledger/book.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;
using corridor::testing::store_fixture;

namespace {

constexpr const char* currencies_json = R"({"currencies": [
    {"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2}]})";
constexpr const char* rates_json = R"({"base": "USD", "rates": {"USD": "1"},
    "pricing": {"spread_bps": 0, "variable_fee_bps": 0, "fixed_fee": {}}})";

struct receipt_fixture : store_fixture {
    receipt_fixture()
        : currencies(currency_registry::from_json(currencies_json)),
          rates(rate_table::from_json(rates_json)),
          funding(funding_directory::from_json("{}")) {
        owner = tenant{make_platform("receiver.example"), environment::sandbox};
        auto config = load_platform_config(session(), owner);
        new_customer request{std::string("alice"), "INDIVIDUAL", "APPROVED", {}, {"USD"}};
        auto created = create_customer(session(), customers(), owner, config->uma_domain, request);
        REQUIRE(created.ok());
        session() << "SELECT id FROM ledger_accounts WHERE owner_id = :c AND currency = 'USD'",
            soci::use(created.value().id), soci::into(account_id);
        REQUIRE(!account_id.empty());
    }
    payment_services services() {
        return payment_services{ids, random, clock, currencies, rates, funding, 60000};
    }
    // An incoming payment of 1234 cents with its invoice; returns {transaction id, payment hash}.
    std::pair<std::string, std::string> begin() {
        incoming_payment_request request;
        request.owner = owner;
        request.destination_account_id = account_id;
        request.amount = 1234;
        request.sender_uma_address = "$bob@sender.example";
        auto begun = begin_incoming_approval(session(), services(), request);
        REQUIRE(begun.ok());
        std::string hash = std::string(63, 'a') + std::to_string(++serial % 10);
        record_uma_invoice(session(), {hash, begun.value().id, owner, "lnbcrt1...", 12340000,
                                       "OPEN", clock.now_ms(), 0});
        return {begun.value().id, hash};
    }
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

    currency_registry currencies;
    table_rate_source rates;
    funding_directory funding;
    tenant owner;
    std::string account_id;
    int serial = 0;
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
