// Two Corridor instances' spark rails on one sandbox Lightning network (a shared folder), each with
// its own node key, driven through the real payment engine and the server's arrival routing on one
// database: a payout of B's funding invoice from A's account credits B's account once, paying the
// invoice again fails, and a restarted B reports the payment again without crediting it twice.
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <filesystem>

#include "ledger/book/book.hpp"
#include "ledger/payments/incoming_payments.hpp"
#include "ledger/store/database.hpp"
#include "rails/loader.hpp"
#include "server/workers/rails_runtime.hpp"
#include "tests/support/store_fixture.hpp"

namespace corridor {
namespace {

constexpr const char* currencies_json = R"({"currencies": [
    {"code": "BTC", "name": "Bitcoin", "symbol": "B", "decimals": 8}]})";
constexpr const char* rates_json = R"({"base": "BTC", "rates": {"BTC": "1"},
    "pricing": {"spread_bps": 0, "variable_fee_bps": 0, "fixed_fee": {}}})";
const std::string key_a = "e126f68f7eafcc8b74f54d269fe206be715000f94dac067d1c04a8ca3b2db734";
const std::string key_b = "1111111111111111111111111111111111111111111111111111111111111111";

struct temporary_dir {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("corridor-ln-" + std::to_string(::getpid()));
    temporary_dir() {
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~temporary_dir() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
};

// One Corridor instance: its spark rail, its engine, its arrival routing (all on one database).
struct instance {
    rail_registry rails;
    incoming_payment_router router;
    std::unique_ptr<routed_arrivals> arrivals;
    std::unique_ptr<payment_engine> engine;

    instance(testing::store_fixture& f, const currency_registry& currencies,
             const std::function<payment_services()>& payments, const std::string& key,
             const std::filesystem::path& network) {
        // Each node its own state folder (data_dir), as each Corridor instance has.
        std::string settings = R"({"network":"regtest","node_private_key_hex":")" + key +
                               R"(","sandbox_network_dir":")" + network.string() +
                               R"(","data_dir":")" +
                               (network / ("node-" + key.substr(0, 8))).string() + "\"}";
        rails.add(load_rail_file(std::string(CORRIDOR_PLUGIN_DIR) + "/spark.so", "spark", "",
                                 settings, nullptr));
        arrivals = std::make_unique<routed_arrivals>(incoming_routing{&router, payments});
        rail_engine_services services{f.ids, f.random, f.clock, currencies, rails, {}};
        services.incoming = arrivals.get();
        engine = std::make_unique<payment_engine>(services);
    }
    rail_engine_services services(testing::store_fixture& f, const currency_registry& currencies) {
        rail_engine_services out{f.ids, f.random, f.clock, currencies, rails, {}};
        out.incoming = arrivals.get();
        return out;
    }
    // One pass on the writer, committed.
    int drive(soci::session& session) {
        write_transaction transaction(session);
        int changed = engine->drive(session);
        transaction.commit();
        arrivals->pass_finished(true);
        return changed;
    }
    std::string invoice_for(const std::string& account_id, const std::string& reference,
                            std::int64_t now_ms) {
        auto answer = rails.by_name("spark")->funding_instructions(
            {"sandbox", account_id, "BTC", reference, 0, now_ms});
        REQUIRE(answer.ok());
        auto info = boost::json::parse(answer.result).at(0).at("accountOrWalletInfo");
        return std::string(info.at("invoice").as_string());
    }
};

struct network_fixture : testing::store_fixture {
    currency_registry currencies = currency_registry::from_json(currencies_json);
    table_rate_source rates{rate_table::from_json(rates_json)};
    funding_directory funding = funding_directory::from_json("{}");
    temporary_dir network;
    tenant owner_a, owner_b;
    std::string account_a, account_b, reference_b;

