// The UMA receiving side as a receiver of rail arrivals: a rail's payment of an UMA invoice the
// service signed pays that invoice (and settles the payment once approved), once; an underpaid or
// non-BTC arrival, or one for an invoice no longer payable, is refused and credits nothing.
#include "ledger/payments/uma_incoming_sink.hpp"

#include <catch2/catch.hpp>

#include "ledger/book/book.hpp"
#include "ledger/store/database.hpp"
#include "tests/support/receiver_fixture.hpp"

using namespace corridor;
using corridor::testing::receiver_fixture;

namespace {

struct sink_fixture : receiver_fixture {
    uma_incoming_sink sink;
    incoming_payment_router router;

    sink_fixture() { router.add_sink("uma", sink); }
    // An approved incoming UMA payment of 1234 cents whose invoice asks 12,340,000 msat.
    std::pair<std::string, std::string> approved_invoice() {
        auto [transaction_id, hash] = begin_invoiced('b');
        REQUIRE(apply_approval_answer(session(), services(), owner, transaction_id, 200, "", 5000)
                    .ok());
        return {transaction_id, hash};
    }
    std::optional<incoming_payment> arrive(const std::string& rail_reference,
                                           const std::string& hash, std::int64_t msat,
                                           std::string currency = "BTC",
                                           environment env = environment::sandbox) {
        incoming_payment arrival;
        arrival.rail = "spark";
        arrival.rail_reference = rail_reference;
        arrival.env = env;
        arrival.match_key = hash;
        arrival.currency = std::move(currency);
        arrival.amount_minor = msat / 1000;
        arrival.amount_milli_minor = msat;
        write_transaction transaction(session());
        auto stored = router.receive(session(), services(), arrival);
        transaction.commit();
        return stored;
    }
    std::int64_t balance() { return *account_balance(session(), account_id); }
};

}  // namespace

TEST_CASE_METHOD(sink_fixture, "a rail's payment of an UMA invoice settles the UMA payment once",
                 "[store][incoming][uma_receipts]") {
    auto [transaction_id, hash] = approved_invoice();
    auto paid = arrive(hash, hash, 12'340'000);
    REQUIRE(paid.has_value());
    CHECK(paid->status == "CREDITED");
    CHECK(paid->routed_to == "sink:uma");
    CHECK(paid->platform_id == owner.platform_id);
    CHECK(paid->transaction_id == transaction_id);
    CHECK(find_transaction(session(), owner, transaction_id)->status == "COMPLETED");
    CHECK(find_uma_invoice(session(), owner, hash)->state == "SETTLED");
    CHECK(balance() == 1234);
    // The same payment reported again changes nothing; a second payment is refused.
    CHECK_FALSE(arrive(hash, hash, 12'340'000).has_value());
    auto second = arrive("another-arrival", hash, 12'340'000);
    CHECK(second->status == "REFUSED");
    CHECK_THAT(second->outcome, Catch::Contains("not payable"));
    CHECK(balance() == 1234);
    CHECK(audit_book(session()).empty());
}

TEST_CASE_METHOD(sink_fixture,
                 "an UMA invoice underpaid, in another currency or elsewhere is not paid",
                 "[store][incoming][uma_receipts]") {
    auto [transaction_id, hash] = approved_invoice();
    auto short_paid = arrive("short", hash, 12'339'999);
    CHECK(short_paid->status == "REFUSED");
    CHECK_THAT(short_paid->outcome, Catch::Contains("12339999 msat of the invoice's 12340000"));
    auto dollars = arrive("dollars", hash, 12'340'000, "USD");
    CHECK(dollars->status == "REFUSED");
    // The invoice belongs to the sandbox: a production arrival with its hash matches nothing.
    auto production = arrive("production", hash, 12'340'000, "BTC", environment::production);
    CHECK(production->status == "UNMATCHED");
    CHECK(find_uma_invoice(session(), owner, hash)->state == "OPEN");
    CHECK(find_transaction(session(), owner, transaction_id)->status == "PENDING");
    CHECK(balance() == 0);
    // An unknown hash is not the sink's.
    CHECK(arrive("unknown", std::string(64, 'c'), 1000)->status == "UNMATCHED");
}
