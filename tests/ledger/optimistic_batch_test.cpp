// Payments created and executed at once, several in one ledger batch, as the server queues them. On
// PostgreSQL the batch's first attempt is optimistic (deferred_writes.hpp): the guarded debits and
// credits are queued and answered together before the flush, the customers' deletion and KYC
// state ride on the debit as conditions, and the ACCOUNT_STATUS events are completed from the
// balances the updates return. A refusal of any kind runs the batch again the way it always ran.
// These cases hold on both backends; the counters say which path was taken on PostgreSQL.
#include <algorithm>
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <functional>
#include <future>
#include <memory>
#include <optional>

#include "ledger/book/book.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/payments/payment_rows.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/store/event_payloads.hpp"
#include "ledger/store/ledger_writer.hpp"
#include "tests/support/function_job.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;
using corridor::testing::submit;

namespace {

constexpr const char* currencies_json = R"({"currencies": [
    {"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2},
    {"code": "EUR", "name": "Euro", "symbol": "E", "decimals": 2}]})";
// One to one without fees: a payment of n moves n on both sides.
constexpr const char* rates_json = R"({"base": "USD", "rates": {"USD": "1", "EUR": "1"},
    "pricing": {"spread_bps": 0, "variable_fee_bps": 0, "fixed_fee": {}}})";

struct customer_accounts {
    std::string id, usd, eur;
};

// The answer a payment got in the attempt that committed (a job runs again with its batch).
struct payment_answer {
    std::optional<payment_error> refused;
};

struct optimistic_fixture : testing::store_fixture {
    currency_registry currencies = currency_registry::from_json(currencies_json);
    table_rate_source rates{rate_table::from_json(rates_json)};
    funding_directory funding = funding_directory::from_json(R"({})");
    platform_config config;
    std::vector<customer_accounts> people;
    std::unique_ptr<ledger_writer> writer;

