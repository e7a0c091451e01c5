// Money arriving through a rail (ABI 1.2 report_incoming): recorded once per (rail, rail
// reference), credited to the internal account or quote whose funding reference it carries, or to
// a registered sink by match key, and otherwise kept UNMATCHED and credited to nobody.
#include "ledger/payments/incoming_payments.hpp"

#include <catch2/catch.hpp>
#include <thread>

#include "ledger/book/book.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/store/database.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;
using corridor::testing::store_fixture;

namespace {

constexpr const char* currencies_json = R"({"currencies": [
    {"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2},
    {"code": "EUR", "name": "Euro", "symbol": "E", "decimals": 2},
    {"code": "BTC", "name": "Bitcoin", "symbol": "B", "decimals": 8}]})";
constexpr const char* rates_json = R"({"base": "USD", "rates": {"USD": "1", "EUR": "1",
    "BTC": "0.00001"}, "pricing": {"spread_bps": 0, "variable_fee_bps": 0, "fixed_fee": {}}})";

// Recognises the match keys it was given: "take" ones are taken, "refuse" ones refused.
class fake_sink final : public incoming_payment_sink {
public:
    std::string take, refuse;
    std::optional<tenant> owner;
    std::vector<std::string> asked;
    incoming_claim claim(soci::session&, const payment_services&,
                         const incoming_payment& arrival) override {
        asked.push_back(arrival.match_key);
        incoming_claim out;
        if (arrival.match_key == take) {
            out.decision = incoming_claim::verdict::taken;
            out.owner = owner;
            out.transaction_id = "Transaction:sink";
            out.outcome = "the sink settled it";
        } else if (arrival.match_key == refuse) {
            out.decision = incoming_claim::verdict::refused;
            out.owner = owner;
            out.outcome = "already paid";
        }
        return out;
    }
};

struct incoming_fixture : store_fixture {
    currency_registry currencies = currency_registry::from_json(currencies_json);
    table_rate_source rates{rate_table::from_json(rates_json)};
    funding_directory funding = funding_directory::from_json(
        R"({"BTC": {"accountType": "SPARK_WALLET", "address": "sparkrt1..."}})");
    tenant owner;
    platform_config config;
    std::string customer_id;
    incoming_payment_router router;

