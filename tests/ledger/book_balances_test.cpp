// balances_by_currency: the dashboard's overview sums a tenant's internal accounts per currency,
// the platform's own apart from its customers', and never counts service accounts (liquidity) or
// another tenant's accounts.
#include <catch2/catch.hpp>
#include <string>

#include "ledger/book/book.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;
using corridor::testing::store_fixture;

TEST_CASE("balances by currency sum the platform's and its customers' internal accounts",
          "[store][book]") {
    store_fixture fixture;
    auto platform_id = fixture.make_platform("acme.example");
    tenant owner{platform_id, environment::sandbox};
    tenant production{platform_id, environment::production};
    book_services services{fixture.ids, fixture.random, fixture.clock};
    auto& session = fixture.session();
    auto platform_usd = ensure_account(session, services, owner, account_kind::platform, "", "USD");
    auto alice_usd =
        ensure_account(session, services, owner, account_kind::customer, "Customer:a", "USD");
    auto bob_usd =
        ensure_account(session, services, owner, account_kind::customer, "Customer:b", "USD");
    ensure_account(session, services, owner, account_kind::customer, "Customer:a", "EUR");
    auto liquidity = ensure_account(session, services, owner, account_kind::liquidity, "", "USD");
    auto other_env =
        ensure_account(session, services, production, account_kind::customer, "Customer:c", "USD");
    auto credit = [&](const tenant& who, const std::string& from, const std::string& to,
                      std::int64_t amount) {
        auto posted = post_transfer(session, services, who, {from, to, amount, "USD", "fund", ""});
        REQUIRE(posted);
    };
    credit(owner, liquidity, alice_usd, 500);
    credit(owner, liquidity, bob_usd, 300);
    credit(owner, liquidity, platform_usd, 100);
    credit(owner, alice_usd, bob_usd, 50);  // moves between customers: the sum stays
    auto production_liquidity =
        ensure_account(session, services, production, account_kind::liquidity, "", "USD");
    credit(production, production_liquidity, other_env, 7000);

    auto balances = balances_by_currency(session, owner);
    REQUIRE(balances.size() == 2);
    CHECK(balances[0].currency == "EUR");
    CHECK(balances[0].platform_balance == 0);
    CHECK(balances[0].customer_balance == 0);
    CHECK(balances[0].customer_accounts == 1);
    CHECK(balances[1].currency == "USD");
    CHECK(balances[1].platform_balance == 100);
    CHECK(balances[1].customer_balance == 800);
    CHECK(balances[1].customer_accounts == 2);

    auto other = balances_by_currency(session, production);
    REQUIRE(other.size() >= 1);
    for (const auto& item : other) {
        if (item.currency != "USD") continue;
        CHECK(item.customer_balance == 7000);
        CHECK(item.customer_accounts == 1);
    }
    CHECK(balances_by_currency(session, tenant{"Platform:none", environment::sandbox}).empty());
}
