// The delivery loop with a scripted transport in place of the network: it claims due events, signs
// them verifiably, records each attempt, and feeds the answer to an approval event into the
// incoming payment's decision in the same transaction.
#include "server/workers/delivery_worker.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <thread>

#include "ledger/base/time_format.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/payments/approvals.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/platforms/webhook_keys.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/ledger_writer.hpp"
#include "ledger/store/outbox.hpp"
#include "server/api/app.hpp"
#include "tests/support/test_database.hpp"

using namespace corridor;

namespace {

constexpr const char* currencies_json = R"({"currencies": [
    {"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2}]})";
constexpr const char* rates_json = R"({"base": "USD", "rates": {"USD": "1"},
    "pricing": {"spread_bps": 0, "variable_fee_bps": 0, "fixed_fee": {}}})";

// Answers every POST at once with `status` and `body`, and keeps what was sent.
class scripted_transport final : public outbound_transport {
public:
    void post(outbound_request request, std::function<void(outbound_response)> done) override {
        outbound_response response;
        {
            std::lock_guard lock(mutex_);
            sent_.push_back(request);
            response.status = status;
            response.body = body;
        }
        done(std::move(response));
    }
    std::vector<outbound_request> sent() {
        std::lock_guard lock(mutex_);
        return sent_;
    }
    int status = 200;
    std::string body;

private:
    std::mutex mutex_;
    std::vector<outbound_request> sent_;
};

// Never answers on its own: keeps each request and its callback until the test answers it.
class held_transport final : public outbound_transport {
public:
    void post(outbound_request request, std::function<void(outbound_response)> done) override {
        std::lock_guard lock(mutex_);
        sent_.push_back(std::move(request));
        waiting_.push_back(std::move(done));
    }
    std::vector<outbound_request> sent() {
        std::lock_guard lock(mutex_);
        return sent_;
    }
    void answer_one(int status) {
        std::function<void(outbound_response)> done;
        {
            std::lock_guard lock(mutex_);
            REQUIRE(!waiting_.empty());
            done = std::move(waiting_.front());
            waiting_.erase(waiting_.begin());
        }
        outbound_response response;
        response.status = status;
        done(std::move(response));
    }

private:
    std::mutex mutex_;
    std::vector<outbound_request> sent_;
    std::vector<std::function<void(outbound_response)>> waiting_;
};

long long count_of(soci::session& session, const std::string& sql) {
    long long count = 0;
    session << sql, soci::into(count);
    return count;
}

// A gauge of the worker's /metrics text; -1 when it is not there.
long long gauge_of(const delivery_worker& worker, const std::string& name) {
    auto text = worker.metrics_text();
    auto line = "\n" + name + " ";
    auto at = text.find(line);
    return at == std::string::npos ? -1 : std::stoll(text.substr(at + line.size()));
}

