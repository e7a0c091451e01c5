// Schema migrations: applied once, recorded, reported, and safe when several processes start
// together (each with its own connection), which is how a PostgreSQL deployment boots.
#include "ledger/store/migrations.hpp"

#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "ledger/book/audit.hpp"
#include "ledger/payments/payment_rows.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/event_payloads.hpp"
#include "tests/support/test_database.hpp"

using namespace corridor;
using corridor::testing::schema;
using corridor::testing::test_database;

namespace {

int count_of(soci::session& session, const std::string& sql) {
    int count = -1;
    session << sql, soci::into(count);
    return count;
}

}  // namespace

TEST_CASE("migrations apply once and report their version", "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    REQUIRE(latest_migration_version() >= 1);
    CHECK(applied_migration_version(session) == 0);

    // Numbers are reserved per change, so the list may have gaps: count, don't compare to the last.
    int applied = apply_migrations(session);
    CHECK(applied == migration_count());
    CHECK(applied_migration_version(session) == latest_migration_version());
    CHECK(count_of(session, "SELECT COUNT(*) FROM schema_migrations") == migration_count());
    // The schema is there: every table of migration 1 can be read.
    for (const char* table : {"platforms", "platform_configs", "tokens", "customers"}) {
        INFO(table);
        CHECK(count_of(session, std::string("SELECT COUNT(*) FROM ") + table) == 0);
    }

    // A second run, from the same or a new connection, changes nothing.
    CHECK(apply_migrations(session) == 0);
    auto another = database.open_another();
    CHECK(apply_migrations(*another) == 0);
    CHECK(applied_migration_version(*another) == latest_migration_version());
    CHECK(count_of(session, "SELECT COUNT(*) FROM schema_migrations") == migration_count());
}

TEST_CASE("migrations keep data written between runs", "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations(session);
    session
        << "INSERT INTO platforms (id, name, is_regulated, created_at_ms) VALUES ('p', 'n', 0, 1)";
    CHECK(apply_migrations(session) == 0);
    CHECK(count_of(session, "SELECT COUNT(*) FROM platforms") == 1);
}

TEST_CASE("processes starting together migrate once without errors", "[store][migrations]") {
    // Four connections run apply_migrations at the same moment on an empty database; exactly one
    // applies each migration and none fails.
    for (int round = 0; round < 5; ++round) {
        INFO("round " << round);
        test_database database(schema::empty);
        constexpr int processes = 4;
        std::vector<session_ptr> sessions;
        for (int i = 0; i < processes; ++i) sessions.push_back(database.open_another());
        std::atomic<int> applied{0};
        std::atomic<int> ready{0};
        std::vector<std::string> errors(processes);
        std::vector<std::thread> threads;
        for (int i = 0; i < processes; ++i) {
            threads.emplace_back([&, i] {
                ++ready;
                while (ready.load() < processes) std::this_thread::yield();
                try {
                    applied += apply_migrations(*sessions[i]);
                } catch (const std::exception& error) {
                    errors[i] = error.what();
                }
            });
        }
        for (auto& thread : threads) thread.join();
        for (const auto& error : errors) CHECK(error == "");
        CHECK(applied.load() == migration_count());
        CHECK(applied_migration_version(database.session()) == latest_migration_version());
    }
}

TEST_CASE("schema status reads pending migrations without writing anything",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    auto fresh = read_schema_status(session);
    CHECK(fresh.database_version == 0);
    CHECK(fresh.binary_version == latest_migration_version());
    CHECK(static_cast<int>(fresh.pending.size()) == migration_count());
    CHECK(fresh.pending.back().version == latest_migration_version());
    CHECK_FALSE(fresh.current());
    // Looking created nothing, not even the migrations table.
    CHECK(read_schema_status(session).pending.size() == fresh.pending.size());
    CHECK_THROWS_AS(require_current_schema(session), schema_not_migrated);
    apply_migrations(session);
    CHECK(read_schema_status(session).current());
    CHECK_NOTHROW(require_current_schema(session));

    // One migration unrecorded: it alone is pending, and a process that must not migrate refuses.
    int latest = latest_migration_version();
    session << "DELETE FROM schema_migrations WHERE version = :v", soci::use(latest);
    auto behind = read_schema_status(session);
    REQUIRE(behind.pending.size() == 1);
    CHECK(behind.pending[0].version == latest);
    CHECK(behind.database_version < latest);
    try {
        require_current_schema(session);
        FAIL("a pending migration must be refused");
    } catch (const schema_not_migrated& error) {
        CHECK_THAT(error.what(), Catch::Contains("needs version " + std::to_string(latest)));
    }
}

TEST_CASE("a database newer than the binary is refused, naming both versions, before any change",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations(session);
    int latest = latest_migration_version();
    int newer = latest + 5;
    session
        << "INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (:v, 'later', 1)",
        soci::use(newer);
    // And one of this binary's own migrations unrecorded: nothing of it may be applied either.
    session << "DELETE FROM schema_migrations WHERE version = :v", soci::use(latest);
    auto status = read_schema_status(session);
    CHECK(status.newer_than_binary());
    CHECK(status.database_version == newer);
    CHECK(status.unknown == std::vector<int>{newer});
    std::string expected = "schema (version " + std::to_string(newer) +
                           ") is newer than this binary (schema version " + std::to_string(latest) +
                           ")";
    CHECK_THAT(newer_schema_message(status), Catch::Contains(expected));
    try {
        apply_migrations(session);
        FAIL("a newer database must be refused");
    } catch (const schema_newer_than_binary& error) {
        CHECK_THAT(error.what(), Catch::Contains(expected));
    }
    CHECK_THROWS_AS(require_current_schema(session), schema_newer_than_binary);
    CHECK(count_of(session, "SELECT COUNT(*) FROM schema_migrations WHERE version = " +
                                std::to_string(latest)) == 0);
}

TEST_CASE("migration 20 reports addresses held in both environments and keeps production's",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 19);
    session
        << "INSERT INTO platforms (id, name, is_regulated, created_at_ms) VALUES ('p', 'n', 0, 1)";
    auto customer = [&](const std::string& id, const std::string& env, const std::string& address,
                        int deleted) {
        session
            << "INSERT INTO customers (id, platform_id, environment, platform_customer_id, "
               "customer_type, uma_address, kyc_status, is_deleted, created_at_ms, "
               "updated_at_ms) VALUES (:i, 'p', :e, :i2, 'INDIVIDUAL', :a, 'APPROVED', :d, 1, 1)",
            soci::use(id), soci::use(env), soci::use(id), soci::use(address), soci::use(deleted);
    };
    customer("Customer:live", "production", "$dup@d.example", 0);
    customer("Customer:test", "sandbox", "$dup@d.example", 0);
    customer("Customer:alone", "sandbox", "$alone@d.example", 0);
    customer("Customer:gone", "production", "$was@d.example", 1);
    customer("Customer:kept", "sandbox", "$was@d.example", 0);

    std::ostringstream captured;
    auto* previous = std::cerr.rdbuf(captured.rdbuf());
    int applied = 0;
    try {
        applied = apply_migrations(session);
    } catch (...) {
        std::cerr.rdbuf(previous);
        throw;
    }
    std::cerr.rdbuf(previous);
    CHECK(applied == migration_count() - count_of(session,
                                                  "SELECT COUNT(*) FROM schema_migrations "
                                                  "WHERE version <= 19"));
    // Only the sandbox twin of a live production address is shadowed, and only it is reported.
    CHECK(count_of(session, "SELECT COUNT(*) FROM customers WHERE uma_address_shadowed = 1") == 1);
    CHECK(count_of(session,
                   "SELECT uma_address_shadowed FROM customers WHERE id = "
                   "'Customer:test'") == 1);
    CHECK(count_of(session, "SELECT COUNT(*) FROM schema_migration_notes WHERE version = 20") == 1);
    std::string note;
    session << "SELECT note FROM schema_migration_notes", soci::into(note);
    CHECK(note.find("$dup@d.example") != std::string::npos);
    CHECK(note.find("Customer:test") != std::string::npos);
    CHECK(captured.str().find("migration 20: UMA address $dup@d.example") != std::string::npos);
    CHECK(captured.str().find("$alone") == std::string::npos);

    // From now on an address has one live owner across both environments, whatever the writer.
    bool refused = false;
    try {
        customer("Customer:copy", "sandbox", "$alone@d.example", 0);
    } catch (const soci::soci_error& error) {
        refused = is_unique_violation(error);
    }
    CHECK(refused);
}

TEST_CASE("migration 33 keeps every quote and the expiry index holds only PENDING ones",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 32);
    session
        << "INSERT INTO platforms (id, name, is_regulated, created_at_ms) VALUES ('p', 'n', 0, 1)";
    for (const char* status : {"PENDING", "COMPLETED", "EXPIRED"}) {
        std::string id = std::string("Quote:") + status, state = status,
                    transaction = "Transaction:" + id, reference = "REF" + state;
        session << "INSERT INTO quotes (id, platform_id, environment, status, source_type, "
                   "source_account_id, source_customer_id, destination_type, "
                   "destination_account_id, destination_customer_id, sending_currency, "
                   "receiving_currency, locked_side, locked_amount, total_sending, net_sending, "
                   "total_receiving, fees_included, exchange_rate, counterparty_multiplier, "
                   "service_multiplier, variable_fee_rate, counterparty_fixed_fee, "
                   "service_fixed_fee, variable_fee_amount, purpose_of_payment, description, "
                   "transaction_id, funding_reference, payment_instructions, created_at_ms, "
                   "expires_at_ms, updated_at_ms) VALUES (:i, 'p', 'sandbox', :s, 'ACCOUNT', 'a', "
                   "'c', 'ACCOUNT', 'b', 'c', 'USD', 'EUR', 'SENDING', 1, 1, 1, 1, 0, '1', '1', "
                   "'1', '0', 0, 0, 0, '', '', :t, :f, '[]', 1, 10, 1)",
            soci::use(id), soci::use(state), soci::use(transaction), soci::use(reference);
    }
    CHECK(apply_migrations_up_to(session, 33) == 1);
    CHECK(count_of(session, "SELECT COUNT(*) FROM quotes") == 3);
    // The sweep's own predicate finds the expired PENDING quote alone.
    std::string due;
    session << "SELECT id FROM quotes WHERE status = 'PENDING' AND expires_at_ms <= 20 ORDER BY "
               "expires_at_ms LIMIT 10",
        soci::into(due);
    CHECK(due == "Quote:PENDING");
    std::string definition;
    if (backend_of(session) == database_backend::postgresql) {
        session << "SELECT indexdef FROM pg_indexes WHERE indexname = 'quotes_pending_expiry'",
            soci::into(definition);
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM pg_indexes WHERE indexname = "
                       "'transactions_by_quote'") == 0);
    } else {
        session << "SELECT sql FROM sqlite_master WHERE name = 'quotes_pending_expiry'",
            soci::into(definition);
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM sqlite_master WHERE name = "
                       "'transactions_by_quote'") == 0);
        // Only the PENDING quote has an entry in the partial index.
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM quotes INDEXED BY quotes_pending_expiry "
                       "WHERE status = 'PENDING' AND expires_at_ms > 0") == 1);
    }
    CHECK_THAT(definition, Catch::Contains("WHERE"));
    CHECK_THAT(definition, Catch::Contains("PENDING"));
}

