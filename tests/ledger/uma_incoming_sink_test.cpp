// The UMA receiving side as a receiver of rail arrivals: a rail's payment of an UMA invoice the
// service signed pays that invoice (and settles the payment once approved), once; an underpaid or
// non-BTC arrival, or one for an invoice no longer payable, is refused and credits nothing.
#include "ledger/uma_incoming_sink.hpp"

#include <catch2/catch.hpp>

#include "ledger/approvals.hpp"
#include "ledger/book.hpp"
#include "ledger/database.hpp"
#include "ledger/uma_receipts.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;
using corridor::testing::store_fixture;

namespace {

constexpr const char* currencies_json = R"({"currencies": [
    {"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2}]})";
constexpr const char* rates_json = R"({"base": "USD", "rates": {"USD": "1"},
    "pricing": {"spread_bps": 0, "variable_fee_bps": 0, "fixed_fee": {}}})";

struct sink_fixture : store_fixture {
    currency_registry currencies = currency_registry::from_json(currencies_json);
    table_rate_source rates{rate_table::from_json(rates_json)};
    funding_directory funding = funding_directory::from_json("{}");
    tenant owner;
    std::string account_id;
    uma_incoming_sink sink;
    incoming_payment_router router;
    int serial = 0;

    sink_fixture() {
        owner = tenant{make_platform("receiver.example"), environment::sandbox};
        auto config = load_platform_config(session(), owner);
        new_customer request{std::string("alice"), "INDIVIDUAL", "APPROVED", {}, {"USD"}};
        auto created = create_customer(session(), customers(), owner, config->uma_domain, request);
        REQUIRE(created.ok());
        session() << "SELECT id FROM ledger_accounts WHERE owner_id = :c AND currency = 'USD'",
            soci::use(created.value().id), soci::into(account_id);
        router.add_sink("uma", sink);
    }
    payment_services services() {
        return payment_services{ids, random, clock, currencies, rates, funding, 60000};
    }
    // An approved incoming UMA payment of 1234 cents whose invoice asks 12,340,000 msat.
    std::pair<std::string, std::string> approved_invoice() {
        incoming_payment_request request;
        request.owner = owner;
        request.destination_account_id = account_id;
        request.amount = 1234;
        request.sender_uma_address = "$bob@sender.example";
        auto begun = begin_incoming_approval(session(), services(), request);
        REQUIRE(begun.ok());
        std::string hash = std::string(63, 'b') + std::to_string(++serial % 10);
        record_uma_invoice(session(), {hash, begun.value().id, owner, "lnbcrt1...", 12'340'000,
                                       "OPEN", clock.now_ms(), 0});
        REQUIRE(apply_approval_answer(session(), services(), owner, begun.value().id, 200, "", 5000)
                    .ok());
        return {begun.value().id, hash};
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