template <class Predicate>
bool within_ms(int timeout_ms, Predicate predicate) {
    for (int waited = 0; waited < timeout_ms; waited += 10) {
        if (predicate()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return predicate();
}

struct worker_fixture {
    worker_fixture()
        : ids(wall, random),
          services(config(), wall, random, ids, currency_registry::from_json(currencies_json),
                   std::make_unique<table_rate_source>(rate_table::from_json(rates_json)),
                   funding_directory::from_json("{}")),
          writer(database.url(), 64, 1000) {
        auto& session = database.session();
        new_platform request{"Receiver",
                             "receiver.example",
                             false,
                             {{"USD", 1, 1000000, {"OUTGOING", "INCOMING"}, {}}}};
        owner =
            tenant{create_platform(session, platform_services{ids, random, wall}, request).value(),
                   environment::sandbox};
        config_patch patch;
        patch.webhook_endpoint = std::optional<std::string>("https://platform.example/hooks");
        REQUIRE(update_platform_config(session, platform_services{ids, random, wall}, owner, patch)
                    .ok());
        new_customer alice{std::string("alice"), "INDIVIDUAL", "APPROVED", {}, {"USD"}};
        auto customer = create_customer(session, customer_services{ids, random, wall}, owner,
                                        "receiver.example", alice);
        REQUIRE(customer.ok());
        session << "SELECT id FROM ledger_accounts WHERE owner_id = :c",
            soci::use(customer.value().id), soci::into(account_id);
    }
    ~worker_fixture() { writer.stop(); }

    static service_config config() {
        service_config c;
        c.webhooks.poll_interval_ms = 5;
        return c;
    }

    std::string begin_payment() {
        incoming_payment_request request;
        request.owner = owner;
        request.destination_account_id = account_id;
        request.amount = 500;
        request.sender_uma_address = "$bob@sender.example";
        request.requested_fields = {{"FULL_NAME", true}};
        write_transaction transaction(database.session());
        auto begun = begin_incoming_approval(database.session(), services.payments(), request);
        REQUIRE(begun.ok());
        transaction.commit();
        return begun.value().id;
    }

    // `count` ACCOUNT_STATUS events committed at once, numbered in their payloads.
    void record_account_events(int count) {
        auto& session = database.session();
        write_transaction transaction(session);
        for (int i = 0; i < count; ++i)
            record_event(session, ids, wall, owner, "ACCOUNT_STATUS",
                         R"({"n":)" + std::to_string(i) + "}");
        transaction.commit();
    }

    // Runs the worker until the approval leaves AWAITING_WEBHOOK (or 10 s pass).
    incoming_approval decide(const std::string& transaction_id) {
        delivery_worker worker(services, writer, transport);
        worker.start();
        std::optional<incoming_approval> approval;
        for (int i = 0; i < 1000; ++i) {
            approval = find_incoming_approval(database.session(), owner, transaction_id);
            if (approval && approval->state != "AWAITING_WEBHOOK") break;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        worker.stop();
        REQUIRE(approval.has_value());
        return *approval;
    }

    system_clock wall;
    os_random random;
    id_generator ids;
    testing::test_database database;
    app_services services;
    ledger_writer writer;
    scripted_transport transport;
    tenant owner;
    std::string account_id;
};

}  // namespace

TEST_CASE("the loop sends the approval event signed, once, and a 200 approves the payment",
          "[store][webhooks][worker]") {
    worker_fixture f;
    f.transport.status = 200;
    f.transport.body = R"({"receiverCustomerInfo":{"FULL_NAME":"Alice Receiver"}})";
    std::string id = f.begin_payment();
    auto approval = f.decide(id);
    CHECK(approval.state == "APPROVED");
    auto sent = f.transport.sent();
    REQUIRE(sent.size() == 1);
    CHECK(sent[0].url == "https://platform.example/hooks");
    auto body = boost::json::parse(sent[0].body).as_object();
    CHECK(body.at("type").as_string() == "INCOMING_PAYMENT");
    CHECK(body.at("webhookId").as_string() == approval.event_id);
    CHECK(body.at("transaction").at("id").as_string() == id);
    REQUIRE(sent[0].headers.size() == 1);
    CHECK(sent[0].headers[0].first == "X-Service-Signature");
    auto header = boost::json::parse(sent[0].headers[0].second).as_object();
    auto key = find_webhook_key(f.database.session(), f.owner);
    REQUIRE(key.has_value());
    CHECK(verify_webhook_signature(key->public_key_pem, sent[0].body,
                                   std::string(header.at("s").as_string())));
    auto attempts =
        list_delivery_attempts(f.database.session(), f.owner, {}, {20, std::nullopt, true});
    REQUIRE(attempts.items.size() == 1);
    CHECK(attempts.items[0].outcome == "SUCCEEDED");
}

TEST_CASE("the loop turns each approval answer into the payment's decision",
          "[store][webhooks][worker]") {
    struct expectation {
        int status;
        std::string body, state, transaction_status, failure_reason;
    };
    auto cases = GENERATE(values<expectation>({
        {202, "", "DEFERRED", "PENDING", ""},
        {403, R"({"reason":"no thanks"})", "REJECTED", "REJECTED", ""},
        {422, R"({"requiredFields":["BIRTH_DATE"]})", "NEEDS_INFORMATION", "REJECTED", ""},
        {500, "", "FAILED", "FAILED", "PAYMENT_APPROVAL_WEBHOOK_ERROR"},
        {200, "{}", "FAILED", "FAILED", "MISSING_MANDATORY_PAYEE_DATA"},
    }));
    worker_fixture f;
    f.transport.status = cases.status;
    f.transport.body = cases.body;
    std::string id = f.begin_payment();
    auto approval = f.decide(id);
    CHECK(approval.state == cases.state);
    auto transaction = find_transaction(f.database.session(), f.owner, id);
    REQUIRE(transaction.has_value());
    CHECK(transaction->status == cases.transaction_status);
    CHECK(transaction->failure_reason == cases.failure_reason);
    // The approval event is never retried, whatever the answer; a status change sends its own
    // event.
    int approval_sends = 0;
    for (const auto& request : f.transport.sent()) {
        auto body = boost::json::parse(request.body).as_object();
        if (body.at("webhookId").as_string() == approval.event_id) {
            ++approval_sends;
        } else {
            CHECK(body.at("transaction").at("status").as_string() == cases.transaction_status);
        }
    }
    CHECK(approval_sends == 1);
}

TEST_CASE("the claims ahead cover a quarter of a second of sending, within their bounds",
          "[webhooks][worker]") {
    // Idle or slow: as many ahead as under way.
    CHECK(claims_outstanding_max(4, 0) == 8);
    CHECK(claims_outstanding_max(256, 0) == 512);
    CHECK(claims_outstanding_max(256, 1000) == 512);
    // Fast: what is sent in a quarter of a second.
    CHECK(claims_outstanding_max(4, 400) == 4 + 100);
    CHECK(claims_outstanding_max(256, 12000) == 256 + 3000);
    CHECK(claims_outstanding_max(256, 40000) == 256 + claimed_ahead_max);
    // An operator's in_flight_max above the bound still has as many ahead.
    CHECK(claims_outstanding_max(8192, 1000000) == 2 * 8192);
}

TEST_CASE("claims wait in a queue while every slot is busy, and a stop gives back the unsent",
          "[store][webhooks][worker]") {
    worker_fixture f;
    f.services.config.webhooks.in_flight_max = 4;
    auto& session = f.database.session();
    f.record_account_events(20);
    held_transport endpoint;
    delivery_worker worker(f.services, f.writer, endpoint);
    worker.start();
    auto held = [&worker] { return gauge_of(worker, "corridor_webhook_claims_held"); };
    const std::string leased_sql =
        "SELECT COUNT(*) FROM outbox_events WHERE claim_token IS NOT NULL";
    // SQLite reads the backlog in order and holds its claims in memory; PostgreSQL without a
    // delivery connection (as here) claims in the database, each under a lease.
    bool in_memory = backend_of(session) == database_backend::sqlite;
    auto claimed = [&] { return in_memory ? held() : count_of(session, leased_sql); };
    // Four under way, and as many more claimed ahead so that a freed slot never waits for a
    // commit; no more than that.
    REQUIRE(within_ms(5000, [&] { return endpoint.sent().size() == 4 && claimed() == 8; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK(endpoint.sent().size() == 4);
    CHECK(claimed() == 8);
    if (in_memory) {  // nothing written
        CHECK(count_of(session, leased_sql) == 0);
        CHECK(count_of(session, "SELECT COUNT(*) FROM outbox_events WHERE attempts > 0") == 0);
    }
    // An answer frees a slot: a queued claim goes out at once and its place is claimed again.
    endpoint.answer_one(200);
    REQUIRE(within_ms(5000, [&] { return endpoint.sent().size() == 5; }));
    REQUIRE(within_ms(5000, [&] {
        return count_of(session,
                        "SELECT COUNT(*) FROM outbox_events WHERE state = 'DELIVERED' "
                        "AND attempts = 1") == 1 &&
               claimed() == 8;
    }));
    worker.stop(0);
    // The four queued are due again at once, as if never claimed. The four under way (their
    // answers may still come) keep their lease in the database; held in memory, they are due at
    // once for the next reader (sent again: at least once).
    std::vector<std::string> under_way;
    for (const auto& request : endpoint.sent())
        under_way.emplace_back(boost::json::parse(request.body).at("webhookId").as_string());
    CHECK(count_of(session, leased_sql) == (in_memory ? 0 : 4));
    for (std::size_t i = 1; i < under_way.size() && !in_memory; ++i) {
        long long attempts = 0;
        session << "SELECT attempts FROM outbox_events WHERE id = packed_id(:i) AND claim_token IS "
                   "NOT NULL",
            soci::use(under_way[i]), soci::into(attempts);
        CHECK(attempts == 1);
    }
    CHECK(count_of(session,
                   "SELECT COUNT(*) FROM outbox_events WHERE state = 'PENDING' AND attempts = 0 "
                   "AND claim_token IS NULL AND first_attempt_at_ms IS NULL") ==
          (in_memory ? 19 : 15));
    long long due_later = 0;
    long long now = f.wall.now_ms();
    session << "SELECT COUNT(*) FROM outbox_events WHERE state = 'PENDING' AND claim_token IS "
               "NULL AND next_attempt_at_ms > :n",
        soci::use(now), soci::into(due_later);
    CHECK(due_later == 0);
}

TEST_CASE(
    "while every slot is busy the queued are signed ahead, and signed again when held too "
    "long",
    "[store][webhooks][worker]") {
    worker_fixture f;
    f.services.config.webhooks.in_flight_max = 2;
    f.record_account_events(6);
    held_transport endpoint;
    delivery_worker worker(f.services, f.writer, endpoint);
    worker.start();
    auto signed_ahead = [&worker] { return gauge_of(worker, "corridor_webhook_signed_ahead"); };
    auto timestamp_of = [](const outbound_request& request) {
        auto at = parse_timestamp_ms(
            boost::json::parse(request.body).at("timestamp").as_string().c_str());
        REQUIRE(at.has_value());
        return *at;
    };
    auto key = find_webhook_key(f.database.session(), f.owner);
    REQUIRE(key.has_value());
    auto check_signed = [&](const outbound_request& request) {
        REQUIRE(request.headers.size() == 1);
        auto header = boost::json::parse(request.headers[0].second).as_object();
        CHECK(verify_webhook_signature(key->public_key_pem, request.body,
                                       std::string(header.at("s").as_string())));
    };
    // Two under way, the two next signed while they wait for a slot.
    REQUIRE(within_ms(5000, [&] { return endpoint.sent().size() == 2 && signed_ahead() == 2; }));
    // A slot freed soon after: the next goes as it was signed, before the answer came.
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    auto answered_at_ms = f.wall.now_ms();
    endpoint.answer_one(200);
    REQUIRE(within_ms(5000, [&] { return endpoint.sent().size() == 3 && signed_ahead() == 2; }));
    CHECK(timestamp_of(endpoint.sent()[2]) < answered_at_ms);
    check_signed(endpoint.sent()[2]);
    // Held past signed_age_max_ms, its timestamp would say it left long before it did: signed
    // again when its slot comes.
    std::this_thread::sleep_for(std::chrono::milliseconds(3 * delivery_worker::signed_age_max_ms));
    answered_at_ms = f.wall.now_ms();
    endpoint.answer_one(200);
    REQUIRE(within_ms(5000, [&] { return endpoint.sent().size() == 4; }));
    CHECK(timestamp_of(endpoint.sent()[3]) >= answered_at_ms);
    check_signed(endpoint.sent()[3]);
    // The rest go as answers come, each once and each verifiable.
    for (int answered = 2; answered < 6; ++answered) {
        REQUIRE(within_ms(5000, [&] {
            return endpoint.sent().size() == std::min<std::size_t>(answered + 2, 6);
        }));
        endpoint.answer_one(200);
    }
    REQUIRE(within_ms(5000, [&] {
        return count_of(f.database.session(),
                        "SELECT COUNT(*) FROM outbox_events WHERE state = 'DELIVERED'") == 6;
    }));
    worker.stop();
    auto sent = endpoint.sent();
    REQUIRE(sent.size() == 6);
    std::vector<std::string> ids;
    for (const auto& request : sent) {
        check_signed(request);
        ids.emplace_back(boost::json::parse(request.body).at("webhookId").as_string());
    }
    std::sort(ids.begin(), ids.end());
    CHECK(std::adjacent_find(ids.begin(), ids.end()) == ids.end());
}

namespace {

// Answers 200 at once, and keeps the size of each group of requests handed over together.
class grouping_transport final : public outbound_transport {
public:
    void post(outbound_request request, std::function<void(outbound_response)> done) override {
        post_all({outbound_call{std::move(request), std::move(done)}});
    }
    void post_all(std::vector<outbound_call> calls) override {
        {
            std::lock_guard lock(mutex_);
            groups_.push_back(calls.size());
            for (const auto& call : calls)
                ids_.emplace_back(
                    boost::json::parse(call.request.body).at("webhookId").as_string());
        }
        for (auto& call : calls) {
            outbound_response response;
            response.status = 200;
            call.done(std::move(response));
        }
    }
    std::vector<std::size_t> groups() {
        std::lock_guard lock(mutex_);
        return groups_;
    }
    std::vector<std::string> ids() {
        std::lock_guard lock(mutex_);
        return ids_;
    }

private:
    std::mutex mutex_;
    std::vector<std::size_t> groups_;
    std::vector<std::string> ids_;
};

}  // namespace

TEST_CASE("a claimed batch goes to the transport in groups of at most sixteen, each event once",
          "[store][webhooks][worker]") {
    worker_fixture f;
    auto& session = f.database.session();
    f.record_account_events(40);
    grouping_transport endpoint;
    delivery_worker worker(f.services, f.writer, endpoint);
    worker.start();
    REQUIRE(within_ms(10000, [&] {
        return count_of(session, "SELECT COUNT(*) FROM outbox_events WHERE state = 'DELIVERED'") ==
               40;
    }));
    worker.stop();
    auto groups = endpoint.groups();
    std::size_t sent = 0, largest = 0;
    for (auto size : groups) {
        CHECK(size >= 1);
        CHECK(size <= 16);
        sent += size;
        largest = std::max(largest, size);
    }
    CHECK(sent == 40);
    // Claimed in one round, they are handed over together, not one by one.
    CHECK(largest == 16);
    auto ids = endpoint.ids();
    std::sort(ids.begin(), ids.end());
    CHECK(std::adjacent_find(ids.begin(), ids.end()) == ids.end());
}
