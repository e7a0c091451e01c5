// The rows a ledger batch keeps for its flush come out exactly as one INSERT per row wrote them,
// however many there are (on SQLite they go in multi-row statements of up to 64 rows, cut by
// powers of two; on PostgreSQL one statement per table): every transfer with its values, every
// event with its payload, and each event PENDING or closed (NO_ENDPOINT) by its own tenant's
// webhook endpoint and its purpose.
#include <catch2/catch.hpp>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <vector>

#include "ledger/book/book.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/store/event_payloads.hpp"
#include "ledger/store/ledger_writer.hpp"
#include "ledger/store/outbox.hpp"
#include "tests/support/function_job.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;
using corridor::testing::submit;

namespace {

// A transaction id of the test's own (transfers store the uuid of theirs).
std::string transaction_of(int i) {
    std::string digits = std::to_string(i);
    return "Transaction:0190a000-0000-7000-8000-" + std::string(12 - digits.size(), '0') + digits;
}

struct tenant_accounts {
    tenant owner;
    std::string platform, liquidity;
};

tenant_accounts open_tenant(testing::store_fixture& f, book_services book,
                            const std::string& domain, bool endpoint) {
    tenant owner{f.make_platform(domain), environment::sandbox};
    if (endpoint) {
        config_patch patch;
        patch.webhook_endpoint = std::optional<std::string>("https://" + domain + "/hooks");
        REQUIRE(update_platform_config(f.session(), f.platforms(), owner, patch).ok());
    }
    tenant_accounts a{owner,
                      ensure_account(f.session(), book, owner, account_kind::platform, "", "USD"),
                      ensure_account(f.session(), book, owner, account_kind::liquidity, "", "USD")};
    REQUIRE(post_transfer(f.session(), book, owner,
                          {a.liquidity, a.platform, 100000, "USD", "fund", ""})
                .ok());
    return a;
}

struct stored_event {
    std::string platform, type, payload, state, purpose;
    long long attempts = -1, due_ms = -1, created_ms = -1;
    std::optional<long long> finished_ms;
};

std::map<std::string, stored_event> events_by_id(soci::session& session) {
    std::map<std::string, stored_event> out;
    std::string id, payload;
    stored_event e;
    long long finished = 0;
    soci::indicator finished_ind = soci::i_ok;
    soci::statement select =
        (session.prepare << "SELECT typed_id('Webhook', o.id), c.platform_id, o.type, o.payload, "
                            "o.state, o.purpose, "
                            "o.attempts, o.next_attempt_at_ms, o.created_at_ms, o.finished_at_ms "
                            "FROM outbox_events o JOIN platform_configs c ON c.tenant_key = "
                            "o.tenant_key",
         soci::into(id), soci::into(e.platform), soci::into(e.type), soci::into(payload),
         soci::into(e.state), soci::into(e.purpose), soci::into(e.attempts), soci::into(e.due_ms),
         soci::into(e.created_ms), soci::into(finished, finished_ind));
    select.execute();
    while (select.fetch()) {
        stored_event row = e;
        row.payload = unpack_event_payload(payload);
        if (finished_ind == soci::i_ok) row.finished_ms = finished;
        out.emplace(id, row);
    }
    return out;
}

}  // namespace