// Migration 34 reorders the unique index of accounts by owner so that a new customer's accounts go
// to its right end: the same accounts stay, and the same accounts are refused as duplicates.
TEST_CASE("migration 34 leads the accounts' owner index with the owner and keeps its uniqueness",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 33);
    session << "INSERT INTO platforms (id, name, is_regulated, created_at_ms) VALUES ('p', 'n', 0, "
               "1)";
    auto insert = [&](const std::string& id, const std::string& kind, const std::string& owner,
                      const std::string& reference, const std::string& conflict) {
        session << "INSERT INTO ledger_accounts (id, platform_id, environment, kind, owner_id, "
                   "currency, reference, must_not_overdraw, debits_posted, credits_posted, "
                   "created_at_ms, updated_at_ms) VALUES (:i, 'p', 'sandbox', :k, :o, 'USD', :r, "
                   "0, 0, 0, 1, 1)" +
                       conflict,
            soci::use(id), soci::use(kind), soci::use(owner), soci::use(reference);
    };
    insert("InternalAccount:1", "CUSTOMER", "Customer:1", "CR1", "");
    insert("ServiceAccount:1", "LIQUIDITY", "", "CR2", "");
    CHECK(apply_migrations_up_to(session, 34) == 1);
    CHECK(count_of(session, "SELECT COUNT(*) FROM ledger_accounts") == 2);

    std::string definition;
    if (database.backend() == database_backend::postgresql) {
        session << "SELECT indexdef FROM pg_indexes WHERE indexname = 'ledger_accounts_owner'",
            soci::into(definition);
    } else {
        session << "SELECT sql FROM sqlite_master WHERE name = 'ledger_accounts_owner'",
            soci::into(definition);
    }
    CHECK_THAT(definition, Catch::Contains("UNIQUE"));
    CHECK_THAT(definition, Catch::Contains("(owner_id, currency, kind, platform_id, environment)"));

    // A second account of the same owner, kind and currency is refused, before and after.
    for (const auto& [id, kind, owner] : {std::tuple{"InternalAccount:2", "CUSTOMER", "Customer:1"},
                                          std::tuple{"ServiceAccount:2", "LIQUIDITY", ""}}) {
        bool refused = false;
        try {
            insert(id, kind, owner, std::string("CR-") + id, "");
        } catch (const soci::soci_error& error) {
            refused = is_unique_violation(error);
        }
        CHECK(refused);
        // ensure_account's INSERT names the same columns as its conflict target: nothing added.
        insert(id, kind, owner, std::string("CR-") + id,
               " ON CONFLICT (platform_id, environment, kind, owner_id, currency) DO NOTHING");
    }
    CHECK(count_of(session, "SELECT COUNT(*) FROM ledger_accounts") == 2);
    // Another currency, kind or owner is another account.
    insert("InternalAccount:3", "CUSTOMER", "Customer:2", "CR3", "");
    insert("InternalAccount:4", "PLATFORM", "", "CR4", "");
    CHECK(count_of(session, "SELECT COUNT(*) FROM ledger_accounts") == 4);
}

namespace {

// The plan's lines: SQLite's EXPLAIN QUERY PLAN details, or PostgreSQL's EXPLAIN text.
std::string plan_text(test_database& database, const std::string& sql) {
    bool sqlite = database.backend() == database_backend::sqlite;
    soci::rowset<soci::row> rows = database.session().prepare
                                   << (sqlite ? "EXPLAIN QUERY PLAN " : "EXPLAIN ") + sql;
    std::string plan;
    for (const auto& row : rows) plan += row.get<std::string>(row.size() - 1) + "\n";
    return plan;
}

}  // namespace

TEST_CASE("migration 42 indexes accounts by owner or by tenant and keeps their uniqueness",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 41);
    session << "INSERT INTO platforms (id, name, is_regulated, created_at_ms) VALUES ('p', 'n', 0, "
               "1)";
    session << "INSERT INTO platforms (id, name, is_regulated, created_at_ms) VALUES ('q', 'n', 0, "
               "1)";
    auto insert = [&](const std::string& id, const std::string& platform, const std::string& kind,
                      const std::string& owner, const std::string& currency,
                      const std::string& conflict) {
        std::string reference = "CR-" + id;
        soci::statement statement =
            (session.prepare << "INSERT INTO ledger_accounts (id, platform_id, environment, kind, "
                                "owner_id, currency, reference, must_not_overdraw, debits_posted, "
                                "credits_posted, created_at_ms, updated_at_ms) VALUES (:i, :p, "
                                "'sandbox', :k, :o, :c, :r, 0, 0, 0, 1, 1)" +
                                    conflict,
             soci::use(id), soci::use(platform), soci::use(kind), soci::use(owner),
             soci::use(currency), soci::use(reference));
        statement.execute(true);
        return statement.get_affected_rows();
    };
    insert("InternalAccount:1", "p", "CUSTOMER", "Customer:1", "USD", "");
    insert("ServiceAccount:1", "p", "LIQUIDITY", "", "USD", "");
    CHECK(apply_migrations_up_to(session, 42) == 1);
    CHECK(count_of(session, "SELECT COUNT(*) FROM ledger_accounts") == 2);

    const std::string customer_target =
        " ON CONFLICT (owner_id, currency) WHERE owner_id <> '' DO NOTHING";
    const std::string service_target =
        " ON CONFLICT (platform_id, environment, kind, currency) WHERE owner_id = '' DO NOTHING";
    // A second account of the same owner and currency, or of the same tenant, kind and currency
    // for a service account, is refused; with ensure_account's conflict targets, skipped.
    for (const auto& [id, kind, owner, target] :
         {std::tuple{"InternalAccount:2", "CUSTOMER", "Customer:1", customer_target},
          std::tuple{"ServiceAccount:2", "LIQUIDITY", "", service_target}}) {
        bool refused = false;
        try {
            insert(id, "p", kind, owner, "USD", "");
        } catch (const soci::soci_error& error) {
            refused = is_unique_violation(error);
        }
        CHECK(refused);
        CHECK(insert(std::string(id) + "b", "p", kind, owner, "USD", target) == 0);
    }
    CHECK(count_of(session, "SELECT COUNT(*) FROM ledger_accounts") == 2);
    // Another currency, owner, kind or tenant is another account.
    CHECK(insert("InternalAccount:3", "p", "CUSTOMER", "Customer:1", "EUR", customer_target) == 1);
    CHECK(insert("InternalAccount:4", "p", "CUSTOMER", "Customer:2", "USD", customer_target) == 1);
    CHECK(insert("ServiceAccount:3", "p", "FEES", "", "USD", service_target) == 1);
    CHECK(insert("ServiceAccount:4", "q", "LIQUIDITY", "", "USD", service_target) == 1);
    CHECK(count_of(session, "SELECT COUNT(*) FROM ledger_accounts") == 6);

    // ensure_account's lookups name their index's predicate, so that each is planned on its index
    // even as a generic plan (on PostgreSQL, with parameters the planner cannot see).
    const std::string lookup =
        "SELECT id FROM ledger_accounts WHERE platform_id = {p} AND environment = {e} AND kind = "
        "{k} AND owner_id = {o} AND currency = {c} AND ";
    auto plan_of_lookup = [&](const std::string& predicate, const std::string& kind,
                              const std::string& owner) {
        std::string sql = lookup + predicate;
        bool postgres = database.backend() == database_backend::postgresql;
        std::vector<std::pair<std::string, std::string>> values = {
            {"{p}", postgres ? "$1" : "'p'"},
            {"{e}", postgres ? "$2" : "'sandbox'"},
            {"{k}", postgres ? "$3" : "'" + kind + "'"},
            {"{o}", postgres ? "$4" : "'" + owner + "'"},
            {"{c}", postgres ? "$5" : "'USD'"}};
        for (const auto& [name, value] : values) sql.replace(sql.find(name), name.size(), value);
        if (!postgres) return plan_text(database, sql);
        // A table this small is read whole whatever its indexes: only the index choice is tested.
        session << "SET enable_seqscan = off";
        session << "SET plan_cache_mode = force_generic_plan";
        session << "PREPARE account_lookup (text, text, text, text, text) AS " + sql;
        std::string plan = plan_text(database, "EXECUTE account_lookup('p', 'sandbox', '" + kind +
                                                   "', '" + owner + "', 'USD')");
        session << "DEALLOCATE account_lookup";
        return plan;
    };
    CHECK_THAT(plan_of_lookup("owner_id <> ''", "CUSTOMER", "Customer:1"),
               Catch::Contains("ledger_accounts_owner"));
    CHECK_THAT(plan_of_lookup("owner_id = ''", "LIQUIDITY", ""),
               Catch::Contains("ledger_accounts_service"));
}

namespace {

void insert_platform(soci::session& session, const std::string& id) {
    session
        << "INSERT INTO platforms (id, name, is_regulated, created_at_ms) VALUES (:i, 'n', 0, 1)",
        soci::use(id);
}

// An INSERT of customer accounts for the platforms listed, one statement for all of them (as a
// bulk import writes them).
void insert_accounts(soci::session& session, const std::vector<std::string>& platforms) {
    std::string sql =
        "INSERT INTO ledger_accounts (id, platform_id, environment, kind, owner_id, currency, "
        "reference, must_not_overdraw, debits_posted, credits_posted, created_at_ms, "
        "updated_at_ms) VALUES ";
    for (std::size_t i = 0; i < platforms.size(); ++i) {
        std::string n = std::to_string(count_of(session, "SELECT COUNT(*) FROM ledger_accounts")) +
                        "-" + std::to_string(i);
        sql += std::string(i ? ", " : "") + "('InternalAccount:" + n + "', '" + platforms[i] +
               "', 'sandbox', 'CUSTOMER', 'Customer:" + n + "', 'USD', 'REF" + n +
               "', 1, 0, 0, 1, 1)";
    }
    session << sql;
}

void insert_customer(soci::session& session, const std::string& id, const std::string& platform) {
    std::string address = "$" + id + "@example.com";
    session << "INSERT INTO customers (id, platform_id, environment, platform_customer_id, "
               "customer_type, uma_address, kyc_status, is_deleted, created_at_ms, updated_at_ms) "
               "VALUES (:i, :p, 'sandbox', :c, 'INDIVIDUAL', :u, 'APPROVED', 0, 1, 1)",
        soci::use(id), soci::use(platform), soci::use(id), soci::use(address);
}

}  // namespace

// Migration 37 moves PostgreSQL's check that customers and accounts name an existing platform from
// one query per row (the foreign key) to one per statement (triggers); SQLite keeps the foreign
// key. Either way the same rows are refused.
TEST_CASE("customers and accounts name existing platforms, and a named platform stays",
          "[store][migrations]") {
    test_database database;
    soci::session& session = database.session();
    insert_platform(session, "Platform:p");
    insert_platform(session, "Platform:q");
    if (database.backend() == database_backend::postgresql) {
        // The per-row checks are gone: the statement-level triggers stand for them.
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM pg_constraint WHERE conname IN "
                       "('customers_platform_id_fkey', 'ledger_accounts_platform_id_fkey')") == 0);
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM pg_trigger WHERE tgname IN "
                       "('customers_platform_check', 'ledger_accounts_platform_check')") == 2);
    }

    CHECK_THROWS(insert_customer(session, "Customer:1", "Platform:missing"));
    insert_customer(session, "Customer:2", "Platform:p");
    // One row naming a missing platform refuses the whole statement, whatever its place.
    CHECK_THROWS(insert_accounts(session, {"Platform:p", "Platform:missing", "Platform:q"}));
    CHECK(count_of(session, "SELECT COUNT(*) FROM ledger_accounts") == 0);
    insert_accounts(session, {"Platform:p", "Platform:p", "Platform:q"});
    CHECK(count_of(session, "SELECT COUNT(*) FROM ledger_accounts") == 3);
    CHECK_THROWS(session << "UPDATE ledger_accounts SET platform_id = 'Platform:missing' WHERE "
                            "platform_id = 'Platform:q'");
    CHECK_THROWS(session << "UPDATE customers SET platform_id = 'Platform:missing'");
    // Balance updates, which never set platform_id, run as before.
    session << "UPDATE ledger_accounts SET credits_posted = credits_posted + 1";
    CHECK(count_of(session, "SELECT COUNT(*) FROM ledger_accounts WHERE credits_posted = 1") == 3);

    // A platform that accounts or customers name is neither deleted nor renamed.
    CHECK_THROWS(session << "DELETE FROM platforms WHERE id = 'Platform:q'");
    CHECK_THROWS(session << "UPDATE platforms SET id = 'Platform:r' WHERE id = 'Platform:q'");
    CHECK_THROWS(session << "DELETE FROM platforms WHERE id = 'Platform:p'");
    session << "DELETE FROM ledger_accounts WHERE platform_id = 'Platform:q'";
    session << "DELETE FROM platforms WHERE id = 'Platform:q'";
    session << "DELETE FROM ledger_accounts";
    CHECK_THROWS(session << "DELETE FROM platforms WHERE id = 'Platform:p'");  // its customer
    session << "DELETE FROM customers";
    session << "DELETE FROM platforms WHERE id = 'Platform:p'";
    CHECK(count_of(session, "SELECT COUNT(*) FROM platforms") == 0);
}

