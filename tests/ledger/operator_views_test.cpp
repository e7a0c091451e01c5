// The operator's view of one payment (`corridor payment show`, the dashboard's transaction page) on
// a ledger full of other payments: it shows exactly the transaction's transfers and webhook events,
// and reads them by a range of the primary key (the ids of the transaction's lifetime), never the
// whole of ledger_transfers or outbox_events. Runs on SQLite and on PostgreSQL ([store]).
#include "ledger/payments/operator_views.hpp"

#include <catch2/catch.hpp>
#include <cctype>
#include <string>
#include <vector>

#include "ledger/book/book.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/outbox.hpp"
#include "tests/rails/funded_account.hpp"
#include "tests/support/store_fixture.hpp"

namespace corridor {
namespace {

using testing::store_fixture;

// A ledger of `before` payments, one every `step_ms`, then the payment under test (a transfer, its
// row and its event; five minutes later a refund and its FAILED event, with a few other payments
// between), then `after` payments more. Every other payment has a transfer and an event of its own.
struct busy_ledger : store_fixture {
    busy_ledger(int before, int after, std::int64_t step_ms) {
        owner = tenant{make_platform("views.example"), environment::sandbox};
        book_services book{ids, random, clock};
        settlement = ensure_account(session(), book, owner, account_kind::settlement, "", "USD");
        account = testing::platform_account(*this, owner, "USD");
        write_transaction transaction(session());
        others(before, step_ms);
        // Posted a moment before the transaction's own time is read, as a deposit does.
        target.id = ids.next("Transaction");
        transfers.push_back(post(target.id, settlement, account));
        clock.advance_ms(3);
        open_target();
        for (int i = 0; i < 5; ++i) {
            others(3, 20'000);
            clock.advance_ms(20'000);
        }
        transfers.push_back(post(target.id, account, settlement));
        target.status = "FAILED";
        target.updated_at_ms = clock.now_ms();
        store_transaction_outcome(session(), target);
        events.push_back(event_about(target.id));
        others(after, step_ms);
        transaction.commit();
    }

    void open_target() {
        target.owner = owner;
        target.type = "INCOMING";
        target.status = "PENDING";
        target.source_type = "REALTIME_FUNDING";
        target.source_currency = target.destination_currency = "USD";
        target.destination_type = "ACCOUNT";
        target.destination_account_id = account;
        target.received_amount = 100;
        target.rate_details = "{}";
        target.created_at_ms = target.updated_at_ms = clock.now_ms();
        store_new_transaction(session(), target);
        events.push_back(event_about(target.id));
    }

    std::string post(const std::string& transaction_id, const std::string& debit,
                     const std::string& credit) {
        book_services book{ids, random, clock};
        auto posted = post_transfer(session(), book, owner,
                                    {debit, credit, 100, "USD", "fund", transaction_id});
        REQUIRE(posted.ok());
        return posted.value();
    }

    std::string event_about(const std::string& transaction_id) {
        return record_event(session(), ids, clock, owner, "INCOMING_PAYMENT",
                            R"({"type":"INCOMING_PAYMENT","data":{"id":")" + transaction_id +
                                R"(","status":"PENDING"}})");
    }

    void others(int count, std::int64_t step_ms) {
        for (int i = 0; i < count; ++i) {
            clock.advance_ms(step_ms);
            std::string other = ids.next("Transaction");
            post(other, settlement, account);
            event_about(other);
        }
    }

