// What the ledger writer remembers across batches (ledger/store/writer_facts.hpp): an account's
// owner, kind and currency are read once, and only a committed batch's reads are kept; a platform's
// configuration is read once and read again as soon as it changes, in this process or (written
// behind the process's back, as another process would) in the database.
#include "ledger/store/writer_facts.hpp"

#include <catch2/catch.hpp>
#include <functional>
#include <future>
#include <memory>

#include "ledger/book/book.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/store/ledger_writer.hpp"
#include "ledger/store/outbox.hpp"
#include "ledger/store/statement_cache.hpp"
#include "tests/support/function_job.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;

namespace {

// Runs `work` as one command of its own batch; true when it committed.
bool run_on(ledger_writer& writer, std::function<bool(soci::session&)> work) {
    return corridor::testing::submit(writer, std::move(work)).get();
}

// Statements the writer's thread sends while `work` runs.
template <class Work>
std::uint64_t statements_of(Work&& work) {
    std::uint64_t before = this_thread_traffic.statements;
    work();
    return this_thread_traffic.statements - before;
}

}  // namespace

TEST_CASE("ledger writer: an account's owner, kind and currency are read once, when committed",
          "[store][writer]") {
    testing::store_fixture f;
    book_services book{f.ids, f.random, f.clock};
    tenant owner{f.make_platform("facts.example"), environment::sandbox};
    std::string usd = ensure_account(f.session(), book, owner, account_kind::platform, "", "USD");
    std::string eur = ensure_account(f.session(), book, owner, account_kind::platform, "", "EUR");
    ledger_writer writer(f.database.url(), 64, 256);

    // Read in a batch that rolls back: not kept.
    std::uint64_t sent = 0;
    CHECK_FALSE(run_on(writer, [&](soci::session& s) {
        sent = statements_of([&] { CHECK(find_account_identity(s, owner, usd)); });
        return false;
    }));
    CHECK(sent >= 1);
    // Read in a savepoint rolled back: not kept either, while the batch's other read is.
    CHECK(run_on(writer, [&](soci::session& s) {
        run_control(s, "SAVEPOINT probe");
        CHECK(find_account_identity(s, owner, eur));
        run_control(s, "ROLLBACK TO SAVEPOINT probe");
        run_control(s, "RELEASE SAVEPOINT probe");
        sent = statements_of([&] { CHECK(find_account_identity(s, owner, usd)); });
        return true;
    }));
    CHECK(sent >= 1);
    CHECK(run_on(writer, [&](soci::session& s) {
        sent = statements_of([&] {
            auto known = find_account_identity(s, owner, usd);
            REQUIRE(known);
            CHECK(known->id == usd);
            CHECK(known->kind == account_kind::platform);
            CHECK(known->currency == "USD");
            CHECK(known->owner_id.empty());
            CHECK(known->owner.platform_id == owner.platform_id);
            // Another tenant's account reads as not found, from memory as from the database.
            CHECK_FALSE(
                find_account_identity(s, tenant{owner.platform_id, environment::production}, usd));
        });
        return true;
    }));
    CHECK(sent == 0);
    CHECK(run_on(writer, [&](soci::session& s) {
        sent =
            statements_of([&] { CHECK(find_account_identity(s, owner, eur)->currency == "EUR"); });
        return true;
    }));
    CHECK(sent >= 1);
    // Outside the writer nothing is remembered: the same answer, read.
    CHECK(find_account_identity(f.session(), owner, usd)->currency == "USD");
    writer.stop();
}

TEST_CASE("ledger writer: the accounts cache is bounded", "[writer]") {
    writer_facts facts(2);
    for (int i = 0; i < 5; ++i) {
        facts.saw_account({"InternalAccount:" + std::to_string(i), "Platform:p", "sandbox",
                           "CUSTOMER", "", "USD"});
        facts.committed();
        CHECK(facts.accounts_known() <= 4);
    }
    CHECK(facts.account("InternalAccount:4"));
    CHECK_FALSE(facts.account("InternalAccount:0"));
}