// The lock the foreign key's check took, the statement's trigger takes too: a platform named by
// accounts another transaction has written but not committed cannot be deleted in between. On
// PostgreSQL the delete waits for that transaction and then finds its accounts; on SQLite it
// cannot start until the other transaction ends.
TEST_CASE("a platform named by uncommitted accounts is not deleted under them",
          "[store][migrations]") {
    test_database database;
    insert_platform(database.session(), "Platform:q");
    auto other = database.open_another();
    auto deleter = database.open_another();
    write_transaction holding(*other);
    insert_accounts(*other, {"Platform:q", "Platform:q"});
    std::atomic<bool> refused{false}, done{false};
    std::thread deleting([&] {
        try {
            *deleter << "DELETE FROM platforms WHERE id = 'Platform:q'";
        } catch (const soci::soci_error&) {
            refused = true;
        }
        done = true;
    });
    if (database.backend() == database_backend::postgresql) {
        auto watcher = database.open_another();
        int waiting = 0;
        for (int i = 0; i < 1000 && waiting == 0; ++i) {
            *watcher << "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = "
                        "current_database() AND wait_event_type = 'Lock'",
                soci::into(waiting);
            if (waiting == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        CHECK(waiting > 0);  // the delete waits on the platform's lock
    } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    CHECK_FALSE(done);
    holding.commit();
    deleting.join();
    CHECK(refused);
    CHECK(count_of(database.session(), "SELECT COUNT(*) FROM platforms WHERE id = 'Platform:q'") ==
          1);
    CHECK(count_of(database.session(),
                   "SELECT COUNT(*) FROM ledger_accounts WHERE platform_id = 'Platform:q'") == 2);
}

// Migration 38 stores webhook payloads as bytes: PostgreSQL's column becomes a BYTEA and every row
// is converted; SQLite keeps its rows as they were written. Either way every event reads back the
// JSON it was recorded with.
TEST_CASE("migration 38 keeps every webhook payload as it was recorded", "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 37);
    insert_platform(session, "Platform:w");
    const std::string json =
        R"({"transaction":{"id":"Transaction:x","description":"caf\u00e9 \\ €"}})";
    // The two forms rows had before: "z1:" and base64 (versions 32 to 37), the JSON (before 32).
    // A frame of format z1, as versions 32 to 37 made them: the raw-content dictionary.
    std::string frame(ZSTD_compressBound(json.size()), '\0');
    ZSTD_CCtx* context = ZSTD_createCCtx();
    std::size_t frame_size = ZSTD_compress_usingDict(
        context, frame.data(), frame.size(), json.data(), json.size(),
        event_payload_dictionary().data(), event_payload_dictionary().size(), 3);
    ZSTD_freeCCtx(context);
    REQUIRE_FALSE(ZSTD_isError(frame_size));
    frame.resize(frame_size);
    const std::vector<std::pair<std::string, std::string>> rows = {
        {"Webhook:base64", "z1:" + event_payload_base64(frame)}, {"Webhook:json", json}};
    for (const auto& [id, stored] : rows) {
        session << "INSERT INTO outbox_events (id, platform_id, environment, type, payload, state, "
                   "attempts, next_attempt_at_ms, created_at_ms) VALUES (:i, 'Platform:w', "
                   "'sandbox', 'OUTGOING_PAYMENT', :b, 'PENDING', 0, 1, 1)",
            soci::use(id), soci::use(stored);
    }
    CHECK(apply_migrations_up_to(session, 38) == 1);
    CHECK(count_of(session, "SELECT COUNT(*) FROM outbox_events") == 2);
    for (const auto& [id, stored] : rows) {
        std::string read;
        session << "SELECT payload FROM outbox_events WHERE id = :i", soci::use(id),
            soci::into(read);
        CHECK(unpack_event_payload(read) == json);
    }
    if (database.backend() == database_backend::postgresql) {
        std::string type;
        session << "SELECT data_type FROM information_schema.columns WHERE table_name = "
                   "'outbox_events' AND column_name = 'payload'",
            soci::into(type);
        CHECK(type == "bytea");
        // The base64 row is now the frame's bytes, a quarter smaller than its text was.
        CHECK(count_of(session,
                       "SELECT length(payload) FROM outbox_events WHERE id = "
                       "'Webhook:base64'") == static_cast<int>(frame.size()));
    }
}

namespace {

void insert_account(soci::session& session, const std::string& id, const std::string& platform,
                    long long debits, long long credits) {
    session << "INSERT INTO ledger_accounts (id, platform_id, environment, kind, owner_id, "
               "currency, reference, must_not_overdraw, debits_posted, credits_posted, "
               "created_at_ms, updated_at_ms) VALUES (:i, :p, 'sandbox', 'CUSTOMER', :o, 'USD', "
               ":r, 0, :d, :c, 1, 1)",
        soci::use(id), soci::use(platform), soci::use(id), soci::use(id), soci::use(debits),
        soci::use(credits);
}

}  // namespace

// Migration 39 drops the tenant columns of ledger_transfers (a transfer's tenant is its
// accounts'): every transfer stays, and the auditor still finds a transfer between two tenants.
TEST_CASE("migration 39 keeps every transfer and the auditor checks tenants by the accounts",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 38);
    insert_platform(session, "Platform:one");
    insert_platform(session, "Platform:two");
    insert_account(session, "InternalAccount:a", "Platform:one", 12, 0);
    insert_account(session, "InternalAccount:b", "Platform:one", 0, 5);
    insert_account(session, "InternalAccount:c", "Platform:two", 0, 7);
    for (auto [id, credit, amount] : {std::tuple{"Transfer:same", "InternalAccount:b", 5},
                                      std::tuple{"Transfer:across", "InternalAccount:c", 7}}) {
        std::string transfer = id, to = credit;
        session << "INSERT INTO ledger_transfers (id, platform_id, environment, debit_account_id, "
                   "credit_account_id, amount, currency, code, transaction_id, created_at_ms) "
                   "VALUES (:i, 'Platform:one', 'sandbox', 'InternalAccount:a', :c, :a, 'USD', "
                   "'send', 'Transaction:t', 1)",
            soci::use(transfer), soci::use(to), soci::use(amount);
    }
    CHECK(apply_migrations_up_to(session, 39) == 1);
    CHECK(count_of(session,
                   "SELECT COUNT(*) FROM ledger_transfers WHERE transaction_id = "
                   "'Transaction:t' AND debit_account_id = 'InternalAccount:a'") == 2);
    CHECK(count_of(session, "SELECT CAST(SUM(amount) AS INTEGER) FROM ledger_transfers") == 12);
    CHECK_THROWS_AS(count_of(session, "SELECT COUNT(platform_id) FROM ledger_transfers"),
                    soci::soci_error);
    if (database.backend() == database_backend::sqlite) {
        // Rebuilt without a rowid: the rows are the primary key's b-tree, no index beside it.
        std::string definition;
        session << "SELECT sql FROM sqlite_master WHERE name = 'ledger_transfers'",
            soci::into(definition);
        CHECK_THAT(definition, Catch::Contains("WITHOUT ROWID"));
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM sqlite_master WHERE tbl_name = "
                       "'ledger_transfers' AND type = 'index'") == 0);
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM ledger_transfers WHERE id = "
                       "'Transfer:across' AND amount = 7 AND created_at_ms = 1") == 1);
        // Its checks hold as before.
        CHECK_THROWS_AS(
            session << "INSERT INTO ledger_transfers (id, debit_account_id, credit_account_id, "
                       "amount, currency, code, created_at_ms) VALUES ('Transfer:zero', "
                       "'InternalAccount:a', 'InternalAccount:b', 0, 'USD', 'send', 1)",
            soci::soci_error);
        CHECK_THROWS_AS(
            session << "INSERT INTO ledger_transfers (id, debit_account_id, credit_account_id, "
                       "amount, currency, code, created_at_ms) VALUES ('Transfer:same', "
                       "'InternalAccount:a', 'InternalAccount:b', 1, 'USD', 'send', 1)",
            soci::soci_error);
    }
    // The auditor reads the latest schema: its tenant check on upgraded rows is in migration 46's
    // case.
}

// Migration 46 names a transfer's accounts by their keys and stores its ids as 16 bytes: every
// transfer keeps its accounts, amount, code and transaction, each account gets a distinct key,
// and the auditor (reading through the keys) still balances the book and finds a transfer between
// two tenants.
TEST_CASE("migration 46 keeps every transfer with its accounts, amount, code and transaction",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 45);  // the schema before 46 (44 and 45 change other tables)
    insert_platform(session, "Platform:one");
    insert_platform(session, "Platform:two");
    insert_account(session, "InternalAccount:a", "Platform:one", 12, 0);
    insert_account(session, "InternalAccount:b", "Platform:one", 1, 5);
    insert_account(session, "InternalAccount:c", "Platform:two", 0, 8);
    const std::string uuid = "0190a000-0000-7000-8000-0000000000";
    const std::string transaction = "Transaction:" + uuid + "aa";
    struct old_transfer {
        std::string id, debit, credit;
        int amount;
        std::string code, transaction;
    };
    const std::vector<old_transfer> transfers = {
        {"Transfer:" + uuid + "01", "InternalAccount:a", "InternalAccount:b", 5, "send",
         transaction},
        {"Transfer:" + uuid + "02", "InternalAccount:a", "InternalAccount:c", 7, "receive",
         transaction},
        {"Transfer:" + uuid + "03", "InternalAccount:b", "InternalAccount:c", 1, "fee", ""}};
    for (const auto& t : transfers) {
        session << "INSERT INTO ledger_transfers (id, debit_account_id, credit_account_id, amount, "
                   "currency, code, transaction_id, created_at_ms) VALUES (:i, :d, :c, :a, 'USD', "
                   ":k, :x, 1)",
            soci::use(t.id), soci::use(t.debit), soci::use(t.credit), soci::use(t.amount),
            soci::use(t.code), soci::use(t.transaction);
    }
    CHECK(apply_migrations(session) >= 1);
    CHECK(count_of(session, "SELECT COUNT(DISTINCT account_key) FROM ledger_accounts") == 3);
    CHECK(count_of(session, "SELECT COUNT(*) FROM ledger_accounts WHERE account_key IS NULL") == 0);
    std::vector<old_transfer> kept;
    {
        old_transfer row;
        std::string transaction_id;
        soci::indicator transaction_found = soci::i_null;
        soci::statement select =
            (session.prepare << "SELECT typed_id('Transfer', t.id), d.id, c.id, t.amount, t.code, "
                                "typed_id('Transaction', t.transaction_id) FROM ledger_transfers t "
                                "JOIN ledger_accounts d ON d.account_key = t.debit_account_key "
                                "JOIN ledger_accounts c ON c.account_key = t.credit_account_key "
                                "ORDER BY t.id",
             soci::into(row.id), soci::into(row.debit), soci::into(row.credit),
             soci::into(row.amount), soci::into(row.code),
             soci::into(transaction_id, transaction_found));
        select.execute(false);
        while (select.fetch()) {
            row.transaction = transaction_found == soci::i_ok ? transaction_id : "";
            kept.push_back(row);
        }
    }
    REQUIRE(kept.size() == transfers.size());
    for (std::size_t i = 0; i < kept.size(); ++i) {
        CHECK(kept[i].id == transfers[i].id);
        CHECK(kept[i].debit == transfers[i].debit);
        CHECK(kept[i].credit == transfers[i].credit);
        CHECK(kept[i].amount == transfers[i].amount);
        CHECK(kept[i].code == transfers[i].code);
        CHECK(kept[i].transaction == transfers[i].transaction);
    }
    // A transaction's transfers found by its packed id, as the operator's view reads them.
    CHECK(count_of(session,
                   "SELECT COUNT(*) FROM ledger_transfers WHERE transaction_id = "
                   "packed_id('" +
                       transaction + "')") == 2);
    // The accounts' keys are checked references, and a transfer still moves between two.
    CHECK_THROWS_AS(
        session << "INSERT INTO ledger_transfers (id, debit_account_key, "
                   "credit_account_key, amount, currency, code, created_at_ms) VALUES "
                   "(packed_id('Transfer:" +
                       uuid +
                       "09'), 999999, (SELECT "
                       "account_key FROM ledger_accounts WHERE id = 'InternalAccount:a'), "
                       "1, 'USD', 'send', 1)",
        soci::soci_error);
    CHECK_THROWS_AS(session << "INSERT INTO ledger_transfers (id, debit_account_key, "
                               "credit_account_key, amount, currency, code, created_at_ms) SELECT "
                               "packed_id('Transfer:" +
                                   uuid +
                                   "09'), account_key, account_key, 1, "
                                   "'USD', 'send', 1 FROM ledger_accounts WHERE id = "
                                   "'InternalAccount:a'",
                    soci::soci_error);
    if (database.backend() == database_backend::sqlite) {
        // Rebuilt as migration 39 left it: without a rowid, no index beside its primary key.
        std::string definition;
        session << "SELECT sql FROM sqlite_master WHERE name = 'ledger_transfers'",
            soci::into(definition);
        CHECK_THAT(definition, Catch::Contains("WITHOUT ROWID"));
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM sqlite_master WHERE tbl_name = "
                       "'ledger_transfers' AND type = 'index'") == 0);
        CHECK(count_of(session, "SELECT COUNT(*) FROM ledger_transfers WHERE length(id) = 16") ==
              3);
    }
    audit_report report = audit_ledger(session);
    CHECK(report.transfers == 3);
    CHECK(report.accounts == 3);
    REQUIRE(report.findings.size() == 2);
    for (const auto& finding : report.findings) {
        CHECK(finding.check == "tenant_mismatch");
        CHECK_THAT(finding.message, Catch::Contains("Platform:two"));
    }
    std::set<std::string> across = {report.findings[0].transfer_id, report.findings[1].transfer_id};
    CHECK(across == std::set<std::string>{transfers[1].id, transfers[2].id});
}

