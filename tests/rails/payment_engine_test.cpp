// The payment engine: transfers through rails, their failures and refunds, deadlines and restarts,
// driven by a manual clock against a real database and real plugins.
#include "rails/payment_engine.hpp"

#include <catch2/catch.hpp>

#include "ledger/book/book.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/event_payloads.hpp"
#include "rails/loader.hpp"
#include "tests/rails/funded_account.hpp"
#include "tests/support/store_fixture.hpp"

namespace corridor {
namespace {

using testing::store_fixture;

constexpr const char* currencies_json = R"({"currencies": [
    {"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2}]})";

struct engine_fixture : store_fixture {
    // The sandbox simulator alone by default, so the interface's rule governs the sandbox (sandbox
    // parity); with_test_rails adds the test rails, which also serve production and so hold the
    // simulator to what they accept there.
    explicit engine_fixture(bool with_test_rails = false)
        : currencies(currency_registry::from_json(currencies_json)) {
        rails.add(load_rail_file(std::string(CORRIDOR_PLUGIN_DIR) + "/sandbox.so", "sandbox", "",
                                 R"({"timeout_ms":30000})", nullptr));
        if (with_test_rails) {
            rails.add(load_rail_file(std::string(CORRIDOR_TEST_PLUGIN_DIR) + "/test_silent.so", "",
                                     "", "{}", nullptr));
            rails.add(load_rail_file(std::string(CORRIDOR_TEST_PLUGIN_DIR) + "/test_throws.so", "",
                                     "", "{}", nullptr));
        }
        platform_id = make_platform("engine.example");
        owner = tenant{platform_id, environment::sandbox};
        account_id = testing::funded_platform_account(*this, owner, "USD", 10000);
    }

    rail_engine_services services() {
        rail_engine_settings settings;
        settings.call_timeout_ms = 5000;
        settings.settlement_timeout_ms = 3600000;
        return {ids, random, clock, currencies, rails, settings};
    }

    external_account_ref external(const std::string& type, const std::string& field,
                                  const std::string& value) {
        return {"ExternalAccount:" + value, "", "USD", type,
                R"({")" + field + R"(":")" + value + R"("})"};
    }

    transaction_record transfer_out(const external_account_ref& destination,
                                    std::int64_t amount = 2500) {
        return transfer_out_on(services(), destination, amount, "payout");
    }

    transaction_record transfer_out_on(const rail_engine_services& on,
                                       const external_account_ref& destination, std::int64_t amount,
                                       const std::string& description) {
        write_transaction transaction(session());
        auto begun = begin_transfer_out(session(), on,
                                        {owner, account_id, destination, amount, description});
        REQUIRE(begun.ok());
        transaction.commit();
        return begun.value();
    }

    // Services over the test rail alone, whose answer the payout's amount chooses
    // (13: UNAVAILABLE, 14: declined).
    rail_engine_services test_rail_services() {
        if (!test_rail.by_name("test_good")) {
            test_rail.add(load_rail_file(std::string(CORRIDOR_TEST_PLUGIN_DIR) + "/test_good.so",
                                         "", "", "{}", nullptr));
        }
        return {ids, random, clock, currencies, test_rail, services().settings};
    }

    transaction_record transfer_out_on_test_rail(const rail_engine_services& on,
                                                 std::int64_t amount) {
        return transfer_out_on(
            on, {"ExternalAccount:g", "", "USD", "SOLANA_WALLET", R"({"accountNumber":"1"})"},
            amount, "");
    }

    int drive(payment_engine& engine) {
        write_transaction transaction(session());
        int changed = engine.drive(session());
        transaction.commit();
        return changed;
    }

    std::int64_t balance() { return *account_balance(session(), account_id); }
    transaction_record reread(const transaction_record& t) {
        return *find_transaction(session(), owner, t.id);
    }
    rail_operation operation_of(const transaction_record& t) {
        return *find_rail_operation_by_transaction(session(), owner, t.id);
    }
    int count(const std::string& sql) {
        int n = 0;
        session() << sql, soci::into(n);
        return n;
    }

    currency_registry currencies;
    rail_registry rails;
    rail_registry test_rail;
    std::string platform_id, account_id;
    tenant owner;
};

}  // namespace

TEST_CASE("a transfer-out holds the money, then completes when the rail settles",
          "[store][rails][engine]") {
    engine_fixture f;
    payment_engine engine(f.services());
    auto t = f.transfer_out(f.external("US_ACCOUNT", "accountNumber", "123456789"));
    CHECK(t.status == "PENDING");
    CHECK(t.type == "OUTGOING");
    CHECK(t.destination_type == "EXTERNAL_ACCOUNT");
    CHECK(f.balance() == 7500);
    CHECK(f.operation_of(t).status == "INITIATING");
    CHECK(f.operation_of(t).rail == "sandbox");

    CHECK(f.drive(engine) >= 1);
    CHECK(f.reread(t).status == "COMPLETED");
    CHECK(f.reread(t).settled_at_ms == testing::fixture_start_ms);
    auto op = f.operation_of(t);
    CHECK(op.status == "SETTLED");
    CHECK(op.attempts == 1);
    CHECK_FALSE(op.rail_reference.empty());
    CHECK(f.balance() == 7500);
    CHECK(audit_book(f.session()).empty());
    // PENDING then COMPLETED, each in the outbox with the transaction that changed.
    CHECK(f.count("SELECT COUNT(*) FROM outbox_events WHERE type = 'OUTGOING_PAYMENT'") == 2);
    // The hold moved the balance once: one ACCOUNT_STATUS event, 10000 -> 7500.
    CHECK(f.count("SELECT COUNT(*) FROM outbox_events WHERE type = 'ACCOUNT_STATUS'") == 1);
    std::string payload;
    f.session() << "SELECT payload FROM outbox_events WHERE type = 'ACCOUNT_STATUS'",
        soci::into(payload);
    payload = unpack_event_payload(payload);
    CHECK_THAT(payload, Catch::Contains(R"("oldBalance":{"amount":10000)"));
    CHECK_THAT(payload, Catch::Contains(R"("newBalance":{"amount":7500)"));
    CHECK(f.drive(engine) == 0);  // nothing left to do
}

TEST_CASE("failure patterns fail the transfer-out and refund it", "[store][rails][engine]") {
    struct expectation {
        std::string type, field, value, failure_class, code, reason;
    };
    const std::vector<expectation> cases = {
        {"US_ACCOUNT", "accountNumber", "555002", "INSUFFICIENT_FUNDS", "R01",
         "QUOTE_EXECUTION_FAILED"},
        {"US_ACCOUNT", "accountNumber", "555003", "ACCOUNT_INVALID", "R03",
         "QUOTE_EXECUTION_FAILED"},
        {"PIX", "pixKey", "key004", "REJECTED", "DS04", "QUOTE_EXECUTION_FAILED"},
        {"SPARK_WALLET", "address", "sparkrt1q003", "ACCOUNT_INVALID", "INCORRECT_PAYMENT_DETAILS",
         "LIGHTNING_PAYMENT_FAILED"},
    };
    for (const auto& c : cases) {
        INFO(c.type << " " << c.value);
        engine_fixture f;
        payment_engine engine(f.services());
        auto t = f.transfer_out(f.external(c.type, c.field, c.value));
        CHECK(f.balance() == 7500);
        f.drive(engine);
        auto after = f.reread(t);
        CHECK(after.status == "FAILED");
        CHECK(after.failure_reason == c.reason);
        CHECK_THAT(after.refund, Catch::Contains("\"reference\":\"RailOperation:"));
        auto op = f.operation_of(t);
        CHECK(op.status == "FAILED");
        CHECK(op.failure_class == c.failure_class);
        CHECK(op.rail_reason_code == c.code);
        CHECK(f.balance() == 10000);  // refunded
        CHECK(audit_book(f.session()).empty());
        // The hold and the refund each moved the balance.
        CHECK(f.count("SELECT COUNT(*) FROM outbox_events WHERE type = 'ACCOUNT_STATUS'") == 2);
    }
}

TEST_CASE("005 stays pending for the sandbox timeout, then fails with TIMEOUT and a refund",
          "[store][rails][engine]") {
    engine_fixture f;
    payment_engine engine(f.services());
    auto t = f.transfer_out(f.external("PIX", "pixKey", "+5511999990005"));
    f.drive(engine);
    CHECK(f.reread(t).status == "PENDING");
    CHECK(f.operation_of(t).status == "PENDING");
    // The rail's tick (every 250 ms) sees the 30 s pass; the exact boundary is the sandbox test's.
    f.clock.advance_ms(29000);
    f.drive(engine);
    CHECK(f.reread(t).status == "PENDING");
    CHECK(f.balance() == 7500);
    f.clock.advance_ms(1000);
    f.drive(engine);
    auto after = f.reread(t);
    CHECK(after.status == "FAILED");
    CHECK(after.failure_reason == "TIMEOUT");
    CHECK(f.operation_of(t).rail_reason_code == "AB03");
    CHECK(f.balance() == 10000);
}

TEST_CASE("an operation the rail never completes fails at its deadline and is refunded",
          "[store][rails][engine]") {
    engine_fixture f(true);
    payment_engine engine(f.services());
    auto t = f.transfer_out(
        {"ExternalAccount:silent", "", "USD", "SOLANA_WALLET", R"({"accountNumber":"1"})"});
    CHECK(f.operation_of(t).rail == "test_silent");
    f.drive(engine);
    CHECK(f.operation_of(t).status == "PENDING");
    f.clock.advance_ms(3600000 - 1);
    f.drive(engine);
    CHECK(f.reread(t).status == "PENDING");
    f.clock.advance_ms(1);
    f.drive(engine);
    auto after = f.reread(t);
    CHECK(after.status == "FAILED");
    CHECK(after.failure_reason == "TIMEOUT");
    CHECK(f.operation_of(t).failure_class == "TIMEOUT");
    CHECK(f.balance() == 10000);
    // A late report for the closed operation changes nothing.
    rail_report late;
    late.outcome = rail_outcome::settled;
    late.operation_id = f.operation_of(t).id;
    {
        write_transaction transaction(f.session());
        CHECK_FALSE(engine.apply_report(f.session(), late));
        transaction.commit();
    }
    CHECK(f.reread(t).status == "FAILED");
    CHECK(f.balance() == 10000);
}

TEST_CASE("a refused transfer-out writes nothing", "[store][rails][engine]") {
    engine_fixture f;
    int transactions = f.count("SELECT COUNT(*) FROM transactions");
    auto refuse = [&](const external_account_ref& destination, std::int64_t amount,
                      rail_payment_error expected, const std::string& message_part) {
        write_transaction transaction(f.session());
        auto begun = begin_transfer_out(f.session(), f.services(),
                                        {f.owner, f.account_id, destination, amount, ""});
        REQUIRE_FALSE(begun.ok());
        CHECK(begun.error().code == expected);
        CHECK_THAT(begun.error().message, Catch::Contains(message_part));
    };
    auto good = f.external("US_ACCOUNT", "accountNumber", "123456789");
    refuse(good, 10001, rail_payment_error::insufficient_balance, "does not cover 10001 USD");
    auto euro = good;
    euro.currency = "EUR";
    refuse(euro, 100, rail_payment_error::currency_mismatch, "holds EUR");
    refuse(f.external("US_ACCOUNT", "routingNumber", "021000021"), 100,
           rail_payment_error::account_invalid,
           "accountInfo.accountNumber is required for US_ACCOUNT");
    refuse(f.external("MARS_ACCOUNT", "accountNumber", "1"), 100, rail_payment_error::no_rail,
           "no payment rail serves account type MARS_ACCOUNT");
    {
        rail_registry silent;
        silent.add(load_rail_file(std::string(CORRIDOR_TEST_PLUGIN_DIR) + "/test_silent.so", "", "",
                                  "{}", nullptr));
        rail_engine_services on{f.ids, f.random, f.clock, f.currencies, silent, {}};
        write_transaction transaction(f.session());
        auto begun = begin_transfer_out(f.session(), on,
                                        {f.owner,
                                         f.account_id,
                                         {"ExternalAccount:t", "", "USD", "TRON_WALLET", "{}"},
                                         100,
                                         ""});
        REQUIRE_FALSE(begun.ok());
        CHECK(begun.error().code == rail_payment_error::account_invalid);
        CHECK_THAT(begun.error().message,
                   Catch::Contains("is not valid for rail test_silent: accountNumber is required"));
    }
    {
        write_transaction transaction(f.session());
        auto begun = begin_transfer_out(f.session(), f.services(),
                                        {f.owner, "InternalAccount:none", good, 1, ""});
        REQUIRE_FALSE(begun.ok());
        CHECK(begun.error().code == rail_payment_error::internal_account_not_found);
    }
    auto pending = good;
    pending.status = "PENDING";
    refuse(pending, 100, rail_payment_error::external_account_not_active,
           "destination.accountId: external account ExternalAccount:123456789 is PENDING; only "
           "ACTIVE accounts can send or receive transfers");
    CHECK(f.count("SELECT COUNT(*) FROM transactions") == transactions);
    CHECK(f.count("SELECT COUNT(*) FROM rail_operations") == 0);
    CHECK(f.balance() == 10000);
}

TEST_CASE(
    "a sandbox transfer is refused when no rail serves the sandbox, never sent to a "
    "real-money rail",
    "[store][rails][engine]") {
    engine_fixture f;
    // test_production pays out and pulls, and does not declare SERVES_SANDBOX.
    rail_registry production_only;
    production_only.add(load_rail_file(
        std::string(CORRIDOR_TEST_PLUGIN_DIR) + "/test_production.so", "", "", "{}", nullptr));
    rail_engine_services services{f.ids, f.random, f.clock, f.currencies, production_only, {}};
    write_transaction transaction(f.session());
    auto begun = begin_transfer_out(
        f.session(), services,
        {f.owner,
         f.account_id,
         {"ExternalAccount:p", "", "USD", "SOLANA_WALLET", R"({"accountNumber":"1"})"},
         100,
         ""});
    REQUIRE_FALSE(begun.ok());
    CHECK(begun.error().code == rail_payment_error::no_rail);
    CHECK_THAT(begun.error().message,
               Catch::Contains("no payment rail serves account type SOLANA_WALLET in the sandbox"));
    CHECK(production_only.by_name("test_production")->stats(rail_hook::validate_account).calls ==
          0);
    CHECK(f.balance() == 10000);
    CHECK(f.count("SELECT COUNT(*) FROM rail_operations") == 0);
}

TEST_CASE("sandbox parity: the simulator takes only what production would",
          "[store][rails][engine]") {
    engine_fixture f;
    auto begin = [&](const rail_engine_services& on, bool pull, const external_account_ref& ext) {
        write_transaction transaction(f.session());
        auto begun =
            pull ? begin_transfer_in(f.session(), on, {f.owner, ext, f.account_id, 100, ""})
                 : begin_transfer_out(f.session(), on, {f.owner, f.account_id, ext, 100, ""});
        if (begun.ok()) transaction.commit();
        return begun;
    };
    // The simulator alone: the interface's rule, pulls only from a US_ACCOUNT, payouts to all.
    auto iban = f.external("IBAN", "iban", "DE89370400440532013000");
    auto pulled = begin(f.services(), true, iban);
    REQUIRE_FALSE(pulled.ok());
    CHECK(pulled.error().code == rail_payment_error::direction_unsupported);
    CHECK(pulled.error().field == "source.accountId");
    CHECK_THAT(pulled.error().message, Catch::Contains("cannot be pulled from IBAN accounts"));
    CHECK(begin(f.services(), false, iban).ok());
    CHECK(begin(f.services(), true, f.external("US_ACCOUNT", "accountNumber", "123456789")).ok());

    // With a real rail loaded (test_production: SOLANA_WALLET and TRON_WALLET, payout and pull),
    // the sandbox answers what production answers, refusal text included.
    rail_registry both;
    both.add(load_rail_file(std::string(CORRIDOR_PLUGIN_DIR) + "/sandbox.so", "sandbox", "",
                            R"({"timeout_ms":30000})", nullptr));
    both.add(load_rail_file(std::string(CORRIDOR_TEST_PLUGIN_DIR) + "/test_production.so", "", "",
                            "{}", nullptr));
    rail_engine_services sandbox_side{f.ids, f.random, f.clock, f.currencies, both, {}};
    auto us = f.external("US_ACCOUNT", "accountNumber", "123456789");
    auto refused = begin(sandbox_side, true, us);
    REQUIRE_FALSE(refused.ok());
    tenant production_owner{f.platform_id, environment::production};
    std::string production_account =
        testing::funded_platform_account(f, production_owner, "USD", 10000);
    {
        write_transaction transaction(f.session());
        auto in_production = begin_transfer_in(f.session(), sandbox_side,
                                               {production_owner, us, production_account, 100, ""});
        REQUIRE_FALSE(in_production.ok());
        CHECK(refused.error().code == in_production.error().code);
        CHECK(refused.error().field == in_production.error().field);
        CHECK(refused.error().message == in_production.error().message);
    }
    CHECK(refused.error().code == rail_payment_error::no_rail);
    CHECK(refused.error().message ==
          "source.accountId: no payment rail serves account type US_ACCOUNT");
    // Refused before anything is written: the two simulator operations above only.
    CHECK(f.count("SELECT COUNT(*) FROM rail_operations") == 2);
}

TEST_CASE("a throwing rail refuses the transfer and the host keeps running",
          "[store][rails][engine]") {
    engine_fixture f;
    // test_throws serves TRON_WALLET only after test_silent, which serves it too: ask it
    // directly.
    rail_registry only_throws;
    only_throws.add(load_rail_file(std::string(CORRIDOR_TEST_PLUGIN_DIR) + "/test_throws.so", "",
                                   "", "{}", nullptr));
    rail_engine_services services{f.ids, f.random, f.clock, f.currencies, only_throws, {}};
    write_transaction transaction(f.session());
    auto begun = begin_transfer_out(
        f.session(), services,
        {f.owner,
         f.account_id,
         {"ExternalAccount:t", "", "USD", "SOLANA_WALLET", R"({"accountNumber":"1"})"},
         100,
         ""});
    REQUIRE_FALSE(begun.ok());
    CHECK(begun.error().code == rail_payment_error::rail_unavailable);
    CHECK(f.balance() == 10000);
}

TEST_CASE("a transfer-in credits the account only when the pull settles",
          "[store][rails][engine]") {
    engine_fixture f;
    payment_engine engine(f.services());
    auto pull = [&](const std::string& number) {
        write_transaction transaction(f.session());
        auto begun = begin_transfer_in(
            f.session(), f.services(),
            {f.owner, f.external("US_ACCOUNT", "accountNumber", number), f.account_id, 700, ""});
        REQUIRE(begun.ok());
        transaction.commit();
        return begun.value();
    };
    auto good = pull("44556677");
    auto broke = pull("44556002");
    CHECK(good.type == "INCOMING");
    CHECK(f.balance() == 10000);
    f.drive(engine);
    CHECK(f.reread(good).status == "COMPLETED");
    CHECK(f.reread(broke).status == "FAILED");
    CHECK(f.reread(broke).failure_reason == "QUOTE_EXECUTION_FAILED");
    CHECK(f.operation_of(broke).rail_reason_code == "R01");
    CHECK(f.reread(broke).refund.empty());
    CHECK(f.balance() == 10700);
    CHECK(audit_book(f.session()).empty());

    // The pull comes back after it settled (an ACH return): the credit is reversed.
    rail_report returned;
    returned.outcome = rail_outcome::returned;
    returned.operation_id = f.operation_of(good).id;
    returned.failure = rail_failure::rejected;
    returned.rail_reason_code = "R10";
    {
        write_transaction transaction(f.session());
        CHECK(engine.apply_report(f.session(), returned));
        transaction.commit();
    }
    CHECK(f.operation_of(good).status == "RETURNED");
    CHECK(f.reread(good).status == "FAILED");
    CHECK(f.balance() == 10000);
    CHECK(audit_book(f.session()).empty());
}

TEST_CASE("a payout returned after it settled is reversed exactly once", "[store][rails][engine]") {
    engine_fixture f;
    payment_engine engine(f.services());
    auto t = f.transfer_out(f.external("US_ACCOUNT", "accountNumber", "123456789"));
    f.drive(engine);
    REQUIRE(f.reread(t).status == "COMPLETED");
    REQUIRE(f.balance() == 10000 - 2500);
    auto events_before = f.count("SELECT COUNT(*) FROM outbox_events");
    rail_report returned;
    returned.outcome = rail_outcome::returned;
    returned.operation_id = f.operation_of(t).id;
    returned.failure = rail_failure::account_invalid;
    returned.rail_reason_code = "R02";
    returned.failure_reason = "COUNTERPARTY_POST_TX_FAILED";
    {
        write_transaction transaction(f.session());
        CHECK(engine.apply_report(f.session(), returned));
        transaction.commit();
    }
    CHECK(f.reread(t).status == "FAILED");
    CHECK(f.reread(t).failure_reason == "COUNTERPARTY_POST_TX_FAILED");
    CHECK_FALSE(f.reread(t).refund.empty());
    CHECK(f.operation_of(t).status == "RETURNED");
    CHECK(f.operation_of(t).rail_reason_code == "R02");
    CHECK(f.balance() == 10000);
    // The transaction's event and the account's balance event.
    CHECK(f.count("SELECT COUNT(*) FROM outbox_events") == events_before + 2);
    // A repeated return changes nothing.
    {
        write_transaction transaction(f.session());
        CHECK_FALSE(engine.apply_report(f.session(), returned));
        transaction.commit();
    }
    CHECK(f.balance() == 10000);
    CHECK(f.count("SELECT COUNT(*) FROM outbox_events") == events_before + 2);
    CHECK(audit_book(f.session()).empty());
}

TEST_CASE("a rail that cannot pull refuses transfer-in up front", "[store][rails][engine]") {
    engine_fixture f;
    rail_registry only;
    only.add(load_rail_file(std::string(CORRIDOR_TEST_PLUGIN_DIR) + "/test_payout_only.so", "", "",
                            "{}", nullptr));
    rail_engine_services services{f.ids, f.random, f.clock, f.currencies, only, {}};
    auto source = f.external("SOLANA_WALLET", "accountNumber", "42");
    write_transaction transaction(f.session());
    auto pulled =
        begin_transfer_in(f.session(), services, {f.owner, source, f.account_id, 100, ""});
    REQUIRE_FALSE(pulled.ok());
    CHECK(pulled.error().code == rail_payment_error::direction_unsupported);
    CHECK(pulled.error().field == "source.accountId");
    CHECK_THAT(pulled.error().message, Catch::Contains("fundingPaymentInstructions"));
    CHECK(only.by_name("test_payout_only")->stats(rail_hook::validate_account).calls == 0);
    // The same rail pays out.
    auto paid = begin_transfer_out(f.session(), services, {f.owner, f.account_id, source, 100, ""});
    CHECK(paid.ok());
}

TEST_CASE("operations survive a restart and are leased to one process at a time",
          "[store][rails][engine]") {
    engine_fixture f;
    auto t = f.transfer_out(f.external("US_ACCOUNT", "accountNumber", "123456789"));
    // A process without the rail claims the row first: it leaves it for the lease period.
    rail_registry empty;
    rail_engine_services bare{f.ids, f.random, f.clock, f.currencies, empty, f.services().settings};
    payment_engine without_rail(bare);
    f.drive(without_rail);
    auto op = f.operation_of(t);
    CHECK(op.status == "INITIATING");
    CHECK(op.attempts == 1);
    CHECK(op.lease_until_ms == testing::fixture_start_ms + 5000);
    // A new engine (a restarted or second process) with the rail waits for the lease.
    payment_engine restarted(f.services());
    f.drive(restarted);
    CHECK(f.operation_of(t).status == "INITIATING");
    f.clock.advance_ms(5000);
    f.drive(restarted);
    CHECK(f.operation_of(t).status == "SETTLED");
    CHECK(f.operation_of(t).attempts == 2);
    CHECK(f.reread(t).status == "COMPLETED");
}

TEST_CASE("failure reasons follow the interface's lists", "[rails][engine]") {
    CHECK(interface_failure_reason("PAYOUT", rail_failure::timeout, "") == "TIMEOUT");
    CHECK(interface_failure_reason("PAYOUT", rail_failure::rejected, "") ==
          "QUOTE_EXECUTION_FAILED");
    CHECK(interface_failure_reason("PAYOUT", rail_failure::rejected, "LIGHTNING_PAYMENT_FAILED") ==
          "LIGHTNING_PAYMENT_FAILED");
    CHECK(interface_failure_reason("PAYOUT", rail_failure::rejected, "NOT_A_REASON") ==
          "QUOTE_EXECUTION_FAILED");
    CHECK(interface_failure_reason("PULL", rail_failure::timeout, "TIMEOUT") ==
          "QUOTE_EXECUTION_FAILED");
    CHECK(interface_failure_reason("PULL", rail_failure::rejected, "OFFRAMP_FAILED") ==
          "OFFRAMP_FAILED");
}

}  // namespace corridor

namespace corridor {

TEST_CASE("two processes on one PostgreSQL never claim the same operation",
          "[store][rails][engine]") {
    engine_fixture f;
    if (f.database.backend() != database_backend::postgresql) {
        // SQLite has one writer at a time: its write lock already serialises claims.
        SUCCEED("SQLite");
        return;
    }
    for (int i = 0; i < 3; ++i)
        f.transfer_out(f.external("US_ACCOUNT", "accountNumber", "12345678" + std::to_string(i)),
                       100);
    auto other = f.database.open_another();
    write_transaction first(f.session());
    auto claimed_first = claim_due_initiations(f.session(), f.clock.now_ms(), 2, "local");
    CHECK(claimed_first.size() == 2);
    write_transaction second(*other);
    auto claimed_second = claim_due_initiations(*other, f.clock.now_ms(), 10, "local");
    REQUIRE(claimed_second.size() == 1);
    for (const auto& op : claimed_first) CHECK(op.id != claimed_second[0].id);
}

}  // namespace corridor

namespace corridor {

TEST_CASE("an unavailable rail is retried after the lease; a declined operation is refunded",
          "[store][rails][engine]") {
    engine_fixture f;
    auto services = f.test_rail_services();
    auto settings = services.settings;
    payment_engine engine(services);
    auto unavailable = f.transfer_out_on_test_rail(services, 13);
    auto declined = f.transfer_out_on_test_rail(services, 14);
    f.drive(engine);
    auto op = f.operation_of(unavailable);
    CHECK(op.status == "INITIATING");
    CHECK(op.attempts == 1);
    CHECK(op.message == "try again later");
    CHECK(f.reread(declined).status == "FAILED");
    CHECK(f.operation_of(declined).failure_class == "REJECTED");
    CHECK(f.operation_of(declined).message == "over the rail's limit");
    CHECK(f.balance() == 10000 - 13);  // the declined one is refunded
    f.drive(engine);
    CHECK(f.operation_of(unavailable).attempts == 1);  // leased: not tried again yet
    f.clock.advance_ms(settings.call_timeout_ms);
    f.drive(engine);
    CHECK(f.operation_of(unavailable).attempts == 2);
    // Still unavailable at the settlement deadline: TIMEOUT, refunded.
    f.clock.advance_ms(settings.settlement_timeout_ms);
    f.drive(engine);
    CHECK(f.reread(unavailable).status == "FAILED");
    CHECK(f.reread(unavailable).failure_reason == "TIMEOUT");
    CHECK(f.balance() == 10000);
    CHECK(audit_book(f.session()).empty());
}

}  // namespace corridor

namespace corridor {

namespace {

std::uint64_t initiate_calls(const rail_registry& rails, const std::string& name) {
    return rails.by_name(name)->stats(rail_hook::initiate).calls.load();
}

}  // namespace

TEST_CASE("after a restart the node initiates again, once, every operation its rails were handed",
          "[store][rails][engine]") {
    engine_fixture f(true);
    auto silent = [&] {
        return f.transfer_out(
            {"ExternalAccount:silent", "", "USD", "SOLANA_WALLET", R"({"accountNumber":"1"})"},
            100);
    };
    auto pending = silent();  // accepted by the rail, no outcome yet
    std::string first_epoch;
    {
        payment_engine engine(f.services());
        first_epoch = engine.epoch();
        f.drive(engine);
        CHECK(f.operation_of(pending).status == "PENDING");
        CHECK(f.operation_of(pending).rail_node == "local");
        CHECK(f.operation_of(pending).rail_epoch == first_epoch);
        f.drive(engine);  // the same run: handed over once
        CHECK(initiate_calls(f.rails, "test_silent") == 1);
    }
    auto waiting = silent();  // accepted by the service, never handed to a rail

    // Another node sharing the database leaves this node's operation alone.
    auto other_settings = f.services();
    other_settings.settings.node = "other";
    payment_engine other(other_settings);
    CHECK(other.epoch() != first_epoch);
    f.clock.advance_ms(5000);  // past the first run's lease
    f.drive(other);
    CHECK(initiate_calls(f.rails, "test_silent") == 2);  // the new one only
    CHECK(f.operation_of(waiting).rail_node == "other");
    CHECK(f.operation_of(pending).rail_epoch == first_epoch);
    CHECK(f.operation_of(pending).attempts == 1);

    // The node restarts: the rail may have lost it, so the operation is initiated again (the
    // ABI's retry: the rail recognises the id), once.
    payment_engine restarted(f.services());
    f.drive(restarted);
    CHECK(initiate_calls(f.rails, "test_silent") == 3);
    auto op = f.operation_of(pending);
    CHECK(op.status == "PENDING");
    CHECK(op.attempts == 2);
    CHECK(op.rail_epoch == restarted.epoch());
    f.clock.advance_ms(5000);
    f.drive(restarted);
    CHECK(initiate_calls(f.rails, "test_silent") == 3);
    CHECK(f.reread(pending).status == "PENDING");
    CHECK(f.operation_of(waiting).rail_node == "other");  // still the other node's
}

TEST_CASE("an operation claimed before a crash stays with its node and is retried at its restart",
          "[store][rails][engine]") {
    engine_fixture f;
    auto t = f.transfer_out(f.external("US_ACCOUNT", "accountNumber", "123456789"));
    {
        // The claim committed, then the process died before (or while) calling the rail.
        payment_engine crashed(f.services());
        write_transaction transaction(f.session());
        auto claimed = crashed.claim(f.session());
        transaction.commit();
        REQUIRE(claimed.initiations.size() == 1);
    }
    CHECK(f.operation_of(t).status == "INITIATING");
    CHECK(f.operation_of(t).rail_node == "local");
    // Its rail may hold it: no other node takes it, even after the lease.
    auto other_settings = f.services();
    other_settings.settings.node = "other";
    payment_engine other(other_settings);
    f.clock.advance_ms(60000);
    f.drive(other);
    CHECK(f.operation_of(t).status == "INITIATING");
    CHECK(f.operation_of(t).attempts == 1);
    // The node's next run initiates it again.
    payment_engine restarted(f.services());
    f.drive(restarted);
    CHECK(f.operation_of(t).status == "SETTLED");
    CHECK(f.operation_of(t).attempts == 2);
    CHECK(f.reread(t).status == "COMPLETED");
    CHECK(f.balance() == 7500);
}

TEST_CASE("a first initiation the rail cannot take goes back to every node",
          "[store][rails][engine]") {
    engine_fixture f;
    auto services = f.test_rail_services();
    auto begun = f.transfer_out_on_test_rail(services, 13);  // the test rail answers UNAVAILABLE
    payment_engine engine(services);
    f.drive(engine);
    auto op = f.operation_of(begun);
    CHECK(op.status == "INITIATING");
    CHECK(op.rail_node.empty());  // nothing was started: any node may try it
    auto other_services = services;
    other_services.settings.node = "other";
    payment_engine other(other_services);
    f.clock.advance_ms(services.settings.call_timeout_ms);
    f.drive(other);
    CHECK(f.operation_of(begun).attempts == 2);
}

TEST_CASE("pending operations from before nodes were recorded are adopted by one node",
          "[store][rails][engine]") {
    engine_fixture f(true);
    auto t = f.transfer_out(
        {"ExternalAccount:silent", "", "USD", "SOLANA_WALLET", R"({"accountNumber":"1"})"}, 100);
    {
        payment_engine engine(f.services());
        f.drive(engine);
    }
    // As an older version left it: PENDING, no node.
    f.session() << "UPDATE rail_operations SET rail_node = '', rail_epoch = ''";
    auto other_settings = f.services();
    other_settings.settings.node = "other";
    payment_engine adopter(other_settings);
    f.clock.advance_ms(5000);
    f.drive(adopter);
    CHECK(initiate_calls(f.rails, "test_silent") == 2);
    CHECK(f.operation_of(t).rail_node == "other");
    payment_engine late(f.services());
    f.drive(late);
    CHECK(initiate_calls(f.rails, "test_silent") == 2);
}

}  // namespace corridor

namespace corridor {

TEST_CASE("a sandbox 005 operation pending at a restart still ends, failed and refunded",
          "[store][rails][engine]") {
    engine_fixture f;
    auto t = f.transfer_out(f.external("US_ACCOUNT", "accountNumber", "555005"));
    {
        payment_engine engine(f.services());
        f.drive(engine);
        CHECK(f.operation_of(t).status == "PENDING");
    }
    // The process is gone: a new one loads the sandbox rail afresh (its timers were in memory).
    rail_registry reloaded;
    reloaded.add(load_rail_file(std::string(CORRIDOR_PLUGIN_DIR) + "/sandbox.so", "sandbox", "",
                                R"({"timeout_ms":30000})", nullptr));
    rail_engine_services services{f.ids,        f.random, f.clock,
                                  f.currencies, reloaded, f.services().settings};
    payment_engine restarted(services);
    f.clock.advance_ms(10000);
    f.drive(restarted);  // initiated again: the sandbox waits its 30 s from now
    CHECK(reloaded.by_name("sandbox")->stats(rail_hook::initiate).calls.load() == 1);
    f.clock.advance_ms(29000);
    f.drive(restarted);
    CHECK(f.reread(t).status == "PENDING");
    f.clock.advance_ms(1000);
    f.drive(restarted);
    CHECK(f.reread(t).status == "FAILED");
    CHECK(f.reread(t).failure_reason == "TIMEOUT");
    CHECK(f.balance() == 10000);
}

}  // namespace corridor

namespace corridor {

TEST_CASE("a retry the rail cannot take stays with the node and is tried again after its lease",
          "[store][rails][engine]") {
    engine_fixture f;
    auto services = f.test_rail_services();
    auto begun = f.transfer_out_on_test_rail(services, 13);  // the test rail answers UNAVAILABLE
    // As an earlier run of this node left it: accepted by the rail, no outcome yet.
    f.session() << "UPDATE rail_operations SET status = 'PENDING', rail_node = 'local', "
                   "rail_epoch = 'RailRun:earlier'";
    payment_engine engine(services);
    f.drive(engine);
    auto op = f.operation_of(begun);
    CHECK(op.attempts == 1);
    CHECK(op.status == "PENDING");
    CHECK(op.rail_node == "local");  // its rail may still hold it
    CHECK(op.message == "try again later");
    f.drive(engine);
    CHECK(f.operation_of(begun).attempts == 1);  // leased
    f.clock.advance_ms(services.settings.call_timeout_ms);
    f.drive(engine);
    CHECK(f.operation_of(begun).attempts == 2);
    CHECK(f.reread(begun).status == "PENDING");
}

}  // namespace corridor
