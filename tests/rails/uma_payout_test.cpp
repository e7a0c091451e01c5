// Quotes to UMA addresses through the ledger and the payment engine: the quote stores the
// receiver's invoice, execution debits the source and holds the invoice's bitcoin, the Lightning
// payout through the rail completes the payment (and owes the receiver its post-transaction
// callback) or fails it and refunds the source exactly. Real database, real sandbox rail, a manual
// clock; the pay request itself (network work) is prepared outside and given as terms.
#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include "ledger/book/book.hpp"
#include "ledger/payments/operator_views.hpp"
#include "ledger/payments/payment_json.hpp"
#include "ledger/payments/uma_payments.hpp"
#include "ledger/payments/uma_post_transactions.hpp"
#include "ledger/payments/uma_pricing.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/event_payloads.hpp"
#include "rails/loader.hpp"
#include "rails/payment_engine.hpp"
#include "tests/rails/funded_account.hpp"
#include "tests/support/store_fixture.hpp"

namespace corridor {
namespace {

using testing::store_fixture;

constexpr const char* currencies_json = R"({"currencies": [
    {"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2},
    {"code": "EUR", "name": "Euro", "symbol": "E", "decimals": 2},
    {"code": "BTC", "name": "Bitcoin", "symbol": "B", "decimals": 8}]})";
// 1 USD = 0.00001 BTC = 1000 sats; 50 bps spread, 20 bps variable fee, 25 cents fixed.
constexpr const char* rates_json = R"({"base": "USD", "rates": {"USD": "1", "EUR": "0.9",
    "BTC": "0.00001"}, "pricing": {"spread_bps": 50, "variable_fee_bps": 20,
    "fixed_fee": {"USD": 25}}})";
constexpr std::int64_t start_balance = 100'000;
constexpr double eur_multiplier = 11'400;  // msats per euro cent, as the receiver prices it
constexpr std::int64_t receiver_fee_msats = 2'000;

struct no_external_accounts final : external_account_directory {
    std::optional<external_account_ref> find(soci::session&, const tenant&,
                                             const std::string&) override {
        return std::nullopt;
    }
};