namespace {

void insert_outbox_event(soci::session& session, const std::string& id, const std::string& state,
                         long long due_ms) {
    std::string payload = R"({"accountId":"a"})";
    session << "INSERT INTO outbox_events (id, platform_id, environment, type, payload, state, "
               "attempts, next_attempt_at_ms, created_at_ms) VALUES (:i, 'Platform:w', "
               "'sandbox', 'ACCOUNT_STATUS', :p, :s, 0, :n, 1)",
        soci::use(id), soci::use(payload), soci::use(state), soci::use(due_ms);
}

}  // namespace

// Migration 40 makes the outbox's due index partial: every event stays, the claims' predicate
// still finds the due ones, and finished events have no entry.
TEST_CASE("migration 40 keeps every webhook event and indexes only the PENDING ones",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 39);
    insert_platform(session, "Platform:w");
    insert_outbox_event(session, "Webhook:due", "PENDING", 5);
    insert_outbox_event(session, "Webhook:later", "PENDING", 500);
    insert_outbox_event(session, "Webhook:delivered", "DELIVERED", 3);
    insert_outbox_event(session, "Webhook:closed", "NO_ENDPOINT", 4);
    CHECK(apply_migrations_up_to(session, 40) == 1);
    CHECK(count_of(session, "SELECT COUNT(*) FROM outbox_events") == 4);
    std::string due;
    session << "SELECT id FROM outbox_events WHERE state = 'PENDING' AND next_attempt_at_ms <= 10 "
               "ORDER BY next_attempt_at_ms LIMIT 10",
        soci::into(due);
    CHECK(due == "Webhook:due");
    std::string definition;
    if (backend_of(session) == database_backend::postgresql) {
        session << "SELECT indexdef FROM pg_indexes WHERE indexname = 'outbox_events_due'",
            soci::into(definition);
    } else {
        session << "SELECT sql FROM sqlite_master WHERE name = 'outbox_events_due'",
            soci::into(definition);
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM outbox_events INDEXED BY outbox_events_due "
                       "WHERE state = 'PENDING' AND next_attempt_at_ms > 0") == 2);
    }
    CHECK_THAT(definition, Catch::Contains("WHERE"));
    CHECK_THAT(definition, Catch::Contains("PENDING"));
}

namespace {

// Every column of every outbox row, in id order, with its stored type on SQLite.
std::string outbox_dump(soci::session& session) {
    std::string dump;
    bool sqlite = backend_of(session) == database_backend::sqlite;
    std::string sql =
        sqlite ? "SELECT COALESCE(group_concat(row, '|'), '') FROM (SELECT id || ',' || "
                 "platform_id || ',' || environment || ',' || type || ',' || typeof(payload) || "
                 "':' || hex(payload) || ',' || state || ',' || attempts || ',' || "
                 "next_attempt_at_ms || ',' || created_at_ms || ',' || COALESCE(claim_token, "
                 "'-') || ',' || purpose || ',' || COALESCE(first_attempt_at_ms, -1) || ',' || "
                 "COALESCE(finished_at_ms, -1) AS row FROM outbox_events ORDER BY id)"
               : "SELECT COALESCE(string_agg(id || ',' || encode(payload, 'hex') || ',' || state, "
                 "'|' ORDER BY id), '') FROM outbox_events";
    session << sql, soci::into(dump);
    return dump;
}

}  // namespace

// Migration 41 rebuilds SQLite's outbox as a WITHOUT ROWID table: every event stays exactly as it
// was (payloads stored as text by older releases included), and the partial due index is back.
TEST_CASE("migration 41 keeps every webhook event as it was, in a table without rowid",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 40);
    insert_platform(session, "Platform:w");
    insert_outbox_event(session, "Webhook:b-due", "PENDING", 5);
    insert_outbox_event(session, "Webhook:a-delivered", "DELIVERED", 3);
    insert_outbox_event(session, "Webhook:c-later", "PENDING", 500);
    session << "UPDATE outbox_events SET claim_token = 'token', first_attempt_at_ms = 2, "
               "finished_at_ms = 3, purpose = 'TEST' WHERE id = 'Webhook:a-delivered'";
    if (database.backend() == database_backend::sqlite) {
        // A payload stored as bytes, as this release writes them.
        session << "UPDATE outbox_events SET payload = x'28b52ffd00' WHERE id = 'Webhook:c-later'";
    }
    std::string before = outbox_dump(session);
    REQUIRE(before.find("Webhook:c-later") != std::string::npos);
    CHECK(apply_migrations_up_to(session, 41) == 1);
    CHECK(outbox_dump(session) == before);
    std::string due;
    session << "SELECT id FROM outbox_events WHERE state = 'PENDING' AND next_attempt_at_ms <= 10 "
               "ORDER BY next_attempt_at_ms LIMIT 10",
        soci::into(due);
    CHECK(due == "Webhook:b-due");
    if (database.backend() == database_backend::sqlite) {
        std::string definition, index;
        session << "SELECT sql FROM sqlite_master WHERE name = 'outbox_events'",
            soci::into(definition);
        CHECK_THAT(definition, Catch::Contains("WITHOUT ROWID"));
        // One index beside the rows: the partial due index, no autoindex of the id.
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM sqlite_master WHERE tbl_name = 'outbox_events' AND "
                       "type = 'index'") == 1);
        session << "SELECT sql FROM sqlite_master WHERE name = 'outbox_events_due'",
            soci::into(index);
        CHECK_THAT(index, Catch::Contains("WHERE state = 'PENDING'"));
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM outbox_events INDEXED BY outbox_events_due "
                       "WHERE state = 'PENDING' AND next_attempt_at_ms > 0") == 2);
        // A new event still takes the default purpose.
        session << "INSERT INTO outbox_events (id, platform_id, environment, type, payload, "
                   "state, attempts, next_attempt_at_ms, created_at_ms) VALUES ('Webhook:d', "
                   "'Platform:w', 'sandbox', 'TEST', x'00', 'PENDING', 0, 1, 1)";
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM outbox_events WHERE id = 'Webhook:d' AND "
                       "purpose = 'NOTIFY'") == 1);
    }
}

namespace {

void insert_platform_config(soci::session& session, const std::string& platform,
                            const std::string& environment, int tenant_key) {
    std::string id = "PlatformConfig:" + platform + "-" + environment;
    session << "INSERT INTO platform_configs (platform_id, environment, id, uma_domain, "
               "proxy_uma_subdomain, webhook_endpoint, supported_currencies, created_at_ms, "
               "updated_at_ms, tenant_key) VALUES (:p, :e, :i, :d, :s, '', '[]', 1, 1, :k)",
        soci::use(platform), soci::use(environment), soci::use(id), soci::use(id), soci::use(id),
        soci::use(tenant_key);
}

// Every event as "id,platform,environment,state,attempts,due,claim token,purpose,payload" in id
// order, its tenant read from its columns before migration 44 and through its key after.
std::string outbox_with_tenants(soci::session& session, bool keyed) {
    bool sqlite = backend_of(session) == database_backend::sqlite;
    std::string payload = sqlite ? "hex(o.payload)" : "encode(o.payload, 'hex')";
    std::string tenant =
        keyed ? "c.platform_id || ',' || c.environment" : "o.platform_id || ',' || o.environment";
    std::string from = keyed ? "outbox_events o JOIN platform_configs c ON c.tenant_key = "
                               "o.tenant_key"
                             : "outbox_events o";
    std::string dump;
    session << "SELECT COALESCE(" +
                   std::string(sqlite ? "group_concat(row, '|')" : "string_agg(row, '|')") +
                   ", '') FROM (SELECT o.id || ',' || " + tenant +
                   " || ',' || o.state || ',' || o.attempts || ',' || o.next_attempt_at_ms || ',' "
                   "|| COALESCE(o.claim_token, '-') || ',' || o.purpose || ',' || " +
                   payload + " AS row FROM " + from + " ORDER BY o.id) r",
        soci::into(dump);
    return dump;
}

// A platform environment's configuration as migration 43 left it, with its tenant key.
void insert_config(soci::session& session, const std::string& platform, const std::string& env,
                   long long key) {
    std::string id = "PlatformConfig:" + platform + "-" + env,
                subdomain = std::to_string(key) + "x";
    session << "INSERT INTO platform_configs (platform_id, environment, id, uma_domain, "
               "proxy_uma_subdomain, supported_currencies, created_at_ms, updated_at_ms, "
               "tenant_key) VALUES (:p, :e, :i, :d, :s, '[]', 1, 1, :k)",
        soci::use(platform), soci::use(env), soci::use(id), soci::use(id), soci::use(subdomain),
        soci::use(key);
}

// A quote and its OUTGOING transaction as schema 44 stores them, each column told apart by `n`.
void insert_payment_rows(soci::session& session, const std::string& platform,
                         const std::string& env, const std::string& status, int n) {
    std::string quote = "Quote:" + std::to_string(n),
                transaction = "Transaction:" + std::to_string(n),
                reference = "REF" + std::to_string(n);
    long long at = 1000 + n, net = at - 10;
    session
        << "INSERT INTO quotes (id, platform_id, environment, status, source_type, "
           "source_account_id, source_customer_id, destination_type, "
           "destination_account_id, destination_customer_id, sending_currency, "
           "receiving_currency, locked_side, locked_amount, total_sending, net_sending, "
           "total_receiving, fees_included, exchange_rate, counterparty_multiplier, "
           "service_multiplier, variable_fee_rate, counterparty_fixed_fee, "
           "service_fixed_fee, variable_fee_amount, purpose_of_payment, description, "
           "transaction_id, funding_reference, payment_instructions, created_at_ms, "
           "expires_at_ms, updated_at_ms) VALUES (:i, :p, :e, :s, 'ACCOUNT', 'a', 'c', "
           "'ACCOUNT', 'b', 'd', 'USD', 'EUR', 'SENDING', :n1, :n2, :n3, 90, 10, '9/10', '1/1', "
           "'1/1', '0/1', 3, 4, 5, 'GIFT', 'note', :t, :r, '[]', :a1, :a2, :a3)",
        soci::use(quote), soci::use(platform), soci::use(env), soci::use(status), soci::use(at),
        soci::use(at), soci::use(net), soci::use(transaction), soci::use(reference), soci::use(at),
        soci::use(at), soci::use(at);
    session << "INSERT INTO transactions (id, platform_id, environment, type, status, quote_id, "
               "customer_id, platform_customer_id, source_type, source_account_id, "
               "source_currency, destination_type, destination_account_id, destination_currency, "
               "sent_amount, received_amount, fees, exchange_rate, rate_details, description, "
               "failure_reason, reference, refund, settled_at_ms, created_at_ms, updated_at_ms) "
               "VALUES (:i, :p, :e, 'OUTGOING', :s, :q, 'c', 'pc', 'ACCOUNT', 'a', 'USD', "
               "'ACCOUNT', 'b', 'EUR', :n1, 90, 10, '9/10', '', 'note', '', :r, '', 0, :a1, :a2)",
        soci::use(transaction), soci::use(platform), soci::use(env), soci::use(status),
        soci::use(quote), soci::use(at), soci::use(reference), soci::use(at), soci::use(at);
}

// Every row of `table` in id order as text: id, its tenant's platform and environment, then every
// other column of `columns` (a list as quote_columns, which begins "id, tenant_key, "). Before
// migration 45 the tenant is in the row; after it, it is its key's in platform_configs.
std::vector<std::string> payment_table_dump(soci::session& session, const std::string& table,
                                            const std::string& columns, bool keyed) {
    std::string rest = columns.substr(std::string("id, tenant_key, ").size());
    std::string expression = "r.id || '|' || c.platform_id || '|' || c.environment";
    for (std::size_t at = 0; at < rest.size();) {
        std::size_t end = std::min(rest.find(", ", at), rest.size());
        expression += " || '|' || CAST(r." + rest.substr(at, end - at) + " AS TEXT)";
        at = end + 2;
    }
    std::string join = keyed ? "c.tenant_key = r.tenant_key"
                             : "c.platform_id = r.platform_id AND c.environment = r.environment";
    std::vector<std::string> rows;
    soci::rowset<std::string> found = session.prepare << "SELECT " + expression + " FROM " + table +
                                                             " r JOIN platform_configs c ON " +
                                                             join + " ORDER BY r.id";
    for (const auto& row : found) rows.push_back(row);
    return rows;
}

}  // namespace