TEST_CASE("ledger writer: a flush of many rows writes each as a single insert would",
          "[store][writer]") {
    testing::store_fixture f;
    book_services book{f.ids, f.random, f.clock};
    tenant_accounts hooked = open_tenant(f, book, "hooked.example", true);
    tenant_accounts quiet = open_tenant(f, book, "quiet.example", false);
    ledger_writer writer(f.database.url(), 512, 1024);
    // 101 commands: 202 transfers and 303 events, past several statement sizes and a remainder.
    constexpr int commands = 101;
    struct recorded {
        std::string id, platform, type, payload;
        event_purpose purpose;
    };
    std::vector<recorded> events;
    std::vector<std::future<bool>> done;
    std::promise<void> release;
    auto released = release.get_future().share();
    std::promise<void> started;
    auto hold = submit(writer, [&](soci::session&) {
        started.set_value();
        released.wait();
        return true;
    });
    started.get_future().wait();
    for (int i = 0; i < commands; ++i) {
        done.push_back(submit(writer, [&, i](soci::session& s) {
            for (const tenant_accounts* t : {&hooked, &quiet}) {
                if (!post_transfer(
                         s, book, t->owner,
                         {t->platform, t->liquidity, i + 1, "USD", "send", transaction_of(i)})
                         .ok())
                    return false;
            }
            std::string payload = R"({"n":)" + std::to_string(i) + R"(,"q":"a\"b\\c"})";
            events.push_back(
                {record_event(s, f.ids, f.clock, hooked.owner, "ACCOUNT_STATUS", payload),
                 hooked.owner.platform_id, "ACCOUNT_STATUS", payload, event_purpose::notify});
            events.push_back(
                {record_event(s, f.ids, f.clock, quiet.owner, "OUTGOING_PAYMENT", payload),
                 quiet.owner.platform_id, "OUTGOING_PAYMENT", payload, event_purpose::notify});
            // Not a notification: sent whatever the endpoint (its own delivery round closes it).
            events.push_back(
                {record_event(s, f.ids, f.clock, quiet.owner, "TEST", payload, event_purpose::test),
                 quiet.owner.platform_id, "TEST", payload, event_purpose::test});
            return true;
        }));
    }
    release.set_value();
    REQUIRE(hold.get());
    for (auto& d : done) REQUIRE(d.get());
    writer.stop();

    auto stored = events_by_id(f.session());
    REQUIRE(stored.size() == events.size());
    for (const auto& e : events) {
        auto found = stored.find(e.id);
        REQUIRE(found != stored.end());
        const stored_event& s = found->second;
        CHECK(s.platform == e.platform);
        CHECK(s.type == e.type);
        CHECK(s.payload == e.payload);
        CHECK(s.purpose == to_string(e.purpose));
        CHECK(s.attempts == 0);
        CHECK(s.due_ms == s.created_ms);
        bool closed = e.purpose == event_purpose::notify && e.platform == quiet.owner.platform_id;
        CHECK(s.state == (closed ? "NO_ENDPOINT" : "PENDING"));
        CHECK(s.finished_ms == (closed ? std::optional<long long>(s.created_ms) : std::nullopt));
    }

    long long transfers = 0, amounts = 0, matching = 0;
    {
        // Each row as its command posted it: its transaction (packed, read back as its id), its
        // accounts (by key), amount and currency.
        std::string transaction, debit, credit, currency;
        long long amount = 0;
        soci::statement select =
            (f.session().prepare
                 << "SELECT typed_id('Transaction', t.transaction_id), d.id, c.id, t.amount, "
                    "t.currency FROM ledger_transfers t JOIN ledger_accounts d ON d.account_key "
                    "= t.debit_account_key JOIN ledger_accounts c ON c.account_key = "
                    "t.credit_account_key WHERE t.code = 'send'",
             soci::into(transaction), soci::into(debit), soci::into(credit), soci::into(amount),
             soci::into(currency));
        select.execute(false);
        while (select.fetch()) {
            ++transfers;
            amounts += amount;
            bool accounts = (debit == hooked.platform && credit == hooked.liquidity) ||
                            (debit == quiet.platform && credit == quiet.liquidity);
            matching += accounts && transaction == transaction_of(static_cast<int>(amount - 1)) &&
                        currency == "USD";
        }
    }
    CHECK(transfers == 2 * commands);
    CHECK(amounts == 2 * (commands * (commands + 1) / 2));
    CHECK(matching == 2 * commands);
    for (const tenant_accounts* t : {&hooked, &quiet}) {
        CHECK(find_account(f.session(), t->owner, t->platform)->balance() ==
              100000 - commands * (commands + 1) / 2);
    }
    CHECK(audit_book(f.session()).empty());
}
