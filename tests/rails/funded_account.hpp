#pragma once
// The starting point of most rail tests: a platform's own internal account in one currency, with
// money in it, so that a payout has something to take.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

#include "ledger/book/book.hpp"
#include "tests/support/store_fixture.hpp"

namespace corridor::testing {

// The id of the platform account (not a customer's) that `owner` holds in `currency`; fails the
// test when there is none.
inline std::string platform_account(store_fixture& f, const tenant& owner,
                                    const std::string& currency) {
    account_filter platform_only;
    platform_only.platform_only = true;
    std::string account_id;
    for (const auto& account :
         list_internal_accounts(f.session(), owner, platform_only, {100, std::nullopt, false})
             .items) {
        if (account.currency == currency) account_id = account.id;
    }
    REQUIRE_FALSE(account_id.empty());
    return account_id;
}

// That platform account, credited with `amount` from the tenant's settlement account.
inline std::string funded_platform_account(store_fixture& f, const tenant& owner,
                                           const std::string& currency, std::int64_t amount) {
    std::string account_id = platform_account(f, owner, currency);
    book_services book{f.ids, f.random, f.clock};
    std::string settlement =
        ensure_account(f.session(), book, owner, account_kind::settlement, "", currency);
    REQUIRE(post_transfer(f.session(), book, owner,
                          {settlement, account_id, amount, currency, "fund", ""})
                .ok());
    return account_id;
}

}  // namespace corridor::testing