// Migration 44 names each event's tenant by its key (migration 43): every event stays with its
// own tenant, state and payload; the old columns are gone, and SQLite's table is still stored in
// the order of its ids with its partial due index.
TEST_CASE("migration 44 keeps every webhook event with its tenant, named by its key",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 43);
    insert_platform(session, "Platform:w");
    insert_platform(session, "Platform:v");
    insert_platform_config(session, "Platform:w", "sandbox", 7);
    insert_platform_config(session, "Platform:w", "production", 8);
    insert_platform_config(session, "Platform:v", "production", 12);
    insert_outbox_event(session, "Webhook:a-w-due", "PENDING", 5);
    insert_outbox_event(session, "Webhook:b-w-delivered", "DELIVERED", 3);
    insert_outbox_event(session, "Webhook:c-v-closed", "NO_ENDPOINT", 4);
    insert_outbox_event(session, "Webhook:d-v-later", "PENDING", 500);
    session << "UPDATE outbox_events SET platform_id = 'Platform:v', environment = 'production', "
               "payload = '{\"v\":1}' WHERE id LIKE 'Webhook:%-v-%'";
    session << "UPDATE outbox_events SET claim_token = 'token', attempts = 2, purpose = 'TEST' "
               "WHERE id = 'Webhook:b-w-delivered'";
    std::string before = outbox_with_tenants(session, false);
    REQUIRE(before.find("Webhook:d-v-later,Platform:v,production,PENDING") != std::string::npos);
    REQUIRE(before.find("Webhook:a-w-due,Platform:w,sandbox,PENDING") != std::string::npos);

    CHECK(apply_migrations_up_to(session, 44) == 1);
    CHECK(outbox_with_tenants(session, true) == before);
    CHECK(count_of(session, "SELECT COUNT(*) FROM outbox_events WHERE tenant_key = 12") == 2);
    CHECK(count_of(session, "SELECT COUNT(*) FROM outbox_events WHERE tenant_key = 7") == 2);
    CHECK_THROWS(session << "SELECT platform_id FROM outbox_events");
    CHECK_THROWS(session << "SELECT environment FROM outbox_events");
    std::string due;
    session << "SELECT id FROM outbox_events WHERE state = 'PENDING' AND next_attempt_at_ms <= 10 "
               "ORDER BY next_attempt_at_ms LIMIT 10",
        soci::into(due);
    CHECK(due == "Webhook:a-w-due");
    // A row needs its tenant's key.
    CHECK_THROWS(session << "INSERT INTO outbox_events (id, type, payload, state, attempts, "
                            "next_attempt_at_ms, created_at_ms) VALUES ('Webhook:e', 'TEST', "
                            "'{}', 'PENDING', 0, 1, 1)");
    if (database.backend() == database_backend::sqlite) {
        std::string definition, index;
        session << "SELECT sql FROM sqlite_master WHERE name = 'outbox_events'",
            soci::into(definition);
        CHECK_THAT(definition, Catch::Contains("WITHOUT ROWID"));
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM sqlite_master WHERE tbl_name = 'outbox_events' AND "
                       "type = 'index'") == 1);
        session << "SELECT sql FROM sqlite_master WHERE name = 'outbox_events_due'",
            soci::into(index);
        CHECK_THAT(index, Catch::Contains("WHERE state = 'PENDING'"));
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM outbox_events INDEXED BY outbox_events_due "
                       "WHERE state = 'PENDING' AND next_attempt_at_ms > 0") == 2);
    } else {
        std::string index;
        session << "SELECT indexdef FROM pg_indexes WHERE indexname = 'outbox_events_due'",
            soci::into(index);
        CHECK_THAT(index, Catch::Contains("PENDING"));
    }
}

// An event whose tenant has no configuration (none is ever written: an event names a configured
// tenant) has no key to take: migration 44 stops with nothing changed rather than drop it.
TEST_CASE("migration 44 stops, changing nothing, at an event whose tenant has no configuration",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 43);
    insert_platform(session, "Platform:w");
    insert_platform_config(session, "Platform:w", "sandbox", 3);
    insert_outbox_event(session, "Webhook:a-kept", "DELIVERED", 3);
    insert_outbox_event(session, "Webhook:b-orphan", "PENDING", 5);
    session << "UPDATE outbox_events SET environment = 'production' WHERE id = 'Webhook:b-orphan'";
    std::string before = outbox_with_tenants(session, false);
    CHECK_THROWS(apply_migrations_up_to(session, 44));
    CHECK(applied_migration_version(session) == 43);
    CHECK(outbox_with_tenants(session, false) == before);
}

// Migration 45 names the tenant of quotes and transactions by its key: every row keeps its tenant
// and every other column, the stores' reads find each in its tenant alone, and SQLite holds the
// transactions without a rowid.
TEST_CASE("migration 45 keeps every quote and transaction with its tenant, named by its key",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 44);
    insert_platform(session, "Platform:one");
    insert_platform(session, "Platform:two");
    insert_config(session, "Platform:one", "sandbox", 7);
    insert_config(session, "Platform:one", "production", 8);
    insert_config(session, "Platform:two", "sandbox", 11);
    insert_payment_rows(session, "Platform:one", "sandbox", "PENDING", 3);
    insert_payment_rows(session, "Platform:one", "production", "COMPLETED", 1);
    insert_payment_rows(session, "Platform:two", "sandbox", "EXPIRED", 2);
    insert_payment_rows(session, "Platform:two", "sandbox", "COMPLETED", 4);
    auto quotes_before = payment_table_dump(session, "quotes", quote_columns, false);
    auto transactions_before =
        payment_table_dump(session, "transactions", transaction_columns, false);
    REQUIRE(quotes_before.size() == 4);
    REQUIRE(transactions_before.size() == 4);

    CHECK(apply_migrations_up_to(session, 45) == 1);
    CHECK(payment_table_dump(session, "quotes", quote_columns, true) == quotes_before);
    CHECK(payment_table_dump(session, "transactions", transaction_columns, true) ==
          transactions_before);
    CHECK(count_of(session, "SELECT COUNT(*) FROM quotes WHERE tenant_key = 11") == 2);
    CHECK_THROWS_AS(count_of(session, "SELECT COUNT(platform_id) FROM transactions"),
                    soci::soci_error);
    CHECK_THROWS_AS(count_of(session, "SELECT COUNT(environment) FROM quotes"), soci::soci_error);

    // Each row in its tenant, and in no other. (The stores read the ids migrations 48 and 49
    // pack: the rows here are read directly, as the stores read them before.)
    CHECK(count_of(session,
                   "SELECT COUNT(*) FROM quotes WHERE id = 'Quote:1' AND tenant_key = 8 AND "
                   "status = 'COMPLETED' AND total_sending = 1001") == 1);
    CHECK(count_of(session, "SELECT COUNT(*) FROM quotes WHERE id = 'Quote:1'") == 1);
    CHECK(count_of(session,
                   "SELECT COUNT(*) FROM transactions WHERE id = 'Transaction:2' AND tenant_key "
                   "IN (7, 8)") == 0);
    CHECK(count_of(session,
                   "SELECT COUNT(*) FROM transactions t JOIN platform_configs c ON c.tenant_key "
                   "= t.tenant_key WHERE t.id = 'Transaction:2' AND c.platform_id = "
                   "'Platform:two' AND c.environment = 'sandbox' AND t.status = 'EXPIRED'") == 1);
    // Its quote's payment instructions, found by the key.
    CHECK(count_of(session,
                   "SELECT COUNT(*) FROM transactions t JOIN quotes q ON q.id = t.quote_id AND "
                   "q.tenant_key = t.tenant_key WHERE t.id = 'Transaction:2' AND "
                   "q.payment_instructions = '[]'") == 1);
    // A tenant's keyset pages: by (tenant_key, id).
    std::string first_listed, next_listed;
    session << "SELECT id FROM transactions WHERE tenant_key = 11 ORDER BY id LIMIT 1",
        soci::into(first_listed);
    CHECK(first_listed == "Transaction:2");
    session << "SELECT id FROM transactions WHERE tenant_key = 11 AND id > 'Transaction:2' ORDER "
               "BY id LIMIT 5",
        soci::into(next_listed);
    CHECK(next_listed == "Transaction:4");
    CHECK(count_of(session, "SELECT COUNT(*) FROM transactions WHERE tenant_key = 11") == 2);
    CHECK(count_of(session, "SELECT COUNT(*) FROM quotes WHERE tenant_key = 7") == 1);

    // The PENDING quote is still found by the expiry sweep's index, and a key no configuration
    // has is refused.
    std::string due;
    session << "SELECT id FROM quotes WHERE status = 'PENDING' AND expires_at_ms <= 2000 ORDER BY "
               "expires_at_ms LIMIT 10",
        soci::into(due);
    CHECK(due == "Quote:3");
    CHECK_THROWS_AS(session << "UPDATE transactions SET tenant_key = 99 WHERE id = 'Transaction:1'",
                    soci::soci_error);
    std::string by_tenant;
    if (database.backend() == database_backend::postgresql) {
        session << "SELECT indexdef FROM pg_indexes WHERE indexname = 'transactions_by_tenant'",
            soci::into(by_tenant);
        CHECK_THAT(by_tenant, Catch::Contains("(tenant_key, id)"));
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM pg_indexes WHERE indexname IN ('quotes_by_tenant', "
                       "'quotes_pending_expiry', 'quotes_funding_reference')") == 3);
    } else {
        session << "SELECT sql FROM sqlite_master WHERE name = 'transactions_by_tenant'",
            soci::into(by_tenant);
        CHECK_THAT(by_tenant, Catch::Contains("(tenant_key, id)"));
        // Transactions without a rowid (no autoindex of the id: its by-tenant index alone);
        // quotes with theirs (the id's autoindex, the by-tenant, expiry and funding indexes).
        std::string transactions_definition, quotes_definition;
        session << "SELECT sql FROM sqlite_master WHERE name = 'transactions'",
            soci::into(transactions_definition);
        session << "SELECT sql FROM sqlite_master WHERE name = 'quotes'",
            soci::into(quotes_definition);
        CHECK_THAT(transactions_definition, Catch::Contains("WITHOUT ROWID"));
        CHECK_THAT(quotes_definition, !Catch::Contains("WITHOUT ROWID"));
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM sqlite_master WHERE tbl_name = 'transactions' AND "
                       "type = 'index'") == 1);
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM sqlite_master WHERE tbl_name = 'quotes' AND type = "
                       "'index'") == 4);
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM quotes INDEXED BY quotes_pending_expiry WHERE status "
                       "= 'PENDING' AND expires_at_ms > 0") == 1);
        CHECK_THROWS_AS(
            session << "INSERT INTO quotes SELECT 'Quote:again', tenant_key, status, source_type, "
                       "source_account_id, source_customer_id, destination_type, "
                       "destination_account_id, destination_customer_id, sending_currency, "
                       "receiving_currency, locked_side, locked_amount, total_sending, "
                       "net_sending, total_receiving, fees_included, exchange_rate, "
                       "counterparty_multiplier, service_multiplier, variable_fee_rate, "
                       "counterparty_fixed_fee, service_fixed_fee, variable_fee_amount, "
                       "purpose_of_payment, description, transaction_id, funding_reference, "
                       "payment_instructions, created_at_ms, expires_at_ms, updated_at_ms FROM "
                       "quotes WHERE id = 'Quote:1'",
            soci::soci_error);  // the funding reference stays unique
    }
}

// A row whose tenant has no configuration (which no release writes) stops migration 45 with
// nothing changed, rather than losing the row or its tenant.
TEST_CASE("migration 45 stops on a row whose tenant has no configuration, changing nothing",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 44);
    insert_platform(session, "Platform:one");
    insert_config(session, "Platform:one", "sandbox", 7);
    insert_payment_rows(session, "Platform:one", "sandbox", "COMPLETED", 1);
    insert_payment_rows(session, "Platform:one", "production", "COMPLETED", 2);  // no config
    int before = applied_migration_version(session);
    // SQLite: "NOT NULL constraint failed"; PostgreSQL: "contains null values".
    CHECK_THROWS_WITH(apply_migrations_up_to(session, 45),
                      Catch::Contains("null", Catch::CaseSensitive::No));
    CHECK(applied_migration_version(session) == before);
    CHECK(count_of(session,
                   "SELECT COUNT(*) FROM quotes WHERE platform_id = 'Platform:one' AND "
                   "environment = 'production'") == 1);
    CHECK(count_of(session,
                   "SELECT COUNT(*) FROM transactions WHERE platform_id = 'Platform:one'") == 2);
}