    tenant owner;
    std::string settlement, account;
    transaction_record target;
    std::vector<std::string> transfers, events;  // the target's, in the order they were made
};

std::vector<std::string> ids_of(const std::vector<view_row>& rows) {
    std::vector<std::string> out;
    for (const auto& row : rows) out.push_back(field_text(row, "id"));
    return out;
}

// The statement with its parameters written in as literals (ids and a LIKE pattern, no quote in
// them), so that one EXPLAIN serves both databases.
std::string with_literals(std::string sql, const std::vector<std::string>& params) {
    std::size_t at = 0;
    for (const auto& param : params) {
        REQUIRE(param.find('\'') == std::string::npos);
        at = sql.find(':', at);
        REQUIRE(at != std::string::npos);
        std::size_t end = at + 1;
        while (end < sql.size() && std::isalnum(static_cast<unsigned char>(sql[end]))) ++end;
        std::string literal = "'" + param + "'";
        sql.replace(at, end - at, literal);
        at += literal.size();
    }
    REQUIRE(sql.find(':', at) == std::string::npos);
    return sql;
}

// The plan's lines: SQLite's EXPLAIN QUERY PLAN details, or PostgreSQL's EXPLAIN text.
std::string plan_of(soci::session& session, database_backend backend, const std::string& sql) {
    std::string explain = backend == database_backend::sqlite ? "EXPLAIN QUERY PLAN " : "EXPLAIN ";
    soci::rowset<soci::row> rows = session.prepare << explain + sql;
    std::string plan;
    for (const auto& row : rows) plan += row.get<std::string>(row.size() - 1) + "\n";
    return plan;
}

}  // namespace

TEST_CASE("a payment's view shows exactly its transfers and events on a busy ledger",
          "[store][operator]") {
    busy_ledger ledger(300, 300, 2'000);
    auto view = find_payment_view(ledger.session(), ledger.target.id);
    REQUIRE(view.has_value());
    CHECK(field_text(view->transaction, "status") == "FAILED");
    // Both transfers: the one made before the transaction's time, and the refund at its last
    // change; none of the others', made before, between and after.
    CHECK(ids_of(view->postings) == ledger.transfers);
    CHECK(ids_of(view->webhook_events) == ledger.events);
    for (const auto& posting : view->postings) CHECK(field_text(posting, "amount") == "100");
}

TEST_CASE("a payment's view reads transfers and events by a range of their primary key",
          "[store][operator]") {
    // A long history (a payment every half minute for 25 hours each side) around a lifetime of
    // five minutes: the range holds a few dozen rows of thousands.
    busy_ledger ledger(3'000, 3'000, 30'000);
    auto backend = ledger.database.backend();
    if (backend == database_backend::postgresql) ledger.session() << "ANALYZE";
    auto reads = payment_view_range_reads(ledger.session(), ledger.target.id);
    REQUIRE(reads.size() == 2);
    // The transfers' read names the table `t` (it joins the accounts, which postings name by
    // key, migration 46) and compares packed ids.
    struct range_read {
        std::string table, name, range;
    };
    const range_read expected[] = {
        {"ledger_transfers", "t", "FROM ledger_transfers t JOIN"},
        {"outbox_events", "outbox_events", "FROM outbox_events WHERE id >= packed_id(:"}};
    for (std::size_t i = 0; i < reads.size(); ++i) {
        const std::string& table = expected[i].table;
        const std::string& name = expected[i].name;
        INFO(reads[i].sql);
        REQUIRE(reads[i].sql.find(expected[i].range) != std::string::npos);
        std::string plan =
            plan_of(ledger.session(), backend, with_literals(reads[i].sql, reads[i].params));
        INFO(plan);
        if (backend == database_backend::sqlite) {
            bool by_key = plan.find("SEARCH " + name + " USING PRIMARY KEY (id>? AND id<?)") !=
                              std::string::npos ||
                          plan.find("SEARCH " + name + " USING INDEX sqlite_autoindex_" + table) !=
                              std::string::npos;
            CHECK(by_key);
            CHECK(plan.find("SCAN " + name) == std::string::npos);
            // The accounts of each posting by their key, never a scan of them.
            CHECK(plan.find("SCAN d") == std::string::npos);
            CHECK(plan.find("SCAN c") == std::string::npos);
        } else {
            bool by_key =
                plan.find("Index Scan using " + table + "_pkey") != std::string::npos ||
                plan.find("Index Only Scan using " + table + "_pkey") != std::string::npos;
            CHECK(by_key);
            CHECK(plan.find("Index Cond: ((id >= ") != std::string::npos);
            // (The events' tenant key comes from platform_configs, a row per tenant.)
            CHECK(plan.find("Seq Scan on " + table) == std::string::npos);
        }
    }
    // The range reads the same rows as the view.
    auto view = find_payment_view(ledger.session(), ledger.target.id);
    REQUIRE(view.has_value());
    CHECK(ids_of(view->postings) == ledger.transfers);
    CHECK(ids_of(view->webhook_events) == ledger.events);
}

}  // namespace corridor