    incoming_fixture() {
        new_platform request{"Receiving",
                             "receiving.example",
                             false,
                             {{"USD", 1, 1'000'000'000, {"OUTGOING", "INCOMING"}, {}},
                              {"EUR", 1, 1'000'000'000, {"OUTGOING", "INCOMING"}, {}},
                              {"BTC", 1, 1'000'000'000, {"OUTGOING", "INCOMING"}, {}}}};
        auto platform = create_platform(session(), platforms(), request);
        REQUIRE(platform.ok());
        owner = tenant{platform.value(), environment::sandbox};
        config = *load_platform_config(session(), owner);
        new_customer customer{std::nullopt, "INDIVIDUAL", "APPROVED", {}, {"USD", "EUR", "BTC"}};
        auto created = create_customer(session(), customers(), owner, config.uma_domain, customer);
        REQUIRE(created.ok());
        customer_id = created.value().id;
    }
    payment_services services() {
        return payment_services{ids, random, clock, currencies, rates, funding, 60000};
    }
    ledger_account account(const std::string& currency, const tenant& of) {
        std::string id;
        session() << "SELECT id FROM ledger_accounts WHERE owner_id = :c AND currency = :k AND "
                     "environment = :e",
            soci::use(customer_id), soci::use(currency), soci::use(std::string(of.env_name())),
            soci::into(id);
        auto found = find_account(session(), of, id);
        REQUIRE(found.has_value());
        return *found;
    }
    ledger_account account(const std::string& currency) { return account(currency, owner); }
    int count(const std::string& sql) {
        int n = -1;
        session() << sql, soci::into(n);
        return n;
    }
    std::optional<incoming_payment> receive(incoming_payment arrival) {
        write_transaction transaction(session());
        auto stored = router.receive(session(), services(), std::move(arrival));
        transaction.commit();
        return stored;
    }
};

incoming_payment arrival(std::string rail_reference, std::string reference, std::string currency,
                         std::int64_t amount, std::string match_key = "") {
    incoming_payment out;
    out.rail = "spark";
    out.rail_reference = std::move(rail_reference);
    out.env = environment::sandbox;
    out.match_key = std::move(match_key);
    out.reference = std::move(reference);
    out.currency = std::move(currency);
    out.amount_minor = amount;
    out.received_at_ms = 77;
    out.rail_message = "test";
    return out;
}

}  // namespace

TEST_CASE_METHOD(incoming_fixture,
                 "an arrival carrying an account's reference credits it once, with its events",
                 "[store][incoming]") {
    ledger_account btc = account("BTC");
    auto stored = receive(arrival("hash-1", btc.reference, "BTC", 1234, "hash-1"));
    REQUIRE(stored.has_value());
    CHECK(stored->status == "CREDITED");
    CHECK(stored->platform_id == owner.platform_id);
    CHECK(stored->routed_to == btc.id);
    CHECK(account("BTC").balance() == 1234);
    auto t = find_transaction(session(), owner, stored->transaction_id);
    REQUIRE(t.has_value());
    CHECK(t->type == "INCOMING");
    CHECK(t->status == "COMPLETED");
    CHECK(t->destination_account_id == btc.id);
    CHECK(t->received_amount == 1234);
    CHECK(t->reference == btc.reference);
    CHECK(t->customer_id == customer_id);
    const std::string events =
        "SELECT COUNT(*) FROM outbox_events o JOIN platform_configs c ON c.tenant_key = "
        "o.tenant_key WHERE c.platform_id = '" +
        owner.platform_id + "' AND c.environment = 'sandbox' AND o.type = ";
    CHECK(count(events + "'INCOMING_PAYMENT'") == 1);
    CHECK(count(events + "'ACCOUNT_STATUS'") == 1);

    // Reported again (a restart, another process): nothing changes.
    CHECK_FALSE(receive(arrival("hash-1", btc.reference, "BTC", 1234, "hash-1")).has_value());
    CHECK(account("BTC").balance() == 1234);
    CHECK(count(events + "'INCOMING_PAYMENT'") == 1);
    CHECK(count("SELECT COUNT(*) FROM rail_incoming_payments") == 1);
    // The same reference from another rail is another arrival.
    auto other = arrival("hash-1", btc.reference, "BTC", 6);
    other.rail = "other";
    CHECK(receive(other)->status == "CREDITED");
    CHECK(account("BTC").balance() == 1240);

    auto found = find_incoming_payment(session(), "spark", "hash-1");
    REQUIRE(found.has_value());
    CHECK(found->status == "CREDITED");
    CHECK(found->amount_minor == 1234);
    CHECK(found->received_at_ms == 77);
    CHECK(found->transaction_id == stored->transaction_id);
    CHECK(audit_book(session()).empty());
}

TEST_CASE_METHOD(incoming_fixture, "an arrival that matches nothing is kept and credited to nobody",
                 "[store][incoming]") {
    ledger_account usd = account("USD");
    auto unknown = receive(arrival("r-1", "NO-SUCH-REFERENCE", "USD", 500, "some-hash"));
    REQUIRE(unknown.has_value());
    CHECK(unknown->status == "UNMATCHED");
    CHECK(unknown->platform_id.empty());
    CHECK(unknown->transaction_id.empty());
    // The right reference in the other environment matches nothing either.
    tenant production{owner.platform_id, environment::production};
    new_customer someone{std::nullopt, "INDIVIDUAL", "APPROVED", {}, {"USD"}};
    auto created = create_customer(session(), customers(), production, config.uma_domain, someone);
    REQUIRE(created.ok());
    customer_id = created.value().id;
    ledger_account production_usd = account("USD", production);
    auto elsewhere = receive(arrival("r-2", production_usd.reference, "USD", 500));
    CHECK(elsewhere->status == "UNMATCHED");
    // Recognised, but in another currency than the account's: refused, kept, not credited.
    auto wrong_currency = receive(arrival("r-3", usd.reference, "EUR", 500));
    CHECK(wrong_currency->status == "REFUSED");
    CHECK(wrong_currency->routed_to == usd.id);
    CHECK_THAT(wrong_currency->outcome, Catch::Contains("holds USD"));

    CHECK(usd.balance() == 0);
    CHECK(*account_balance(session(), usd.id) == 0);
    CHECK(*account_balance(session(), production_usd.id) == 0);
    CHECK(count("SELECT COUNT(*) FROM transactions") == 0);
    CHECK(count("SELECT COUNT(*) FROM ledger_transfers") == 0);
    auto unmatched = list_incoming_payments(session(), "UNMATCHED", 10);
    REQUIRE(unmatched.size() == 2);
    CHECK(unmatched[0].rail_reference == "r-1");
    CHECK(unmatched[1].rail_reference == "r-2");
    CHECK(list_incoming_payments(session(), "REFUSED", 10).size() == 1);
}

TEST_CASE_METHOD(incoming_fixture, "sinks take arrivals by match key, in registration order",
                 "[store][incoming]") {
    fake_sink first, second;
    first.take = "never";
    second.take = "invoice-a";
    second.refuse = "invoice-b";
    second.owner = owner;
    router.add_sink("first", first);
    router.add_sink("uma", second);

    auto taken = receive(arrival("invoice-a", "", "BTC", 10, "invoice-a"));
    CHECK(taken->status == "CREDITED");
    CHECK(taken->routed_to == "sink:uma");
    CHECK(taken->platform_id == owner.platform_id);
    CHECK(taken->transaction_id == "Transaction:sink");
    CHECK(taken->outcome == "the sink settled it");
    auto refused = receive(arrival("invoice-b", "", "BTC", 10, "invoice-b"));
    CHECK(refused->status == "REFUSED");
    CHECK(refused->outcome == "already paid");
    auto nobody = receive(arrival("invoice-c", "", "BTC", 10, "invoice-c"));
    CHECK(nobody->status == "UNMATCHED");
    CHECK(first.asked == std::vector<std::string>{"invoice-a", "invoice-b", "invoice-c"});
    // A reference that matches an account goes there; the sinks are not asked.
    auto by_reference =
        receive(arrival("invoice-d", account("BTC").reference, "BTC", 10, "invoice-a"));
    CHECK(by_reference->status == "CREDITED");
    CHECK(by_reference->routed_to == account("BTC").id);
    CHECK(second.asked.size() == 3);
    // A repeat reaches no sink.
    CHECK_FALSE(receive(arrival("invoice-a", "", "BTC", 10, "invoice-a")).has_value());
    CHECK(second.asked.size() == 3);
}

TEST_CASE_METHOD(incoming_fixture, "an arrival carrying a quote's reference funds the quote",
                 "[store][incoming]") {
    quote_request request;
    request.source_type = "REALTIME_FUNDING";
    request.source_currency = "BTC";
    request.destination_account_id = account("USD").id;
    request.side = locked_side::receiving;
    request.locked_amount = 1000;
    auto quote = create_quote(session(), services(), config, request);
    REQUIRE(quote.ok());
    std::int64_t due = quote->priced.total_sending;
    auto funded = receive(arrival("q-1", quote->funding_reference, "BTC", due));
    CHECK(funded->status == "CREDITED");
    CHECK(funded->routed_to == quote->id);
    CHECK(funded->transaction_id == quote->transaction_id);
    CHECK(find_quote(session(), owner, quote->id)->status == "COMPLETED");
    CHECK(account("USD").balance() == 1000);

    auto short_paid = create_quote(session(), services(), config, request);
    REQUIRE(short_paid.ok());
    auto refused = receive(arrival("q-2", short_paid->funding_reference, "BTC", due - 1));
    CHECK(refused->status == "REFUSED");
    CHECK_THAT(refused->outcome, Catch::Contains("FUNDING_AMOUNT_MISMATCH"));
    CHECK(find_quote(session(), owner, short_paid->id)->status == "FAILED");
    CHECK(account("USD").balance() == 1000);
    // The completed quote takes no second funding: refused with the reason.
    auto again = receive(arrival("q-3", quote->funding_reference, "BTC", due));
    CHECK(again->status == "REFUSED");
    CHECK_THAT(again->outcome, Catch::Contains("COMPLETED"));
    CHECK(account("USD").balance() == 1000);
}

TEST_CASE_METHOD(incoming_fixture,
                 "two processes recording the same arrival at once credit it once",
                 "[store][incoming]") {
    ledger_account btc = account("BTC");
    auto other = database.open_another();
    std::optional<incoming_payment> first, second;
    {
        write_transaction transaction(session());
        first = router.receive(session(), services(), arrival("race", btc.reference, "BTC", 50));
        // The other process reports it too while this transaction is open: it waits on the key
        // (PostgreSQL) or the write lock (SQLite) and then finds it recorded.
        std::thread racer([&] {
            write_transaction theirs(*other);
            second = router.receive(*other, services(), arrival("race", btc.reference, "BTC", 50));
            theirs.commit();
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        transaction.commit();
        racer.join();
    }
    REQUIRE(first.has_value());
    CHECK(first->status == "CREDITED");
    CHECK_FALSE(second.has_value());
    CHECK(account("BTC").balance() == 50);
}