namespace {

// Every column of the outbox after migration 44, the id as the typed text `id_sql` gives, and each
// row's tenant by its key's configuration, in id order.
std::string outbox_rows_47(soci::session& session, const std::string& id_sql) {
    bool sqlite = backend_of(session) == database_backend::sqlite;
    std::string payload = sqlite ? "hex(o.payload)" : "encode(o.payload, 'hex')";
    std::string dump;
    session << "SELECT COALESCE(" +
                   std::string(sqlite ? "group_concat(row, '|')" : "string_agg(row, '|')") +
                   ", '') FROM (SELECT " + id_sql +
                   " || ',' || c.platform_id || ',' || c.environment || ',' || o.type || ',' || "
                   "o.state || ',' || o.attempts || ',' || o.next_attempt_at_ms || ',' || "
                   "o.created_at_ms || ',' || COALESCE(o.claim_token, '-') || ',' || o.purpose || "
                   "',' || COALESCE(CAST(o.first_attempt_at_ms AS TEXT), '-') || ',' || "
                   "COALESCE(CAST(o.finished_at_ms AS TEXT), '-') || ',' || " +
                   payload +
                   " AS row FROM outbox_events o JOIN platform_configs c ON c.tenant_key = "
                   "o.tenant_key ORDER BY o.id) r",
        soci::into(dump);
    return dump;
}

// A quote as schema 46 stores it (tenant by its key, ids as text), each column told apart by `n`.
void insert_keyed_quote(soci::session& session, int n, long long tenant_key,
                        const std::string& source_customer, const std::string& destination_customer,
                        const std::string& transaction) {
    std::string id = "Quote:0190a000-0000-7000-8000-00000000000" + std::to_string(n),
                reference = "REF" + std::to_string(n), status = n % 2 ? "PENDING" : "COMPLETED";
    long long at = 1000 + n, net = at - 10;
    session << "INSERT INTO quotes (" + std::string(quote_columns) +
                   ") VALUES (:i, :k, :s, 'ACCOUNT', 'InternalAccount:a', :sc, 'ACCOUNT', "
                   "'InternalAccount:b', :dc, 'USD', 'EUR', 'SENDING', :n1, :n2, :n3, 90, 10, "
                   "'9/10', '1/1', '1/1', '0/1', 3, 4, 5, 'GIFT', 'note', :t, :r, '[]', :a1, :a2, "
                   ":a3)",
        soci::use(id), soci::use(tenant_key), soci::use(status), soci::use(source_customer),
        soci::use(destination_customer), soci::use(at), soci::use(at), soci::use(net),
        soci::use(transaction), soci::use(reference), soci::use(at), soci::use(at), soci::use(at);
}

// Every quote in id order as text, its tenant through its key and every column of quote_columns;
// after migration 48 the three packed ids read back with their types.
std::vector<std::string> quote_dump(soci::session& session, bool packed) {
    std::string expression = "r.id || '|' || c.platform_id || '|' || c.environment";
    std::string rest = std::string(quote_columns).substr(std::string("id, tenant_key, ").size());
    for (std::size_t at = 0; at < rest.size();) {
        std::size_t end = std::min(rest.find(", ", at), rest.size());
        std::string column = rest.substr(at, end - at);
        std::string type = column == "transaction_id" ? "Transaction" : "Customer";
        bool is_packed = packed && (column == "transaction_id" || column == "source_customer_id" ||
                                    column == "destination_customer_id");
        expression +=
            " || '|' || " + (is_packed ? "COALESCE(typed_id('" + type + "', r." + column + "), '')"
                                       : "CAST(r." + column + " AS TEXT)");
        at = end + 2;
    }
    std::vector<std::string> rows;
    soci::rowset<std::string> found =
        session.prepare << "SELECT " + expression +
                               " FROM quotes r JOIN platform_configs c ON c.tenant_key = "
                               "r.tenant_key ORDER BY r.id";
    for (const auto& row : found) rows.push_back(row);
    return rows;
}

}  // namespace

// Migration 47 stores each webhook event's id as its uuid's 16 bytes: every event keeps its id,
// tenant and every other column, in the same order, the due index holds the PENDING ones, and the
// pruning's range by the time in the id still reads the oldest first.
TEST_CASE("migration 47 keeps every webhook event, its id stored as 16 bytes",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 46);
    insert_platform(session, "Platform:w");
    insert_platform(session, "Platform:v");
    insert_platform_config(session, "Platform:w", "sandbox", 7);
    insert_platform_config(session, "Platform:v", "production", 12);
    const std::string a = "Webhook:0190c0de-0000-7000-8000-00000000000a",
                      b = "Webhook:0190c0de-0001-7000-8000-00000000000b",
                      c = "Webhook:0190c0df-0000-7000-8000-0000000000fc",
                      d = "Webhook:0190c0e0-ffff-7fff-bfff-ffffffffffff";
    const std::pair<std::string, long long> rows[] = {{a, 7}, {b, 7}, {c, 12}, {d, 12}};
    long long n = 0;
    for (const auto& [id, key] : rows) {
        ++n;
        std::string state = n % 2 ? "PENDING" : "DELIVERED",
                    payload = "{\"n\":" + std::to_string(n) + "}";
        long long due = 100 * n;
        session << "INSERT INTO outbox_events (id, tenant_key, type, payload, state, attempts, "
                   "next_attempt_at_ms, created_at_ms) VALUES (:i, :k, 'ACCOUNT_STATUS', :p, :s, "
                   ":a, :n, :c)",
            soci::use(id), soci::use(key), soci::use(payload), soci::use(state), soci::use(n),
            soci::use(due), soci::use(n);
    }
    session << "UPDATE outbox_events SET claim_token = 'token', purpose = 'TEST', "
               "first_attempt_at_ms = 11, finished_at_ms = 22 WHERE id = :i",
        soci::use(b);
    std::string before = outbox_rows_47(session, "o.id");
    REQUIRE(
        before.find(b + ",Platform:w,sandbox,ACCOUNT_STATUS,DELIVERED,2,200,2,token,TEST,11,22,") !=
        std::string::npos);
    REQUIRE(before.find(d + ",Platform:v,production,") != std::string::npos);

    CHECK(apply_migrations_up_to(session, 47) == 1);
    CHECK(outbox_rows_47(session, "typed_id('Webhook', o.id)") == before);
    CHECK(count_of(session, "SELECT COUNT(*) FROM outbox_events WHERE tenant_key = 12") == 2);
    CHECK(count_of(session, "SELECT COUNT(*) FROM outbox_events WHERE tenant_key = 7") == 2);
    // Looked up by the packed id; a text id is no longer compared with it.
    std::string state;
    session << "SELECT state FROM outbox_events WHERE id = packed_id(:i)", soci::use(c),
        soci::into(state);
    CHECK(state == "PENDING");
    CHECK(count_of(session,
                   "SELECT COUNT(*) FROM outbox_events WHERE id = packed_id('" + d + "')") == 1);
    // The pruning's range: ids below a bound made from a time, oldest first.
    std::string oldest;
    session << "SELECT typed_id('Webhook', id) FROM outbox_events WHERE id < "
               "packed_id('Webhook:0190c0df-0000-0000-0000-000000000000') ORDER BY id LIMIT 1",
        soci::into(oldest);
    CHECK(oldest == a);
    CHECK(count_of(session,
                   "SELECT COUNT(*) FROM outbox_events WHERE id < "
                   "packed_id('Webhook:0190c0df-0000-0000-0000-000000000000')") == 2);
    if (database.backend() == database_backend::sqlite) {
        std::string definition, index;
        session << "SELECT sql FROM sqlite_master WHERE name = 'outbox_events'",
            soci::into(definition);
        CHECK_THAT(definition, Catch::Contains("WITHOUT ROWID"));
        CHECK_THAT(definition, Catch::Contains("id BLOB PRIMARY KEY"));
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM outbox_events WHERE typeof(id) = 'blob' "
                       "AND length(id) = 16") == 4);
        session << "SELECT sql FROM sqlite_master WHERE name = 'outbox_events_due'",
            soci::into(index);
        CHECK_THAT(index, Catch::Contains("WHERE state = 'PENDING'"));
    } else {
        std::string type, index;
        session << "SELECT data_type FROM information_schema.columns WHERE table_name = "
                   "'outbox_events' AND column_name = 'id'",
            soci::into(type);
        CHECK(type == "uuid");
        session << "SELECT indexdef FROM pg_indexes WHERE indexname = 'outbox_events_due'",
            soci::into(index);
        CHECK_THAT(index, Catch::Contains("PENDING"));
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM pg_indexes WHERE indexname = "
                       "'outbox_events_pkey'") == 1);
    }
    CHECK(count_of(session,
                   "SELECT COUNT(*) FROM outbox_events WHERE state = 'PENDING' AND "
                   "next_attempt_at_ms <= 300") == 2);
}

// Migration 48 stores a quote's customers' and transaction's ids as 16 bytes: every quote keeps
// its tenant and every column (an empty customer id as NULL), and the store reads and filters
// them as before.
TEST_CASE("migration 48 keeps every quote, its customer and transaction ids stored as 16 bytes",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 46);  // the schema before 48 (47 changes another table)
    insert_platform(session, "Platform:one");
    insert_platform(session, "Platform:two");
    insert_config(session, "Platform:one", "sandbox", 7);
    insert_config(session, "Platform:two", "production", 11);
    const std::string alice = "Customer:0190a000-0000-7000-8000-0000000000a1",
                      bob = "Customer:0190a000-0000-7000-8000-0000000000b2",
                      carol = "Customer:0190a000-0000-7000-8000-0000000000c3";
    auto transaction = [](int n) {
        return "Transaction:0190a000-0000-7000-8000-00000000000" + std::to_string(n);
    };
    insert_keyed_quote(session, 1, 7, alice, bob, transaction(1));
    insert_keyed_quote(session, 2, 7, "", carol, transaction(2));   // on behalf of no customer
    insert_keyed_quote(session, 3, 11, carol, "", transaction(3));  // an external receiver
    insert_keyed_quote(session, 4, 11, bob, alice, transaction(4));
    auto before = quote_dump(session, false);
    REQUIRE(before.size() == 4);

    CHECK(apply_migrations_up_to(session, 48) >= 1);
    CHECK(applied_migration_version(session) == 48);
    CHECK(quote_dump(session, true) == before);
    CHECK(count_of(session, "SELECT COUNT(*) FROM quotes WHERE tenant_key = 11") == 2);
    CHECK(count_of(session, "SELECT COUNT(*) FROM quotes WHERE source_customer_id IS NULL") == 1);
    CHECK(count_of(session, "SELECT COUNT(*) FROM quotes WHERE destination_customer_id IS NULL") ==
          1);
    bool sqlite = database.backend() == database_backend::sqlite;
    // 16 bytes each, not text.
    CHECK(count_of(session, sqlite ? "SELECT COUNT(*) FROM quotes WHERE typeof(transaction_id) = "
                                     "'blob' AND length(transaction_id) = 16"
                                   : "SELECT COUNT(*) FROM quotes WHERE pg_column_size("
                                     "transaction_id) = 16") == 4);

    // The store of this release (after any later migration: 50 packs the quotes' own ids) reads
    // each quote in its tenant, its ids as text again.
    apply_migrations(session);
    tenant one{"Platform:one", environment::sandbox}, two{"Platform:two", environment::production};
    auto first = find_quote(session, one, "Quote:0190a000-0000-7000-8000-000000000001");
    REQUIRE(first.has_value());
    CHECK(first->source_customer_id == alice);
    CHECK(first->destination_customer_id == bob);
    CHECK(first->transaction_id == transaction(1));
    CHECK(first->priced.total_sending == 1001);
    auto third = find_quote(session, two, "Quote:0190a000-0000-7000-8000-000000000003");
    REQUIRE(third.has_value());
    CHECK(third->source_customer_id == carol);
    CHECK(third->destination_customer_id.empty());
    CHECK_FALSE(find_quote(session, one, "Quote:0190a000-0000-7000-8000-000000000003"));

    // Filtered by customer within the tenant; a malformed id finds nothing, without an error.
    auto quotes_of_customer = [&](const tenant& owner, const std::string& customer) {
        quote_filter filter;
        filter.customer_id = customer;
        return list_quotes(session, owner, filter, {});
    };
    auto by_carol = quotes_of_customer(two, carol);
    REQUIRE(by_carol.items.size() == 1);
    CHECK(by_carol.items[0].id == "Quote:0190a000-0000-7000-8000-000000000003");
    CHECK(by_carol.total_count == 1);
    CHECK(quotes_of_customer(one, carol).total_count == 0);
    for (const std::string& malformed :
         std::vector<std::string>{"Customer:nope", "nope", transaction(1), ""}) {
        CHECK(quotes_of_customer(two, malformed).total_count == 0);
    }
    // A new quote's ids are written as 16 bytes too.
    auto copy = *first;
    copy.id = "Quote:0190a000-0000-7000-8000-000000000009";
    copy.funding_reference = "REF9";
    copy.source_customer_id.clear();
    insert_quote(session, copy);
    auto again = find_quote(session, one, copy.id);
    REQUIRE(again.has_value());
    CHECK(again->source_customer_id.empty());
    CHECK(again->destination_customer_id == bob);
    CHECK(again->transaction_id == transaction(1));
    CHECK(quotes_of_customer(one, alice).total_count == 1);
}