struct uma_payout_fixture : store_fixture {
    uma_payout_fixture()
        : currencies(currency_registry::from_json(currencies_json)),
          rates(rate_table::from_json(rates_json)),
          funding(funding_directory::from_json("{}")) {
        rails.add(load_rail_file(std::string(CORRIDOR_PLUGIN_DIR) + "/sandbox.so", "sandbox", "",
                                 R"({"timeout_ms":30000})", nullptr));
        new_platform request{"Sender",
                             "sender.example",
                             true,
                             {{"USD", 1, 1'000'000'000, {"OUTGOING", "INCOMING"}, {}},
                              {"BTC", 1, 1'000'000'000, {"OUTGOING", "INCOMING"}, {}}}};
        owner =
            tenant{create_platform(session(), platforms(), request).value(), environment::sandbox};
        source = testing::funded_platform_account(*this, owner, "USD", start_balance);
        gateway = std::make_unique<rail_payout_gateway>(engine_services(), accounts);
    }

    rail_engine_services engine_services() {
        rail_engine_settings settings;
        settings.settlement_timeout_ms = 3600000;
        return {ids, random, clock, currencies, rails, settings};
    }
    payment_services payments() {
        return {ids, random, clock, currencies, rates, funding, 300000, gateway.get(), nullptr};
    }

    // What a pay request for `order` would have brought back: an invoice (the sandbox rail reads
    // only its text, whose ending picks the sandbox outcome) and the price of the sending side.
    uma_quote_terms terms(locked_side side, std::int64_t locked, std::int64_t invoice_msats,
                          std::int64_t receiving, const std::string& invoice = "lnbcrt1invoice") {
        uma_quote_terms out;
        auto& p = out.payment;
        p.lookup_id = "Lookup:0195f0c0-0000-7000-8000-000000000001";
        p.receiver_uma_address = "$bob@receiver.example";
        p.payee_identifier = "$bob@receiver.example";
        p.uma_version = "1.0";
        p.vasp_domain = "sender.example";
        p.invoice = invoice;
        p.payment_hash = std::string(64, 'a');
        p.amount_msats = invoice_msats;
        p.payout_sats = payout_sats_for(invoice_msats);
        p.invoice_expires_at_ms = clock.now_ms() + 120'000;
        p.receiver_multiplier = "11400";
        p.receiver_fee_msats = receiver_fee_msats;
        p.utxo_callback = "https://receiver.example/utxo/bob";
        out.sending_currency = "USD";
        out.receiving_currency = "EUR";
        auto priced = price_uma_payment(
            *currencies.find("USD"), *currencies.find("BTC"), *currencies.find("EUR"),
            *rates.terms(*currencies.find("USD"), *currencies.find("BTC")), side, locked,
            p.payout_sats, receiving);
        REQUIRE(priced.ok());
        out.priced = priced.value();
        return out;
    }

    // A sender-locked quote of `usd` cents: the bitcoin it buys is what the invoice asks.
    uma_quote_terms sender_locked(std::int64_t usd, const std::string& invoice = "lnbcrt1invoice") {
        auto budget =
            uma_sats_budget(*currencies.find("USD"), *currencies.find("BTC"),
                            *rates.terms(*currencies.find("USD"), *currencies.find("BTC")), usd);
        REQUIRE(budget.ok());
        std::int64_t msats = budget.value() * 1000;
        auto receiving = static_cast<std::int64_t>(
            std::llround(static_cast<double>(msats - receiver_fee_msats) / eur_multiplier));
        return terms(locked_side::sending, usd, msats, receiving, invoice);
    }

    quote_request request_for(const uma_quote_terms& terms, std::int64_t locked) {
        quote_request request;
        request.source_type = "ACCOUNT";
        request.source_account_id = source;
        request.side = locked_side::sending;
        request.locked_amount = locked;
        request.uma = &terms;
        request.description = "to bob";
        return request;
    }

    result<quote_record, payment_failure> quote(const uma_quote_terms& terms, bool execute) {
        auto config = load_platform_config(session(), owner);
        REQUIRE(config.has_value());
        write_transaction transaction(session());
        auto request = request_for(terms, terms.priced.total_sending);
        auto made = execute ? create_and_execute_quote(session(), payments(), *config, request)
                            : create_quote(session(), payments(), *config, request);
        if (made) transaction.commit();
        return made;
    }

    int drive(payment_engine& engine) {
        write_transaction transaction(session());
        int changed = engine.drive(session());
        transaction.commit();
        return changed;
    }

    std::int64_t balance(const std::string& id) { return *account_balance(session(), id); }
    std::int64_t service_balance(account_kind kind, const std::string& currency) {
        book_services book{ids, random, clock};
        return balance(ensure_account(session(), book, owner, kind, "", currency));
    }
    int count(const std::string& sql) {
        int n = 0;
        session() << sql, soci::into(n);
        return n;
    }

    currency_registry currencies;
    table_rate_source rates;
    funding_directory funding;
    rail_registry rails;
    no_external_accounts accounts;
    std::unique_ptr<rail_payout_gateway> gateway;
    tenant owner;
    std::string source;
};

}  // namespace

TEST_CASE("uma pricing: the locked amount buys the bitcoin the invoice asks, exactly",
          "[uma][pricing]") {
    auto currencies = currency_registry::from_json(currencies_json);
    table_rate_source rates(rate_table::from_json(rates_json));
    const currency& usd = *currencies.find("USD");
    const currency& btc = *currencies.find("BTC");
    const currency& eur = *currencies.find("EUR");
    auto terms = *rates.terms(usd, btc);
    CHECK(payout_sats_for(1000) == 1);
    CHECK(payout_sats_for(1001) == 2);
    CHECK(payout_sats_for(1) == 1);

    // 10000 cents: fees 25 + ceil(net * 0.002); a cent buys 1000 * 0.995 / 100 = 9.95 sats.
    auto budget = uma_sats_budget(usd, btc, terms, 10'000);
    REQUIRE(budget.ok());
    auto direct = price_transfer(usd, btc, terms, locked_side::sending, 10'000);
    CHECK(budget.value() == direct->total_receiving);
    // net 9955 (9955 + 25 + ceil(19.91) = 10000) buys floor(9955 * 9.95) sats.
    CHECK(budget.value() == 99'052);
    auto priced = price_uma_payment(usd, btc, eur, terms, locked_side::sending, 10'000,
                                    budget.value(), 8'710);
    REQUIRE(priced.ok());
    CHECK(priced->total_sending == 10'000);
    CHECK(priced->total_receiving == 8'710);
    CHECK(priced->net_sending + priced->fees_included == 10'000);
    CHECK(priced->variable_fee_amount == priced->fees_included - 25);
    CHECK(priced->exchange_rate == rational(priced->net_sending, 8'710));

    // Receiver-locked: whatever the invoice costs, fees on top.
    auto receiving =
        price_uma_payment(usd, btc, eur, terms, locked_side::receiving, 2'500, 28'503, 2'500);
    REQUIRE(receiving.ok());
    auto leg = price_transfer(usd, btc, terms, locked_side::receiving, 28'503);
    CHECK(receiving->total_sending == leg->total_sending);
    CHECK(receiving->fees_included == leg->fees_included);
    CHECK(receiving->total_receiving == 2'500);

    // A v0 receiver's fee can make the sats dearer than the lock: the total is then what they cost.
    auto dearer = price_uma_payment(usd, btc, eur, terms, locked_side::sending, 10'000,
                                    budget.value() + 50, 8'710);
    REQUIRE(dearer.ok());
    CHECK(dearer->total_sending > 10'000);
    CHECK_FALSE(uma_sats_budget(usd, btc, terms, 25).ok());
}

TEST_CASE("an UMA quote stores the invoice, lives no longer than it, and renders the receiver",
          "[store][rails][uma]") {
    uma_payout_fixture f;
    auto terms = f.sender_locked(10'000);
    terms.payment.invoice_expires_at_ms = f.clock.now_ms() + 60'000;  // sooner than the quote TTL
    auto made = f.quote(terms, false);
    REQUIRE(made.ok());
    const auto& quote = made.value();
    CHECK(quote.status == "PENDING");
    CHECK(quote.destination_type == "UMA_ADDRESS");
    CHECK(quote.destination_account_id == "$bob@receiver.example");
    CHECK(quote.receiving_currency == "EUR");
    CHECK(quote.priced.total_sending == 10'000);
    CHECK(quote.expires_at_ms == f.clock.now_ms() + 60'000);
    auto stored = find_uma_payment(f.session(), f.owner, quote.id);
    REQUIRE(stored.has_value());
    CHECK(stored->invoice == "lnbcrt1invoice");
    CHECK(stored->payout_sats == terms.payment.payout_sats);
    CHECK_FALSE(find_uma_payment(f.session(), tenant{f.owner.platform_id, environment::production},
                                 quote.id));

    auto rendered = render_quote(*find_quote(f.session(), f.owner, quote.id), f.currencies);
    CHECK(
        boost::json::serialize(rendered["destination"]) ==
        R"({"destinationType":"UMA_ADDRESS","umaAddress":"$bob@receiver.example","currency":"EUR"})");
    auto outgoing = find_transaction(f.session(), f.owner, quote.transaction_id);
    REQUIRE(outgoing.has_value());
    CHECK(outgoing->destination_type == "UMA_ADDRESS");
    CHECK(outgoing->received_amount == terms.priced.total_receiving);
    auto shown = render_transaction(*outgoing, f.currencies);
    CHECK(shown["destination"].as_object()["umaAddress"] == "$bob@receiver.example");
    CHECK_FALSE(shown["destination"].as_object().contains("accountId"));

    quote_filter by_receiver;
    by_receiver.receiving_uma_address = "$bob@receiver.example";
    CHECK(list_quotes(f.session(), f.owner, by_receiver, {20, std::nullopt, true}).items.size() ==
          1);
    by_receiver.receiving_uma_address = "$carol@receiver.example";
    CHECK(list_quotes(f.session(), f.owner, by_receiver, {20, std::nullopt, true}).items.empty());
    CHECK(f.balance(f.source) == start_balance);  // a quote moves nothing
}

TEST_CASE("executing an UMA quote pays the invoice through the rail and owes the callback",
          "[store][rails][uma]") {
    uma_payout_fixture f;
    payment_engine engine(f.engine_services());
    auto terms = f.sender_locked(10'000);
    auto made = f.quote(terms, true);
    REQUIRE(made.ok());
    CHECK(made->status == "PROCESSING");
    CHECK(f.balance(f.source) == start_balance - 10'000);
    // The invoice's bitcoin is held for the rail; the fees are the service's.
    CHECK(f.service_balance(account_kind::settlement, "BTC") == terms.payment.payout_sats);
    CHECK(f.service_balance(account_kind::fees, "USD") == terms.priced.fees_included);
    auto op = find_rail_operation_by_transaction(f.session(), f.owner, made->transaction_id);
    REQUIRE(op.has_value());
    CHECK(op->account_type == "LIGHTNING");
    CHECK(op->currency == "BTC");
    CHECK(op->amount == terms.payment.payout_sats);
    CHECK(op->internal_account_id == f.source);
    CHECK(boost::json::parse(op->account_json).as_object()["invoice"] == "lnbcrt1invoice");
    CHECK_FALSE(find_uma_post_transaction(f.session(), f.owner, made->transaction_id));

    CHECK(f.drive(engine) >= 1);
    auto outgoing = find_transaction(f.session(), f.owner, made->transaction_id);
    CHECK(outgoing->status == "COMPLETED");
    CHECK(find_quote(f.session(), f.owner, made->id)->status == "COMPLETED");
    CHECK(f.balance(f.source) == start_balance - 10'000);
    CHECK(audit_book(f.session()).empty());
    auto callback = find_uma_post_transaction(f.session(), f.owner, made->transaction_id);
    REQUIRE(callback.has_value());
    CHECK(callback->state == "PENDING");
    CHECK(callback->url == "https://receiver.example/utxo/bob");
    CHECK(callback->vasp_domain == "sender.example");
    CHECK(callback->amount_msats == terms.payment.amount_msats);
    // Created PENDING, then COMPLETED.
    CHECK(f.count("SELECT COUNT(*) FROM outbox_events WHERE type = 'OUTGOING_PAYMENT'") == 2);
}

TEST_CASE("an UMA quote executed after it was made stamps its transaction with the payout",
          "[store][rails][uma]") {
    uma_payout_fixture f;
    auto terms = f.sender_locked(10'000);
    auto made = f.quote(terms, false);
    REQUIRE(made.ok());
    // Later than the operator's view's leeway (a minute), within the invoice's life (two).
    f.clock.advance_ms(100'000);
    {
        write_transaction transaction(f.session());
        auto executed = execute_quote(f.session(), f.payments(), f.owner, made->id);
        REQUIRE(executed.ok());
        CHECK(executed->status == "PROCESSING");
        CHECK(executed->updated_at_ms == f.clock.now_ms());
        transaction.commit();
    }
    auto outgoing = find_transaction(f.session(), f.owner, made->transaction_id);
    CHECK(outgoing->status == "PENDING");
    CHECK(outgoing->created_at_ms == made->created_at_ms);
    CHECK(outgoing->updated_at_ms == f.clock.now_ms());
    // Its money moved at the execution: the operator's view finds all of it.
    auto view = find_payment_view(f.session(), made->transaction_id);
    REQUIRE(view.has_value());
    std::vector<std::string> codes;
    for (const auto& posting : view->postings) codes.push_back(field_text(posting, "code"));
    CHECK(codes == std::vector<std::string>{"send", "fee", "payout"});
}

TEST_CASE("a failed Lightning payout refunds the whole quote and owes no callback",
          "[store][rails][uma]") {
    uma_payout_fixture f;
    payment_engine engine(f.engine_services());
    // The sandbox rail refuses destinations ending 004 (RISK_SCREENING_FAILED for Lightning).
    auto terms = f.sender_locked(10'000, "lnbcrt1rejected004");
    auto made = f.quote(terms, true);
    REQUIRE(made.ok());
    CHECK(f.balance(f.source) == start_balance - 10'000);
    f.drive(engine);
    auto outgoing = find_transaction(f.session(), f.owner, made->transaction_id);
    CHECK(outgoing->status == "FAILED");
    CHECK(outgoing->failure_reason == "LIGHTNING_PAYMENT_FAILED");
    CHECK_FALSE(outgoing->refund.empty());
    CHECK(find_quote(f.session(), f.owner, made->id)->status == "FAILED");
    CHECK(f.balance(f.source) == start_balance);
    CHECK(f.service_balance(account_kind::settlement, "BTC") == 0);
    CHECK(f.service_balance(account_kind::fees, "USD") == 0);
    CHECK(audit_book(f.session()).empty());
    CHECK_FALSE(find_uma_post_transaction(f.session(), f.owner, made->transaction_id));
    auto op = find_rail_operation_by_transaction(f.session(), f.owner, made->transaction_id);
    CHECK(op->rail_reason_code == "RISK_SCREENING_FAILED");
    // PENDING, then FAILED; the source moved twice (debit, refund).
    CHECK(f.count("SELECT COUNT(*) FROM outbox_events WHERE type = 'OUTGOING_PAYMENT'") == 2);
    int source_events = 0;
    soci::rowset<std::string> payloads =
        (f.session().prepare << "SELECT payload FROM outbox_events WHERE type = 'ACCOUNT_STATUS'");
    for (const auto& stored : payloads)
        source_events += unpack_event_payload(stored).find(f.source) != std::string::npos;
    CHECK(source_events == 2);
}

TEST_CASE("an UMA quote is refused when the source cannot pay or the rail refuses the invoice",
          "[store][rails][uma]") {
    uma_payout_fixture f;
    SECTION("insufficient balance: nothing is kept") {
        auto terms = f.sender_locked(200'000);
        auto made = f.quote(terms, true);
        REQUIRE_FALSE(made.ok());
        CHECK(made.error().code == payment_error::insufficient_balance);
    }
    SECTION("an invoice the rail cannot read") {
        auto terms = f.sender_locked(1'000, "");
        auto made = f.quote(terms, false);
        REQUIRE_FALSE(made.ok());
        CHECK(made.error().code == payment_error::invoice_not_payable);
        CHECK(made.error().field == "destination.umaAddress");
    }
    SECTION("another source currency than the terms were priced in") {
        auto terms = f.sender_locked(1'000);
        terms.sending_currency = "EUR";
        auto made = f.quote(terms, false);
        REQUIRE_FALSE(made.ok());
        CHECK(made.error().code == payment_error::quote_not_executable);
    }
    CHECK(f.count("SELECT COUNT(*) FROM quotes") == 0);
    CHECK(f.count("SELECT COUNT(*) FROM uma_payments") == 0);
    CHECK(f.balance(f.source) == start_balance);
}

TEST_CASE("post-transaction callbacks are claimed under a lease, once at a time", "[store][uma]") {
    store_fixture f;
    tenant owner{f.make_platform("sender.example"), environment::sandbox};
    uma_post_transaction callback;
    callback.transaction_id = "Transaction:1";
    callback.owner = owner;
    callback.quote_id = "Quote:1";
    callback.url = "https://receiver.example/utxo";
    callback.vasp_domain = "sender.example";
    callback.amount_msats = 5000;
    callback.next_attempt_at_ms = callback.created_at_ms = f.clock.now_ms();
    enqueue_uma_post_transaction(f.session(), callback);

    auto claimed = claim_due_uma_post_transactions(f.session(), f.clock.now_ms(), 1000, 10);
    REQUIRE(claimed.size() == 1);
    CHECK(claimed[0].url == "https://receiver.example/utxo");
    // Leased: nobody else takes it until the lease runs out (a worker that died mid-attempt).
    CHECK(claim_due_uma_post_transactions(f.session(), f.clock.now_ms() + 999, 1000, 10).empty());
    CHECK(claim_due_uma_post_transactions(f.session(), f.clock.now_ms() + 1000, 1000, 10).size() ==
          1);
    auto delivered = claimed[0];
    delivered.state = "DELIVERED";
    delivered.attempts = 1;
    update_uma_post_transaction(f.session(), delivered);
    CHECK(claim_due_uma_post_transactions(f.session(), f.clock.now_ms() + 10'000'000, 1000, 10)
              .empty());
    CHECK(find_uma_post_transaction(f.session(), owner, "Transaction:1")->state == "DELIVERED");
    CHECK_FALSE(find_uma_post_transaction(
        f.session(), tenant{owner.platform_id, environment::production}, "Transaction:1"));
}

}  // namespace corridor
