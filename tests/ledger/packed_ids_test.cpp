// Migration 46's storage of postings, on SQLite and on PostgreSQL ([store]): the SQL functions that
// pack and unpack typed ids behave alike on both, and every path that opens accounts gives each a
// key of its own, never taken again.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "ledger/book/book.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/ids.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;

namespace {

std::optional<std::string> text_of(soci::session& session, const std::string& sql) {
    std::string value;
    soci::indicator found = soci::i_null;
    session << sql, soci::into(value, found);
    if (found != soci::i_ok) return std::nullopt;
    return value;
}

long long key_of(soci::session& session, const std::string& account_id) {
    long long key = 0;
    session << "SELECT account_key FROM ledger_accounts WHERE id = :i", soci::use(account_id),
        soci::into(key);
    return key;
}

}  // namespace

TEST_CASE("packed ids: 16 bytes in, the typed id out, NULL for none", "[store][ids]") {
    testing::test_database database;
    soci::session& session = database.session();
    const std::string id = "Transfer:0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
    CHECK(text_of(session, "SELECT typed_id('Transfer', packed_id('" + id + "'))") == id);
    // The type is the column's: any prefix packs to the same bytes.
    CHECK(text_of(session, "SELECT typed_id('Transaction', packed_id('" + id + "'))") ==
          "Transaction:0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b");
    CHECK(text_of(session,
                  "SELECT typed_id('Transfer', packed_id('Transfer:0190A1B2-C3D4-7E5F-"
                  "8A9B-0C1D2E3F4A5B'))") == id);
    CHECK_FALSE(text_of(session, "SELECT typed_id('Transfer', packed_id(''))").has_value());
    CHECK_FALSE(text_of(session, "SELECT typed_id('Transfer', packed_id(NULL))").has_value());
    if (database.backend() == database_backend::sqlite) {
        long long length = 0;
        session << "SELECT length(packed_id('" + id + "'))", soci::into(length);
        CHECK(length == 16);
    }
    // Packed ids sort as their texts do (uuid v7: by time), so ranges of them stay ranges.
    int ordered = 0;
    session << "SELECT CASE WHEN packed_id('Transfer:0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b') < "
               "packed_id('Transfer:0190a1b3-0000-7000-8000-000000000000') THEN 1 ELSE 0 END",
        soci::into(ordered);
    CHECK(ordered == 1);
    CHECK_THROWS_AS(text_of(session, "SELECT typed_id('Transfer', packed_id('Transfer:nope'))"),
                    soci::soci_error);
    // The C++ side agrees with the SQL functions.
    unsigned char bytes[16];
    REQUIRE(pack_id(id, bytes));
    CHECK(unpack_id("Transfer", bytes) == id);
    CHECK_FALSE(pack_id("Transfer:0190a1b2", bytes));
}

TEST_CASE("accounts get keys of their own on every path that opens them", "[store][ids]") {
    testing::store_fixture f;
    book_services book{f.ids, f.random, f.clock};
    tenant owner{f.make_platform("keys.example"), environment::sandbox};
    long long before = 0;
    f.session() << "SELECT COUNT(*) FROM ledger_accounts", soci::into(before);
    std::set<long long> keys;
    auto keep = [&](const std::string& account_id) {
        long long key = key_of(f.session(), account_id);
        CHECK(key > 0);
        CHECK(keys.insert(key).second);
        return key;
    };
    long long first =
        keep(ensure_account(f.session(), book, owner, account_kind::liquidity, "", "USD"));
    // An account found again keeps its key.
    CHECK(key_of(f.session(), ensure_account(f.session(), book, owner, account_kind::liquidity, "",
                                             "USD")) == first);
    keep(ensure_account(f.session(), book, owner, account_kind::fees, "", "USD"));
    open_new_customer_accounts(f.session(), book, owner, "Customer:one", {"USD", "EUR"});
    const std::string second = "Customer:two", third = "Customer:three";
    const std::vector<std::string> currencies = {"USD", "EUR", "BRL"};
    {
        // The bulk path: many customers' accounts in one statement.
        write_transaction transaction(f.session());
        open_new_customers_accounts(f.session(), book, owner,
                                    {{&second, &currencies}, {&third, &currencies}});
        transaction.commit();
    }
    long long accounts = 0, distinct = 0, largest = 0;
    f.session() << "SELECT COUNT(*), COUNT(DISTINCT account_key), MAX(account_key) FROM "
                   "ledger_accounts",
        soci::into(accounts), soci::into(distinct), soci::into(largest);
    CHECK(accounts == before + 2 + 2 + 6);
    CHECK(distinct == accounts);  // none NULL, none shared
    // A later account takes a key above every key given before.
    long long later = key_of(
        f.session(), ensure_account(f.session(), book, owner, account_kind::settlement, "", "USD"));
    CHECK(later > largest);
}