namespace {

// Every delivery attempt as one line of its columns in id order, its tenant from its own columns
// before migration 52 and through its key after, its ids as text either way.
std::string attempt_rows_52(soci::session& session, bool packed) {
    std::string sql =
        packed ? "SELECT typed_id('WebhookAttempt', a.id) || ',' || c.platform_id || ',' || "
                 "c.environment || ',' || typed_id('Webhook', a.event_id) || ',' || "
               : "SELECT a.id || ',' || a.platform_id || ',' || a.environment || ',' || "
                 "a.event_id || ',' || ";
    sql +=
        "a.event_type || ',' || CAST(a.attempt AS TEXT) || ',' || a.url || ',' || "
        "CAST(a.attempted_at_ms AS TEXT) || ',' || CAST(a.latency_ms AS TEXT) || ',' || "
        "CAST(a.response_status AS TEXT) || ',' || a.outcome || ',' || a.error || ',' || "
        "a.response_excerpt || ',' || CAST(a.next_attempt_at_ms AS TEXT) FROM webhook_attempts a ";
    sql += packed ? "JOIN platform_configs c ON c.tenant_key = a.tenant_key ORDER BY a.id"
                  : "ORDER BY a.id";
    std::string out, line;
    soci::statement statement = (session.prepare << sql, soci::into(line));
    statement.execute(false);
    while (statement.fetch()) out += line + "\n";
    return out;
}

void insert_attempt_51(soci::session& session, const std::string& id, const std::string& platform,
                       const std::string& environment, const std::string& event_id, int n) {
    std::string outcome = n % 2 ? "SUCCEEDED" : "RETRY_SCHEDULED",
                error = n % 2 ? "" : "connection refused, \"quoted\"",
                url = "https://h" + std::to_string(n) + ".example/hook";
    long long at = 1000 + n, latency = 10 * n, next = n % 2 ? 0 : 5000 + n;
    int status = n % 2 ? 200 : 0;
    session << "INSERT INTO webhook_attempts (id, platform_id, environment, event_id, event_type, "
               "attempt, url, attempted_at_ms, latency_ms, response_status, outcome, error, "
               "response_excerpt, next_attempt_at_ms) VALUES (:i, :p, :e, :v, 'ACCOUNT_STATUS', "
               ":a, :u, :t, :l, :s, :o, :r, '{\"ok\":true}', :n)",
        soci::use(id), soci::use(platform), soci::use(environment), soci::use(event_id),
        soci::use(n), soci::use(url), soci::use(at), soci::use(latency), soci::use(status),
        soci::use(outcome), soci::use(error), soci::use(next);
}

}  // namespace

// Migration 52 names each delivery attempt's tenant by its key and stores its own and its event's
// ids as 16 bytes: every attempt keeps its tenant and every column, and is found by its event.
TEST_CASE("migration 52 keeps every delivery attempt with its tenant, its ids as 16 bytes",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 51);
    insert_platform(session, "Platform:w");
    insert_platform(session, "Platform:v");
    insert_platform_config(session, "Platform:w", "sandbox", 7);
    insert_platform_config(session, "Platform:v", "production", 12);
    const std::string e1 = "Webhook:0190c0de-0000-7000-8000-00000000000a",
                      e2 = "Webhook:0190c0df-0000-7000-8000-0000000000fc";
    insert_attempt_51(session, "WebhookAttempt:0190c0de-0001-7000-8000-000000000001", "Platform:w",
                      "sandbox", e1, 1);
    insert_attempt_51(session, "WebhookAttempt:0190c0de-0002-7000-8000-000000000002", "Platform:w",
                      "sandbox", e1, 2);
    insert_attempt_51(session, "WebhookAttempt:0190c0df-0001-7000-8000-000000000003", "Platform:v",
                      "production", e2, 3);
    insert_attempt_51(session, "WebhookAttempt:0190c0e0-ffff-7fff-bfff-ffffffffffff", "Platform:v",
                      "production", e2, 4);
    std::string before = attempt_rows_52(session, false);
    REQUIRE(before.find("WebhookAttempt:0190c0de-0002-7000-8000-000000000002,Platform:w,sandbox," +
                        e1 +
                        ",ACCOUNT_STATUS,2,https://h2.example/hook,1002,20,0,"
                        "RETRY_SCHEDULED,connection refused, \"quoted\",{\"ok\":true},5002") !=
            std::string::npos);

    CHECK(apply_migrations_up_to(session, 52) == 1);
    CHECK(attempt_rows_52(session, true) == before);
    CHECK(count_of(session, "SELECT COUNT(*) FROM webhook_attempts WHERE tenant_key = 7") == 2);
    CHECK(count_of(session, "SELECT COUNT(*) FROM webhook_attempts WHERE tenant_key = 12") == 2);
    CHECK(count_of(session, "SELECT COUNT(*) FROM webhook_attempts WHERE event_id = packed_id('" +
                                e2 + "')") == 2);
    // A page of one tenant's log after a cursor: a range of the packed primary key.
    CHECK(count_of(session,
                   "SELECT COUNT(*) FROM webhook_attempts WHERE tenant_key = 12 AND id > "
                   "packed_id('WebhookAttempt:0190c0df-0001-7000-8000-000000000003')") == 1);
    if (database.backend() == database_backend::sqlite) {
        std::string definition;
        session << "SELECT sql FROM sqlite_master WHERE name = 'webhook_attempts'",
            soci::into(definition);
        CHECK_THAT(definition, Catch::Contains("WITHOUT ROWID"));
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM webhook_attempts WHERE typeof(id) = 'blob' AND "
                       "length(id) = 16 AND typeof(event_id) = 'blob'") == 4);
    } else {
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM information_schema.columns WHERE table_name = "
                       "'webhook_attempts' AND column_name IN ('id', 'event_id') AND data_type = "
                       "'uuid'") == 2);
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM pg_indexes WHERE indexname = "
                       "'webhook_attempts_pkey'") == 1);
    }
    // The tenant's text columns are gone.
    CHECK_THROWS(count_of(session, "SELECT COUNT(*) FROM webhook_attempts WHERE platform_id = ''"));
}

TEST_CASE("migration 52 stops, changing nothing, at an attempt whose tenant has no configuration",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 51);
    insert_platform(session, "Platform:w");
    insert_platform_config(session, "Platform:w", "sandbox", 3);
    insert_attempt_51(session, "WebhookAttempt:0190c0de-0001-7000-8000-000000000001", "Platform:w",
                      "sandbox", "Webhook:0190c0de-0000-7000-8000-00000000000a", 1);
    insert_attempt_51(session, "WebhookAttempt:0190c0de-0002-7000-8000-000000000002", "Platform:w",
                      "production", "Webhook:0190c0de-0000-7000-8000-00000000000b", 2);
    std::string before = attempt_rows_52(session, false);
    int version = applied_migration_version(session);
    CHECK_THROWS(apply_migrations_up_to(session, 52));
    CHECK(applied_migration_version(session) == version);
    CHECK(attempt_rows_52(session, false) == before);
}

namespace {

// A transaction as schema 48 stores it (tenant by its key, ids as text), each column told apart by
// `n`.
void insert_keyed_transaction(soci::session& session, const std::string& id, int n,
                              long long tenant_key, const std::string& type,
                              const std::string& quote, const std::string& customer) {
    std::string status = n % 2 ? "PENDING" : "COMPLETED", reference = "TREF" + std::to_string(n);
    long long at = 2000 + n;
    session << "INSERT INTO transactions (" + std::string(transaction_columns) +
                   ") VALUES (:i, :k, :ty, :s, :q, :c, 'pc', 'ACCOUNT', 'InternalAccount:a', "
                   "'USD', 'ACCOUNT', 'InternalAccount:b', 'EUR', :n1, 90, 10, '9/10', '', "
                   "'note', '', :r, '', 0, :a1, :a2)",
        soci::use(id), soci::use(tenant_key), soci::use(type), soci::use(status), soci::use(quote),
        soci::use(customer), soci::use(at), soci::use(reference), soci::use(at), soci::use(at);
}

// Every row of `table` in id order as text, its tenant through its key and every column of
// `columns` (a list as transaction_columns, which begins "id, tenant_key, "); the columns of
// `packed` (name and type), ids stored as 16 bytes, read back as their typed text.
std::vector<std::string> packed_table_dump(
    soci::session& session, const std::string& table, const std::string& columns,
    const std::vector<std::pair<std::string, std::string>>& packed) {
    auto read = [&](const std::string& column) {
        for (const auto& [name, type] : packed) {
            if (name == column) return "COALESCE(typed_id('" + type + "', r." + column + "), '')";
        }
        return "CAST(r." + column + " AS TEXT)";
    };
    std::string expression = read("id") + " || '|' || c.platform_id || '|' || c.environment";
    std::string rest = columns.substr(std::string("id, tenant_key, ").size());
    for (std::size_t at = 0; at < rest.size();) {
        std::size_t end = std::min(rest.find(", ", at), rest.size());
        expression += " || '|' || " + read(rest.substr(at, end - at));
        at = end + 2;
    }
    std::vector<std::string> rows;
    soci::rowset<std::string> found = session.prepare << "SELECT " + expression + " FROM " + table +
                                                             " r JOIN platform_configs c ON "
                                                             "c.tenant_key = r.tenant_key ORDER "
                                                             "BY r.id";
    for (const auto& row : found) rows.push_back(row);
    return rows;
}

}  // namespace