TEST_CASE("ledger writer: a platform's configuration is read again as soon as it changes",
          "[store][writer]") {
    testing::store_fixture f;
    tenant owner{f.make_platform("rules.example"), environment::sandbox};
    bool sqlite = f.database.backend() == database_backend::sqlite;
    ledger_writer writer(f.database.url(), 64, 256);

    // What a writer command sees of the USD limit, how many times it ran, what it sent.
    struct seen {
        std::int64_t max_amount = 0;
        int runs = 0;
        std::uint64_t statements = 0;
    };
    auto look = [&] {
        seen out;
        CHECK(run_on(writer, [&](soci::session& s) {
            ++out.runs;
            out.statements = statements_of([&] {
                auto config = load_platform_config_for_payment(s, owner);
                REQUIRE(config);
                const supported_currency* usd = find_supported_currency(*config, "USD");
                REQUIRE(usd);
                out.max_amount = usd->max_amount;
            });
            return true;
        }));
        return out;
    };
    auto stored_currencies = [&](std::int64_t max_amount) {
        return supported_currencies_to_json({{"USD", 1, max_amount, {"OUTGOING", "INCOMING"}, {}}});
    };

    CHECK(look().max_amount == 1000000);
    seen cached = look();
    CHECK(cached.max_amount == 1000000);
    // Nothing read but, on SQLite, the data version that says no one else has written.
    CHECK(cached.statements == (sqlite ? 1u : 0u));

    // Changed in this process: the next payment sees it.
    config_patch patch;
    patch.supported_currencies =
        std::vector<supported_currency>{{"USD", 1, 500, {"OUTGOING", "INCOMING"}, {}}};
    REQUIRE(update_platform_config(f.session(), f.platforms(), owner, patch));
    CHECK(look().max_amount == 500);
    CHECK(look().max_amount == 500);

    // Changed behind this process's back, as another process sharing the database would: on
    // SQLite the data version tells at once; on PostgreSQL the batch used the cached rules, its
    // COMMIT's check refuses them, and it runs again with the rules read afresh.
    std::string text = stored_currencies(300);
    std::string env_name(owner.env_name());
    f.session() << "UPDATE platform_configs SET supported_currencies = :c WHERE platform_id = :p "
                   "AND environment = :e",
        soci::use(text), soci::use(owner.platform_id), soci::use(env_name);
    seen changed = look();
    CHECK(changed.max_amount == 300);
    CHECK(changed.runs == (sqlite ? 1 : 2));
    seen again = look();
    CHECK(again.max_amount == 300);
    CHECK(again.runs == 1);
    CHECK(again.statements == (sqlite ? 1u : 0u));
    writer.stop();
}

namespace {

long long stored_tenant_key(soci::session& session, const std::string& event_id) {
    long long key = -1;
    session << "SELECT tenant_key FROM outbox_events WHERE id = packed_id(:i)", soci::use(event_id),
        soci::into(key);
    return key;
}

}  // namespace

// Events are written with their tenant's key (migration 44): a payment's is its configuration's,
// which the writer holds, so recording its events reads nothing; an event of a tenant whose
// configuration the batch did not load reads the key once, and no later batch reads it again (a
// key never changes). A tenant with no configuration fails its own command, not the batch.
TEST_CASE("ledger writer: events take their tenant's key from the configuration, read once",
          "[store][writer]") {
    testing::store_fixture f;
    tenant sandbox{f.make_platform("keys.example"), environment::sandbox};
    tenant production{sandbox.platform_id, environment::production};
    long long sandbox_key = load_platform_config(f.session(), sandbox)->tenant_key;
    long long production_key = load_platform_config(f.session(), production)->tenant_key;
    REQUIRE(sandbox_key != production_key);
    ledger_writer writer(f.database.url(), 64, 256);
    auto record = [&](soci::session& s, const tenant& owner, std::string& id) {
        return statements_of(
            [&] { id = record_event(s, f.ids, f.clock, owner, "ACCOUNT_STATUS", R"({"n":1})"); });
    };
    std::string paid, other, again;
    std::uint64_t sent_paid = 99, sent_other = 0, sent_again = 99;
    CHECK(run_on(writer, [&](soci::session& s) {
        REQUIRE(load_platform_config_for_payment(s, sandbox));
        sent_paid = record(s, sandbox, paid);
        sent_other = record(s, production, other);
        return true;
    }));
    CHECK(run_on(writer, [&](soci::session& s) {
        sent_again = record(s, production, again);
        return true;
    }));
    CHECK(sent_paid == 0);
    CHECK(sent_other >= 1);
    CHECK(sent_again == 0);
    CHECK(stored_tenant_key(f.session(), paid) == sandbox_key);
    CHECK(stored_tenant_key(f.session(), other) == production_key);
    CHECK(stored_tenant_key(f.session(), again) == production_key);

    // Two commands of one batch (queued while another holds the writer): the one whose event has
    // no tenant fails, the other commits.
    std::promise<void> started, release;
    auto released = release.get_future().share();
    auto hold = testing::submit(writer, [&](soci::session&) {
        started.set_value();
        released.wait();
        return true;
    });
    started.get_future().wait();
    std::string kept;
    auto orphan = testing::submit(writer, [&](soci::session& s) {
        std::string id;
        record(s, tenant{"Platform:none", environment::sandbox}, id);
        return true;
    });
    auto fine = testing::submit(writer, [&](soci::session& s) {
        record(s, sandbox, kept);
        return true;
    });
    release.set_value();
    CHECK(hold.get());
    CHECK_FALSE(orphan.get());
    CHECK(fine.get());
    writer.stop();
    CHECK(stored_tenant_key(f.session(), kept) == sandbox_key);
}