    optimistic_fixture() {
        new_platform request{"Optimist",
                             "optimist.example",
                             false,
                             {{"USD", 1, 1'000'000'000, {"OUTGOING", "INCOMING"}, {}},
                              {"EUR", 1, 1'000'000'000, {"OUTGOING", "INCOMING"}, {}}}};
        auto platform = create_platform(session(), platforms(), request);
        REQUIRE(platform.ok());
        config = *load_platform_config(session(), tenant{platform.value(), environment::sandbox});
        for (long long funds : {100000LL, 500LL, 100000LL}) people.push_back(open_customer(funds));
        session() << "DELETE FROM outbox_events";  // the funding's: the cases count payments
        writer = std::make_unique<ledger_writer>(database.url(), 64, 256);
    }
    ~optimistic_fixture() { writer->stop(); }

    customer_accounts open_customer(long long funds) {
        new_customer customer{std::nullopt, "INDIVIDUAL", "APPROVED", {}, {"USD", "EUR"}};
        auto created =
            create_customer(session(), customers(), config.owner, config.uma_domain, customer);
        REQUIRE(created.ok());
        customer_accounts out{created.value().id, "", ""};
        for (auto* currency : {"USD", "EUR"}) {
            std::string id;
            session() << "SELECT id FROM ledger_accounts WHERE owner_id = :c AND currency = :y",
                soci::use(out.id), soci::use(std::string(currency)), soci::into(id);
            (std::string(currency) == "USD" ? out.usd : out.eur) = id;
        }
        auto funded = fund_internal_account(session(), services(), config.owner, out.usd, funds);
        REQUIRE(funded.ok());
        return out;
    }
    payment_services services() {
        return payment_services{ids, random, clock, currencies, rates, funding, 60000};
    }
    quote_request payment(const std::string& from, const std::string& to, long long amount) {
        quote_request request;
        request.source_type = "ACCOUNT";
        request.source_account_id = from;
        request.destination_account_id = to;
        request.locked_amount = amount;
        return request;
    }
    // Queues a create-and-execute; the job fails (its command rolls back) when the payment is
    // refused, as the server's handler does.
    std::future<bool> pay(const std::string& from, const std::string& to, long long amount,
                          std::shared_ptr<payment_answer> answer) {
        return submit(*writer,
                      [this, request = payment(from, to, amount), answer](soci::session& s) {
                          auto paid = create_and_execute_quote(s, services(), config, request);
                          answer->refused = paid ? std::nullopt : std::optional(paid.error().code);
                          return paid.ok();
                      });
    }
    // Runs the payments as one batch: the writer is held in a job while they queue.
    std::vector<payment_answer> pay_in_one_batch(
        const std::vector<std::tuple<std::string, std::string, long long>>& payments) {
        std::promise<void> started, release;
        auto released = release.get_future().share();
        auto hold = submit(*writer, [&started, released](soci::session&) {
            started.set_value();
            released.wait();
            return true;
        });
        started.get_future().wait();
        std::vector<std::shared_ptr<payment_answer>> answers;
        std::vector<std::future<bool>> done;
        for (const auto& [from, to, amount] : payments) {
            answers.push_back(std::make_shared<payment_answer>());
            done.push_back(pay(from, to, amount, answers.back()));
        }
        release.set_value();
        REQUIRE(hold.get());
        round_trips_before = writer->round_trips_total();
        statements_before = writer->statements_total();
        std::vector<payment_answer> out;
        for (std::size_t i = 0; i < done.size(); ++i) {
            bool committed = done[i].get();
            CHECK(committed == !answers[i]->refused.has_value());
            out.push_back(*answers[i]);
        }
        return out;
    }
    std::uint64_t round_trips_before = 0, statements_before = 0;

    long long balance(const std::string& account) {
        return find_account(session(), config.owner, account)->balance();
    }
    bool postgres() { return database.backend() == database_backend::postgresql; }

    // The ACCOUNT_STATUS events of `account`: (old, new) balances.
    std::vector<std::pair<long long, long long>> balance_events(const std::string& account) {
        soci::rowset<std::string> rows =
            session().prepare << "SELECT payload FROM outbox_events WHERE type = 'ACCOUNT_STATUS'";
        std::vector<std::pair<long long, long long>> out;
        for (const auto& stored : rows) {
            auto payload = boost::json::parse(unpack_event_payload(stored)).as_object();
            if (payload.at("accountId").as_string() != account) continue;
            out.emplace_back(payload.at("oldBalance").at("amount").to_number<long long>(),
                             payload.at("newBalance").at("amount").to_number<long long>());
        }
        return out;
    }
};

// The events of an account that only moved one way (`down`: debits) since `start`: each event's
// old balance is the one before it, ending at `end`, whatever order the rows come back in.
void check_chain(std::vector<std::pair<long long, long long>> events, long long start,
                 long long end, bool down, std::size_t count) {
    REQUIRE(events.size() == count);
    std::sort(events.begin(), events.end(), [down](const auto& a, const auto& b) {
        return down ? a.first > b.first : a.first < b.first;
    });
    long long at = start;
    for (const auto& [old_balance, new_balance] : events) {
        CHECK(old_balance == at);
        CHECK((down ? new_balance < old_balance : new_balance > old_balance));
        at = new_balance;
    }
    CHECK(at == end);
}

}  // namespace

TEST_CASE_METHOD(
    optimistic_fixture,
    "optimistic batch: payments hitting one account get exact balances in their events",
    "[store][writer]") {
    const auto &a = people[0], &c = people[2];
    // A first batch reads what the writer then remembers (accounts, platformCustomerIds).
    auto warm = pay_in_one_batch({{a.usd, c.eur, 1000}, {c.usd, a.eur, 1000}});
    REQUIRE_FALSE(warm[0].refused);
    REQUIRE_FALSE(warm[1].refused);
    auto answers = pay_in_one_batch(
        {{a.usd, c.eur, 100}, {a.usd, c.eur, 200}, {a.usd, c.eur, 300}, {a.usd, c.eur, 400}});
    for (const auto& answer : answers) CHECK_FALSE(answer.refused);
    std::uint64_t round_trips = writer->round_trips_total() - round_trips_before;
    CHECK(balance(a.usd) == 100000 - 1000 - 1000);
    CHECK(balance(c.eur) == 1000 + 1000);
    check_chain(balance_events(a.usd), 100000, 100000 - 2000, true, 1 + 4);
    check_chain(balance_events(c.eur), 0, 2000, false, 1 + 4);
    CHECK(writer->optimistic_refusals() == 0);
    // On PostgreSQL four payments cost two round trips: BEGIN with their guarded updates, then the
    // flush with COMMIT.
    if (postgres()) CHECK(round_trips == 2);

    // On PostgreSQL a payment adds its guarded debit and credit to its batch, and the checks of
    // its sender (live, approved) and receiver (live) unless a check queued before in the batch
    // proves them: a customer is checked once per batch (again only when it must now be approved
    // where it was only checked live). Its quote and transactions are inserted as their final
    // rows, with the batch's others.
    std::uint64_t four = writer->statements_total() - statements_before;
    answers = pay_in_one_batch({{a.usd, c.eur, 1},
                                {a.usd, c.eur, 2},
                                {a.usd, c.eur, 3},
                                {a.usd, c.eur, 4},
                                {c.usd, a.eur, 5},
                                {c.usd, a.eur, 6},
                                {c.usd, a.eur, 7},
                                {c.usd, a.eur, 8}});
    for (const auto& answer : answers) CHECK_FALSE(answer.refused);
    std::uint64_t eight = writer->statements_total() - statements_before;
    // Four payments more, and one check more: c, checked live as a's receiver, now as a sender.
    if (postgres()) CHECK(eight == four + 4 * 2 + 1);
    long long quotes = 0, completed = 0;
    session() << "SELECT COUNT(*), COUNT(*) FILTER (WHERE status = 'COMPLETED') FROM quotes",
        soci::into(quotes), soci::into(completed);
    CHECK(quotes == 2 + 4 + 8);
    CHECK(completed == quotes);
    CHECK(audit_book(session()).empty());
}

TEST_CASE_METHOD(optimistic_fixture,
                 "optimistic batch: a refused debit gets its own answer, the batch's others commit",
                 "[store][writer]") {
    const auto &a = people[0], &poor = people[1], &c = people[2];
    pay_in_one_batch({{a.usd, c.eur, 10}, {poor.usd, a.eur, 10}, {c.usd, a.eur, 10}});
    auto answers =
        pay_in_one_batch({{a.usd, c.eur, 100}, {poor.usd, a.eur, 1000}, {a.usd, c.eur, 200}});
    CHECK_FALSE(answers[0].refused);
    CHECK(answers[1].refused == payment_error::insufficient_balance);
    CHECK_FALSE(answers[2].refused);
    CHECK(writer->optimistic_refusals() == (postgres() ? 1 : 0));
    CHECK(balance(a.usd) == 100000 - 10 - 300);
    CHECK(balance(poor.usd) == 500 - 10);
    CHECK(balance(c.eur) == 10 + 300);
    // The refused payment left no transfer, no event and no quote.
    check_chain(balance_events(a.usd), 100000, 100000 - 310, true, 3);
    check_chain(balance_events(poor.usd), 500, 490, true, 1);
    CHECK(audit_book(session()).empty());
}

TEST_CASE_METHOD(optimistic_fixture,
                 "optimistic batch: a customer deleted or no longer approved since is refused",
                 "[store][writer]") {
    const auto &a = people[0], &b = people[1], &c = people[2];
    pay_in_one_batch({{a.usd, c.eur, 10}, {b.usd, a.eur, 10}, {c.usd, b.eur, 10}});
    std::uint64_t refusals = writer->optimistic_refusals();
    // Changed by another process: the writer's memory of these customers does not know.
    session() << "UPDATE customers SET kyc_status = 'REJECTED' WHERE id = :i", soci::use(a.id);
    auto answers = pay_in_one_batch({{a.usd, c.eur, 100}, {c.usd, b.eur, 100}});
    CHECK(answers[0].refused == payment_error::user_not_ready);
    CHECK_FALSE(answers[1].refused);
    CHECK(writer->optimistic_refusals() == refusals + (postgres() ? 1 : 0));

    session() << "UPDATE customers SET kyc_status = 'APPROVED' WHERE id = :i", soci::use(a.id);
    session() << "UPDATE customers SET is_deleted = 1 WHERE id = :i", soci::use(c.id);
    answers = pay_in_one_batch({{a.usd, c.eur, 100}, {c.usd, b.eur, 100}, {b.usd, a.eur, 100}});
    CHECK(answers[0].refused == payment_error::customer_deleted);  // the receiver
    CHECK(answers[1].refused == payment_error::customer_deleted);  // the sender
    CHECK_FALSE(answers[2].refused);
    CHECK(writer->optimistic_refusals() == refusals + (postgres() ? 2 : 0));
    CHECK(balance(a.usd) == 100000 - 10);
    CHECK(balance(c.usd) == 100000 - 10 - 100);
    CHECK(balance(a.eur) == 10 + 100);

    // A refusal that comes before the amount's check keeps its precedence: the deleted sender's
    // payment of an amount past the limit is refused as a deleted customer's.
    answers = pay_in_one_batch({{c.usd, a.eur, 2'000'000'000}, {b.usd, a.eur, 10}});
    CHECK(answers[0].refused == payment_error::customer_deleted);
    CHECK_FALSE(answers[1].refused);
    CHECK(audit_book(session()).empty());
}

TEST_CASE_METHOD(optimistic_fixture,
                 "optimistic batch: a customer checked live as a receiver is checked again when it "
                 "sends",
                 "[store][writer]") {
    const auto &a = people[0], &c = people[2];
    pay_in_one_batch({{a.usd, c.eur, 10}, {c.usd, a.eur, 10}});
    std::uint64_t refusals = writer->optimistic_refusals();
    session() << "UPDATE customers SET kyc_status = 'REJECTED' WHERE id = :i", soci::use(c.id);
    // c receives first (live is all a receiver needs), then sends (it must be approved): its
    // check as a receiver in the same batch does not answer for its check as a sender.
    auto answers = pay_in_one_batch({{a.usd, c.eur, 100}, {c.usd, a.eur, 100}, {a.usd, c.eur, 1}});
    CHECK_FALSE(answers[0].refused);
    CHECK(answers[1].refused == payment_error::user_not_ready);
    CHECK_FALSE(answers[2].refused);
    CHECK(writer->optimistic_refusals() == refusals + (postgres() ? 1 : 0));
    CHECK(balance(a.usd) == 100000 - 10 - 101);
    CHECK(balance(c.usd) == 100000 - 10);
    CHECK(balance(c.eur) == 10 + 101);
    CHECK(audit_book(session()).empty());
}

TEST_CASE_METHOD(optimistic_fixture,
                 "optimistic batch: a quote executed after its sender's KYC was revoked is refused",
                 "[store][writer]") {
    const auto &a = people[0], &c = people[2];
    pay_in_one_batch({{a.usd, c.eur, 10}});
    std::string quote_id;
    REQUIRE(submit(*writer, [&](soci::session& s) {
                auto quote = create_quote(s, services(), config, payment(a.usd, c.eur, 100));
                if (quote) quote_id = quote->id;
                return quote.ok();
            }).get());
    session() << "UPDATE customers SET kyc_status = 'PENDING_REVIEW' WHERE id = :i",
        soci::use(a.id);
    std::optional<payment_error> refused;
    CHECK_FALSE(submit(*writer, [&](soci::session& s) {
                    auto executed = execute_quote(s, services(), config.owner, quote_id);
                    refused = executed ? std::nullopt : std::optional(executed.error().code);
                    return executed.ok();
                }).get());
    CHECK(refused == payment_error::user_not_ready);
    CHECK(balance(a.usd) == 100000 - 10);
}

namespace {

// Every column of `table`'s row `id` but those in `skip` (ids and references that differ between
// two payments), each with its stored type on SQLite: a number stored as text would differ.
std::vector<std::string> stored_row(soci::session& s, bool postgres, const std::string& table,
                                    const std::string& columns, const std::string& id,
                                    const std::vector<std::string>& skip) {
    std::vector<std::string> names;
    for (std::size_t at = 0; at < columns.size();) {
        std::size_t end = std::min(columns.find(", ", at), columns.size());
        names.push_back(columns.substr(at, end - at));
        at = end + 2;
    }
    std::vector<std::string> out;
    for (const auto& name : names) {
        if (std::find(skip.begin(), skip.end(), name) != skip.end()) continue;
        std::string value;
        // Ids stored as 16 bytes compared by their hex (SQLite's text of a blob stops at a 0).
        std::string expression = postgres ? "CAST(" + name + " AS TEXT)"
                                          : "typeof(" + name + ") || ':' || CASE typeof(" + name +
                                                ") WHEN 'blob' THEN hex(" + name + ") ELSE " +
                                                name + " END";
        // Transactions and quotes store their ids as 16 bytes (migrations 49 and 50).
        s << "SELECT " + expression + " FROM " + table + " WHERE id = packed_id(:i)", soci::use(id),
            soci::into(value);
        out.push_back(name + "=" + value);
    }
    return out;
}

}  // namespace

TEST_CASE_METHOD(optimistic_fixture,
                 "optimistic batch: a created-and-executed payment's rows are those written one by "
                 "one",
                 "[store][writer]") {
    const auto &a = people[0], &c = people[2];
    // The reference: outside the writer's batch every row is inserted and then updated at once.
    auto direct =
        create_and_execute_quote(session(), services(), config, payment(a.usd, c.eur, 70));
    REQUIRE(direct.ok());
    // In the writer's batch the quote and its transactions are kept and written at the flush.
    std::string batched_id;
    REQUIRE(submit(*writer, [&](soci::session& s) {
                auto paid =
                    create_and_execute_quote(s, services(), config, payment(a.usd, c.eur, 70));
                if (paid) batched_id = paid->id;
                return paid.ok();
            }).get());
    REQUIRE(batched_id != direct->id);
    auto quote_row = [&](const std::string& id) {
        return stored_row(session(), postgres(), "quotes", quote_columns, id,
                          {"id", "transaction_id", "funding_reference"});
    };
    auto batched = find_quote(session(), config.owner, batched_id);
    REQUIRE(batched.has_value());
    CHECK(batched->status == "COMPLETED");
    CHECK(quote_row(batched_id) == quote_row(direct->id));
    // The OUTGOING and INCOMING transactions of each, in that order.
    auto transactions_of = [&](const std::string& quote_id) {
        std::vector<std::string> ids(2);
        session() << "SELECT typed_id('Transaction', id) FROM transactions WHERE quote_id = "
                     "packed_id(:q) AND type = 'OUTGOING'",
            soci::use(quote_id), soci::into(ids[0]);
        session() << "SELECT typed_id('Transaction', id) FROM transactions WHERE quote_id = "
                     "packed_id(:q) AND type = 'INCOMING'",
            soci::use(quote_id), soci::into(ids[1]);
        return ids;
    };
    auto batched_transactions = transactions_of(batched_id);
    auto direct_transactions = transactions_of(direct->id);
    for (std::size_t i = 0; i < 2; ++i) {
        REQUIRE_FALSE(batched_transactions[i].empty());
        REQUIRE_FALSE(direct_transactions[i].empty());
        auto row = [&](const std::string& id) {
            return stored_row(session(), postgres(), "transactions", transaction_columns, id,
                              {"id", "quote_id", "reference"});
        };
        CHECK(row(batched_transactions[i]) == row(direct_transactions[i]));
    }
    CHECK(audit_book(session()).empty());
}

namespace {

// The statuses of the OUTGOING_PAYMENT events written for `transaction_id`, sorted.
std::vector<std::string> outgoing_event_statuses(soci::session& s,
                                                 const std::string& transaction_id) {
    soci::rowset<std::string> rows =
        s.prepare << "SELECT payload FROM outbox_events WHERE type = 'OUTGOING_PAYMENT'";
    std::vector<std::string> out;
    for (const auto& stored : rows) {
        auto payload = boost::json::parse(unpack_event_payload(stored)).as_object();
        const auto& transaction = payload.at("transaction").as_object();
        if (transaction.at("id").as_string() != transaction_id) continue;
        out.emplace_back(transaction.at("status").as_string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

long long count_rows(soci::session& s, const std::string& sql) {
    long long n = 0;
    s << sql, soci::into(n);
    return n;
}

}  // namespace

TEST_CASE_METHOD(optimistic_fixture,
                 "one event per state that commits: a payment executed at once sends COMPLETED "
                 "only, a quote kept PENDING sends PENDING, a refused one sends nothing",
                 "[store][writer]") {
    const auto &a = people[0], &poor = people[1], &c = people[2];
    std::string paid_transaction;
    REQUIRE(submit(*writer, [&](soci::session& s) {
                auto paid =
                    create_and_execute_quote(s, services(), config, payment(a.usd, c.eur, 70));
                if (paid) paid_transaction = paid->transaction_id;
                return paid.ok();
            }).get());
    CHECK(outgoing_event_statuses(session(), paid_transaction) ==
          std::vector<std::string>{"COMPLETED"});
    // The payment's other events are unchanged: the receiver's and both balances.
    CHECK(count_rows(session(),
                     "SELECT COUNT(*) FROM outbox_events WHERE type = "
                     "'INCOMING_PAYMENT'") == 1);
    CHECK(count_rows(session(),
                     "SELECT COUNT(*) FROM outbox_events WHERE type = "
                     "'ACCOUNT_STATUS'") == 2);

    // Created without execution: its PENDING state commits and is sent; executing it later sends
    // COMPLETED.
    std::string quote_id, kept_transaction;
    REQUIRE(submit(*writer, [&](soci::session& s) {
                auto quote = create_quote(s, services(), config, payment(a.usd, c.eur, 80));
                if (quote) quote_id = quote->id, kept_transaction = quote->transaction_id;
                return quote.ok();
            }).get());
    CHECK(outgoing_event_statuses(session(), kept_transaction) ==
          std::vector<std::string>{"PENDING"});
    REQUIRE(submit(*writer, [&](soci::session& s) {
                return execute_quote(s, services(), config.owner, quote_id).ok();
            }).get());
    CHECK(outgoing_event_statuses(session(), kept_transaction) ==
          std::vector<std::string>{"COMPLETED", "PENDING"});

    // Refused at once: the command rolls back, so no quote, transaction nor event was committed.
    long long events_before = count_rows(session(), "SELECT COUNT(*) FROM outbox_events");
    auto answers = pay_in_one_batch({{poor.usd, a.eur, 1000}});
    CHECK(answers[0].refused == payment_error::insufficient_balance);
    CHECK(count_rows(session(), "SELECT COUNT(*) FROM outbox_events") == events_before);
    CHECK(count_rows(session(), "SELECT COUNT(*) FROM quotes") == 2);
}