// Migration 49 stores a transaction's own, quote's and customer's ids as 16 bytes: every
// transaction keeps its tenant and every column (an empty quote or customer id as NULL), in the
// same order, and the store finds, lists and filters them as before, refusing what is no id.
TEST_CASE("migration 49 keeps every transaction, its own, quote and customer ids as 16 bytes",
          "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 46);  // its quotes as insert_keyed_quote writes them
    insert_platform(session, "Platform:one");
    insert_platform(session, "Platform:two");
    insert_config(session, "Platform:one", "sandbox", 7);
    insert_config(session, "Platform:two", "production", 11);
    const std::string alice = "Customer:0190a000-0000-7000-8000-0000000000a1",
                      bob = "Customer:0190a000-0000-7000-8000-0000000000b2",
                      carol = "Customer:0190a000-0000-7000-8000-0000000000c3";
    auto transaction = [](int n) {
        return "Transaction:0190b000-0000-7000-8000-00000000000" + std::to_string(n);
    };
    auto quote = [](int n) {
        return "Quote:0190a000-0000-7000-8000-00000000000" + std::to_string(n);
    };
    insert_keyed_quote(session, 1, 7, alice, bob, transaction(1));
    insert_keyed_quote(session, 3, 11, carol, "", transaction(3));
    insert_keyed_quote(session, 4, 11, bob, alice, transaction(4));
    apply_migrations_up_to(session, 48);  // the schema before 49
    insert_keyed_transaction(session, transaction(1), 1, 7, "OUTGOING", quote(1), alice);
    insert_keyed_transaction(session, transaction(2), 2, 7, "INCOMING", "", "");  // a deposit
    insert_keyed_transaction(session, transaction(3), 3, 11, "OUTGOING", quote(3), carol);
    insert_keyed_transaction(session, transaction(4), 4, 11, "OUTGOING", quote(4), bob);
    auto before = packed_table_dump(session, "transactions", transaction_columns, {});
    REQUIRE(before.size() == 4);
    REQUIRE(before[1].find(transaction(2) + "|Platform:one|sandbox|INCOMING|COMPLETED|||pc|") == 0);

    CHECK(apply_migrations_up_to(session, 49) == 1);
    const std::vector<std::pair<std::string, std::string>> packed = {
        {"id", "Transaction"}, {"quote_id", "Quote"}, {"customer_id", "Customer"}};
    CHECK(packed_table_dump(session, "transactions", transaction_columns, packed) == before);
    CHECK(count_of(session, "SELECT COUNT(*) FROM transactions WHERE tenant_key = 11") == 2);
    CHECK(count_of(session, "SELECT COUNT(*) FROM transactions WHERE tenant_key = 7") == 2);
    CHECK(count_of(session,
                   "SELECT COUNT(*) FROM transactions WHERE quote_id IS NULL AND "
                   "customer_id IS NULL") == 1);
    bool sqlite = database.backend() == database_backend::sqlite;
    for (std::string column : {"id", "quote_id", "customer_id"}) {
        INFO(column);  // 16 bytes each, not text
        CHECK(count_of(session, sqlite ? "SELECT COUNT(*) FROM transactions WHERE typeof(" +
                                             column + ") = 'blob' AND length(" + column + ") = 16"
                                       : "SELECT COUNT(*) FROM transactions WHERE "
                                         "pg_column_size(" +
                                             column + ") = 16") == (column == "id" ? 4 : 3));
    }
    // The by-tenant index again, and the tenant's key still refers to a configuration.
    if (sqlite) {
        std::string definition, by_tenant;
        session << "SELECT sql FROM sqlite_master WHERE name = 'transactions'",
            soci::into(definition);
        CHECK_THAT(definition, Catch::Contains("WITHOUT ROWID"));
        CHECK_THAT(definition, Catch::Contains("id BLOB PRIMARY KEY"));
        session << "SELECT sql FROM sqlite_master WHERE name = 'transactions_by_tenant'",
            soci::into(by_tenant);
        CHECK_THAT(by_tenant, Catch::Contains("(tenant_key, id)"));
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM sqlite_master WHERE tbl_name = 'transactions' AND "
                       "type = 'index'") == 1);
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM pragma_foreign_key_list('transactions') "
                       "WHERE \"table\" = 'platform_configs'") == 1);
    } else {
        std::string type, by_tenant;
        session << "SELECT data_type FROM information_schema.columns WHERE table_name = "
                   "'transactions' AND column_name = 'quote_id'",
            soci::into(type);
        CHECK(type == "uuid");
        session << "SELECT indexdef FROM pg_indexes WHERE indexname = 'transactions_by_tenant'",
            soci::into(by_tenant);
        CHECK_THAT(by_tenant, Catch::Contains("(tenant_key, id)"));
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM pg_indexes WHERE indexname = "
                       "'transactions_pkey'") == 1);
        CHECK_THROWS_AS(session << "UPDATE transactions SET tenant_key = 99",
                        soci::soci_error);  // no configuration has that key
    }

    // The store of this release (after any later migration) reads each in its tenant only.
    apply_migrations(session);
    tenant one{"Platform:one", environment::sandbox}, two{"Platform:two", environment::production};
    auto first = find_transaction(session, one, transaction(1));
    REQUIRE(first.has_value());
    CHECK(first->quote_id == quote(1));
    CHECK(first->customer_id == alice);
    CHECK(first->payment_instructions == "[]");  // its quote's, found by its id
    CHECK(first->rate_details_from_quote);       // likewise
    CHECK_FALSE(find_transaction(session, two, transaction(1)));
    auto deposit = find_transaction(session, one, transaction(2));
    REQUIRE(deposit.has_value());
    CHECK(deposit->quote_id.empty());
    CHECK(deposit->customer_id.empty());
    CHECK(deposit->sent_amount == 2002);
    // What is no transaction's id finds nothing, without an error.
    for (const std::string& malformed : std::vector<std::string>{
             "Transaction:nope", "nope", "", quote(1),
             // transaction(1) but for its case
             "Transaction:0190B000-0000-7000-8000-000000000001", transaction(1) + " "}) {
        INFO(malformed);
        CHECK_FALSE(find_transaction(session, one, malformed));
    }

    // Keyset pages within the tenant, both ways.
    auto listed = list_transactions(session, two, {}, {.limit = 1, .descending = false});
    REQUIRE(listed.items.size() == 1);
    CHECK(listed.items[0].id == transaction(3));
    CHECK(listed.total_count == 2);
    CHECK(listed.has_more);
    auto next = list_transactions(session, two, {},
                                  {.limit = 5, .after_id = transaction(3), .descending = false});
    REQUIRE(next.items.size() == 1);
    CHECK(next.items[0].id == transaction(4));
    auto back = list_transactions(session, two, {}, {.limit = 5, .after_id = transaction(4)});
    REQUIRE(back.items.size() == 1);
    CHECK(back.items[0].id == transaction(3));
    // Filtered by customer within the tenant; what is no customer's id finds nothing.
    auto of_customer = [&](const tenant& owner, const std::string& customer) {
        transaction_filter filter;
        filter.customer_id = customer;
        return list_transactions(session, owner, filter, {});
    };
    auto by_bob = of_customer(two, bob);
    REQUIRE(by_bob.items.size() == 1);
    CHECK(by_bob.items[0].id == transaction(4));
    CHECK(of_customer(one, bob).total_count == 0);
    for (const std::string& malformed :
         std::vector<std::string>{"Customer:nope", "nope", "", transaction(4),
                                  "Customer:0190A000-0000-7000-8000-0000000000B2"}) {
        INFO(malformed);
        CHECK(of_customer(two, malformed).total_count == 0);
    }

    // A new transaction is written, and changed, through its 16 bytes.
    auto copy = *deposit;
    copy.id = transaction(9);
    copy.customer_id = carol;
    store_new_transaction(session, copy);
    copy.status = "FAILED";
    copy.failure_reason = "TEST";
    store_transaction_outcome(session, copy);
    auto again = find_transaction(session, one, copy.id);
    REQUIRE(again.has_value());
    CHECK(again->customer_id == carol);
    CHECK(again->quote_id.empty());
    CHECK(again->status == "FAILED");
    CHECK(again->failure_reason == "TEST");
    CHECK(of_customer(one, carol).total_count == 1);
}

// Migration 50 stores a quote's own id as 16 bytes: every quote keeps its tenant and every column,
// in the same order, with its indexes, and the store finds, lists, updates and joins them as
// before, refusing what is no quote's id.
TEST_CASE("migration 50 keeps every quote, its own id stored as 16 bytes", "[store][migrations]") {
    test_database database(schema::empty);
    soci::session& session = database.session();
    apply_migrations_up_to(session, 46);  // its quotes as insert_keyed_quote writes them
    insert_platform(session, "Platform:one");
    insert_platform(session, "Platform:two");
    insert_config(session, "Platform:one", "sandbox", 7);
    insert_config(session, "Platform:two", "production", 11);
    const std::string alice = "Customer:0190a000-0000-7000-8000-0000000000a1",
                      bob = "Customer:0190a000-0000-7000-8000-0000000000b2";
    auto transaction = [](int n) {
        return "Transaction:0190b000-0000-7000-8000-00000000000" + std::to_string(n);
    };
    auto quote = [](int n) {
        return "Quote:0190a000-0000-7000-8000-00000000000" + std::to_string(n);
    };
    insert_keyed_quote(session, 1, 7, alice, bob, transaction(1));  // PENDING (odd)
    insert_keyed_quote(session, 2, 7, "", bob, transaction(2));
    insert_keyed_quote(session, 3, 11, bob, "", transaction(3));
    insert_keyed_quote(session, 4, 11, alice, bob, transaction(4));
    apply_migrations_up_to(session, 49);  // the schema before 50
    std::vector<std::pair<std::string, std::string>> packed = {
        {"source_customer_id", "Customer"},
        {"destination_customer_id", "Customer"},
        {"transaction_id", "Transaction"}};
    auto before = packed_table_dump(session, "quotes", quote_columns, packed);
    REQUIRE(before.size() == 4);
    REQUIRE(before[2].find(quote(3) + "|Platform:two|production|PENDING|ACCOUNT|") == 0);

    CHECK(apply_migrations_up_to(session, 50) == 1);
    packed.push_back({"id", "Quote"});
    CHECK(packed_table_dump(session, "quotes", quote_columns, packed) == before);
    CHECK(count_of(session, "SELECT COUNT(*) FROM quotes WHERE tenant_key = 7") == 2);
    CHECK(count_of(session, "SELECT COUNT(*) FROM quotes WHERE tenant_key = 11") == 2);
    bool sqlite = database.backend() == database_backend::sqlite;
    CHECK(count_of(session, sqlite ? "SELECT COUNT(*) FROM quotes WHERE typeof(id) = 'blob' AND "
                                     "length(id) = 16"
                                   : "SELECT COUNT(*) FROM quotes WHERE pg_column_size(id) = 16") ==
          4);
    // Its indexes: the expiry sweep's PENDING ones, the funding reference unique, by tenant.
    CHECK(count_of(session,
                   "SELECT COUNT(*) FROM quotes WHERE status = 'PENDING' AND expires_at_ms <= "
                   "2000") == 2);
    CHECK_THROWS_AS(session << "UPDATE quotes SET funding_reference = 'REF1' WHERE id = "
                               "packed_id('" +
                                   quote(2) + "')",
                    soci::soci_error);
    if (sqlite) {
        std::string definition;
        session << "SELECT sql FROM sqlite_master WHERE name = 'quotes'", soci::into(definition);
        CHECK_THAT(definition, Catch::Contains("id BLOB PRIMARY KEY"));
        CHECK_THAT(definition, !Catch::Contains("WITHOUT ROWID"));
        // The id's autoindex, by tenant, expiry and funding reference.
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM sqlite_master WHERE tbl_name = 'quotes' AND type = "
                       "'index'") == 4);
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM sqlite_master WHERE name = 'quotes_by_tenant' AND sql "
                       "LIKE '%(tenant_key, id)%'") == 1);
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM quotes INDEXED BY quotes_pending_expiry WHERE status "
                       "= 'PENDING' AND expires_at_ms > 0") == 2);
    } else {
        std::string type;
        session << "SELECT data_type FROM information_schema.columns WHERE table_name = 'quotes' "
                   "AND column_name = 'id'",
            soci::into(type);
        CHECK(type == "uuid");
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM pg_indexes WHERE tablename = 'quotes' AND indexname "
                       "IN ('quotes_pkey', 'quotes_by_tenant', 'quotes_pending_expiry', "
                       "'quotes_funding_reference')") == 4);
        CHECK(count_of(session,
                       "SELECT COUNT(*) FROM pg_indexes WHERE indexname = 'quotes_by_tenant' AND "
                       "indexdef LIKE '%(tenant_key, id)%'") == 1);
    }

    // The store reads each quote in its tenant only; what is no quote's id finds nothing.
    apply_migrations(session);
    tenant one{"Platform:one", environment::sandbox}, two{"Platform:two", environment::production};
    auto first = find_quote(session, one, quote(1));
    REQUIRE(first.has_value());
    CHECK(first->id == quote(1));
    CHECK(first->source_customer_id == alice);
    CHECK(first->transaction_id == transaction(1));
    CHECK_FALSE(find_quote(session, two, quote(1)));
    for (const std::string& malformed :
         std::vector<std::string>{"Quote:nope", "nope", "", transaction(1),
                                  // quote(1) but for its case
                                  "Quote:0190A000-0000-7000-8000-000000000001", quote(1) + "0"}) {
        INFO(malformed);
        CHECK_FALSE(find_quote(session, one, malformed));
    }
    // Keyset pages within the tenant, both ways.
    auto listed = list_quotes(session, two, {}, {.limit = 1, .descending = false});
    REQUIRE(listed.items.size() == 1);
    CHECK(listed.items[0].id == quote(3));
    CHECK(listed.total_count == 2);
    CHECK(listed.has_more);
    auto next =
        list_quotes(session, two, {}, {.limit = 5, .after_id = quote(3), .descending = false});
    REQUIRE(next.items.size() == 1);
    CHECK(next.items[0].id == quote(4));
    auto back = list_quotes(session, two, {}, {.limit = 5, .after_id = quote(4)});
    REQUIRE(back.items.size() == 1);
    CHECK(back.items[0].id == quote(3));
    // A status change by id, and a new quote written through its 16 bytes.
    update_quote_status(session, *first, "EXPIRED", 5000);
    auto expired = find_quote(session, one, quote(1));
    REQUIRE(expired.has_value());
    CHECK(expired->status == "EXPIRED");
    CHECK(expired->updated_at_ms == 5000);
    auto copy = *first;
    copy.id = quote(9);
    copy.funding_reference = "REF9";
    insert_quote(session, copy);
    auto again = find_quote(session, one, copy.id);
    REQUIRE(again.has_value());
    CHECK(again->funding_reference == "REF9");
    CHECK(list_quotes(session, one, {}, {}).total_count == 3);
    // A transaction's quote, named by the same 16 bytes: its columns read through the join.
    const std::string paid_id = transaction(4), paid_quote = quote(4);
    session << "INSERT INTO transactions (" + std::string(transaction_columns) +
                   ") VALUES (packed_id(:i), 11, 'OUTGOING', 'PENDING', packed_id(:q), NULL, "
                   "'pc', 'ACCOUNT', 'InternalAccount:a', 'USD', 'ACCOUNT', 'InternalAccount:b', "
                   "'EUR', 1004, 90, 10, '9/10', '', 'note', '', 'TREF4', '', 0, 1004, 1004)",
        soci::use(paid_id), soci::use(paid_quote);
    auto paid = find_transaction(session, two, transaction(4));
    REQUIRE(paid.has_value());
    CHECK(paid->quote_id == quote(4));
    CHECK(paid->payment_instructions == "[]");
    CHECK(paid->rate_details_from_quote);
}