    network_fixture() {
        owner_a = {make_btc_platform("a.example"), environment::sandbox};
        owner_b = {make_btc_platform("b.example"), environment::sandbox};
        account_a = platform_btc_account(owner_a);
        account_b = platform_btc_account(owner_b);
        reference_b = find_account(session(), owner_b, account_b)->reference;
        book_services book{ids, random, clock};
        std::string settlement =
            ensure_account(session(), book, owner_a, account_kind::settlement, "", "BTC");
        REQUIRE(post_transfer(session(), book, owner_a,
                              {settlement, account_a, 100000, "BTC", "fund", ""})
                    .ok());
    }
    std::string make_btc_platform(const std::string& domain) {
        new_platform request{
            domain, domain, false, {{"BTC", 1, 1'000'000'000, {"OUTGOING", "INCOMING"}, {}}}};
        auto made = create_platform(session(), platforms(), request);
        REQUIRE(made.ok());
        return made.value();
    }
    std::string platform_btc_account(const tenant& owner) {
        account_filter platform_only;
        platform_only.platform_only = true;
        auto page =
            list_internal_accounts(session(), owner, platform_only, {10, std::nullopt, false});
        REQUIRE(page.items.size() == 1);
        return page.items[0].id;
    }
    std::function<payment_services()> payments() {
        return [this] {
            return payment_services{ids, random, clock, currencies, rates, funding, 60000};
        };
    }
    std::int64_t balance(const std::string& account) {
        return *account_balance(session(), account);
    }
    // A transfer-out of A's BTC to a LIGHTNING external account holding `invoice`.
    std::string pay(instance& a, const std::string& invoice, std::int64_t amount) {
        write_transaction transaction(session());
        external_account_ref destination{"ExternalAccount:ln", "", "BTC", "LIGHTNING",
                                         boost::json::serialize(boost::json::object{
                                             {"accountType", "LIGHTNING"}, {"invoice", invoice}})};
        auto begun = begin_transfer_out(session(), a.services(*this, currencies),
                                        {owner_a, account_a, destination, amount, "pay B"});
        REQUIRE(begun.ok());
        transaction.commit();
        return begun->id;
    }
    std::string status_of(const std::string& transaction_id) {
        return find_transaction(session(), owner_a, transaction_id)->status;
    }
    int count(const std::string& sql) {
        int n = -1;
        session() << sql, soci::into(n);
        return n;
    }
};

}  // namespace

TEST_CASE_METHOD(network_fixture,
                 "a payout of another instance's funding invoice credits its account once",
                 "[server][rails][lightning]") {
    instance a(*this, currencies, payments(), key_a, network.path);
    instance b(*this, currencies, payments(), key_b, network.path);
    std::string invoice = b.invoice_for(account_b, reference_b, clock.now_ms());

    std::string paid = pay(a, invoice, 2500);
    a.drive(session());
    CHECK(status_of(paid) == "COMPLETED");
    CHECK(balance(account_a) == 100000 - 2500);
    CHECK(std::filesystem::directory_iterator(network.path / "payments") !=
          std::filesystem::directory_iterator());

    // A scans the network too, but the invoice is not its node's: nothing arrives at A.
    clock.advance_ms(1000);
    a.drive(session());
    CHECK(count("SELECT COUNT(*) FROM rail_incoming_payments") == 0);

    b.drive(session());
    CHECK(balance(account_b) == 2500);
    auto records = list_incoming_payments(session(), "CREDITED", 10);
    REQUIRE(records.size() == 1);
    CHECK(records[0].rail == "spark");
    CHECK(records[0].reference == reference_b);
    CHECK(records[0].routed_to == account_b);
    CHECK(records[0].amount_milli_minor == 2'500'000);
    CHECK(find_transaction(session(), owner_b, records[0].transaction_id)->status == "COMPLETED");
    // B's ticks find nothing new.
    clock.advance_ms(1000);
    b.drive(session());
    CHECK(balance(account_b) == 2500);

    // Paying the same invoice again fails on the rail and A gets its money back.
    std::string again = pay(a, invoice, 2500);
    a.drive(session());
    CHECK(status_of(again) == "FAILED");
    CHECK(find_transaction(session(), owner_a, again)->failure_reason ==
          "LIGHTNING_PAYMENT_FAILED");
    std::string reason;
    session() << "SELECT rail_reason_code FROM rail_operations WHERE transaction_id = :t",
        soci::use(again), soci::into(reason);
    CHECK(reason == "INVOICE_ALREADY_PAID");
    CHECK(balance(account_a) == 100000 - 2500);

    // B restarts: its new rail reports the payment again; the host records it once.
    instance restarted(*this, currencies, payments(), key_b, network.path);
    clock.advance_ms(1000);
    restarted.drive(session());
    CHECK(balance(account_b) == 2500);
    CHECK(count("SELECT COUNT(*) FROM rail_incoming_payments") == 1);
    CHECK(count("SELECT COUNT(*) FROM transactions WHERE tenant_key IN (SELECT tenant_key FROM "
                "platform_configs WHERE platform_id = '" +
                owner_b.platform_id + "')") == 1);
    CHECK(audit_book(session()).empty());
}

TEST_CASE_METHOD(network_fixture, "an arrival whose pass rolled back is routed by the next pass",
                 "[server][rails][lightning]") {
    incoming_payment_router router;
    routed_arrivals arrivals(incoming_routing{&router, payments()});
    rail_incoming arrival;
    arrival.environment = "sandbox";
    arrival.rail_reference = arrival.match_key = "ab12";
    arrival.reference = reference_b;
    arrival.currency = "BTC";
    arrival.amount_minor = 700;
    {
        write_transaction lost(session());
        CHECK(arrivals.receive(session(), "spark", {arrival}) == 1);
    }  // rolled back
    arrivals.pass_finished(false);
    CHECK(arrivals.waiting() == 1);
    CHECK(balance(account_b) == 0);
    {
        write_transaction next(session());
        arrivals.retry(session());
        next.commit();
    }
    arrivals.pass_finished(true);
    CHECK(arrivals.waiting() == 0);
    CHECK(balance(account_b) == 700);
    CHECK(find_incoming_payment(session(), "spark", "ab12")->status == "CREDITED");

    // An arrival whose routing itself fails (here a sink that throws) does not stop the pass; it
    // is tried again by the next passes, then given up, and nothing of it is written.
    rail_incoming broken = arrival;
    broken.rail_reference = "cd34";
    broken.reference.clear();
    broken.currency = "XYZ";
    struct throwing_sink final : incoming_payment_sink {
        incoming_claim claim(soci::session&, const payment_services&,
                             const incoming_payment&) override {
            throw std::runtime_error("sink is broken");
        }
    } sink;
    router.add_sink("broken", sink);
    for (int pass = 0; pass < routed_arrivals::routing_attempts_max; ++pass) {
        write_transaction transaction(session());
        if (pass == 0)
            arrivals.receive(session(), "spark", {broken});
        else
            arrivals.retry(session());
        transaction.commit();
        arrivals.pass_finished(true);
    }
    CHECK(arrivals.waiting() == 0);
    CHECK_FALSE(find_incoming_payment(session(), "spark", "cd34").has_value());
}

}  // namespace corridor
