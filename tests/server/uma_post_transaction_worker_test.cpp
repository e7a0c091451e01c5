// The post-transaction callback worker with a scripted transport: each due callback is signed with
// the platform environment's UMA key (fresh nonce per attempt), a refusal is retried on a doubling
// schedule, and after the configured number of attempts the callback is given up.
#include "server/workers/uma_post_transaction_worker.hpp"

#include <catch2/catch.hpp>

#include "ledger/store/database.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "server/api/app.hpp"
#include "tests/support/store_fixture.hpp"
#include "uma/nonce_store.hpp"
#include "uma/post_transaction.hpp"
#include "uma/sql_stores.hpp"
#include "uma/verify.hpp"

using namespace corridor;

namespace {

constexpr const char* currencies_json = R"({"currencies": [
    {"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2}]})";
constexpr const char* rates_json = R"({"base": "USD", "rates": {"USD": "1"},
    "pricing": {"spread_bps": 0, "variable_fee_bps": 0, "fixed_fee": {}}})";

struct scripted_receiver final : uma::http_transport {
    std::vector<std::pair<std::string, std::string>> posted;  // url, body
    int status = 200;
    bool unreachable = false;
    result<uma::http_reply, std::string> get(const std::string&) override {
        return std::string("no GET here");
    }
    result<uma::http_reply, std::string> post_json(const std::string& url,
                                                   const std::string& body) override {
        posted.emplace_back(url, body);
        if (unreachable) return std::string("connection refused");
        return uma::http_reply{status, "{}"};
    }
};

struct worker_fixture : testing::store_fixture {
    worker_fixture()
        : services(config(), clock, random, ids, currency_registry::from_json(currencies_json),
                   std::make_unique<table_rate_source>(rate_table::from_json(rates_json)),
                   funding_directory::from_json("{}")) {
        auto receiver = std::make_unique<scripted_receiver>();
        transport = receiver.get();
        services.uma_transport = std::move(receiver);
        owner = tenant{make_platform("sender.example"), environment::sandbox};
        uma_post_transaction callback;
        callback.transaction_id = "Transaction:0195f0c0-0000-7000-8000-000000000001";
        callback.owner = owner;
        callback.quote_id = "Quote:0195f0c0-0000-7000-8000-000000000001";
        callback.url = "https://receiver.example/utxo/bob";
        callback.vasp_domain = "sender.example";
        callback.amount_msats = 12'000;
        callback.next_attempt_at_ms = callback.created_at_ms = clock.now_ms();
        enqueue_uma_post_transaction(session(), callback);
    }

    static service_config config() {
        service_config c;
        c.uma_post_transaction_retry_initial_interval_ms = 1000;
        c.uma_post_transaction_attempts_max = 3;
        return c;
    }

    uma_post_transaction stored() {
        return *find_uma_post_transaction(session(), owner,
                                          "Transaction:0195f0c0-0000-7000-8000-000000000001");
    }

    // The public key receivers fetch from our lnurlpubkey document: both environments of the
    // platform share sender.example, which publishes the production environment's keys.
    uma::public_key our_key() {
        uma::sql_key_store keys(session(), clock, random);
        tenant publisher{owner.platform_id, environment::production};
        REQUIRE(uma_key_owner(session(), *load_platform_config(session(), owner)) == publisher);
        return uma::public_key_of(keys.keys_for(publisher, "sender.example").signing.secret);
    }

    app_services services;
    scripted_receiver* transport = nullptr;
    tenant owner;
};

}  // namespace

TEST_CASE("a due callback is sent signed with our key, once, and recorded delivered",
          "[store][uma][post_transaction]") {
    worker_fixture f;
    CHECK(send_due_uma_post_transactions(f.session(), f.services, 10) == 1);
    REQUIRE(f.transport->posted.size() == 1);
    CHECK(f.transport->posted[0].first == "https://receiver.example/utxo/bob");
    auto sent = uma::parse_post_transaction_callback(f.transport->posted[0].second);
    REQUIRE(sent.ok());
    CHECK(sent->vasp_domain == "sender.example");
    CHECK(sent->utxos.empty());
    CHECK(sent->signature_timestamp_s == f.clock.now_ms() / 1000);
    uma::memory_nonce_store theirs(f.clock, uma::default_nonce_window_s);
    CHECK_FALSE(uma::verify_post_transaction(sent.value(), f.our_key(), theirs));
    CHECK(f.stored().state == "DELIVERED");
    CHECK(f.stored().attempts == 1);
    // Nothing is due any more.
    f.clock.advance_ms(3'600'000);
    CHECK(send_due_uma_post_transactions(f.session(), f.services, 10) == 0);
    CHECK(f.transport->posted.size() == 1);
}

TEST_CASE("a refused callback is retried after 1, then 2 intervals, then given up",
          "[store][uma][post_transaction]") {
    worker_fixture f;
    f.transport->status = 503;
    CHECK(send_due_uma_post_transactions(f.session(), f.services, 10) == 1);
    CHECK(f.stored().state == "PENDING");
    CHECK(f.stored().attempts == 1);
    CHECK(f.stored().last_error == "answered HTTP 503");
    CHECK(f.stored().next_attempt_at_ms == f.clock.now_ms() + 1000);
    f.clock.advance_ms(999);
    CHECK(send_due_uma_post_transactions(f.session(), f.services, 10) == 0);
    f.clock.advance_ms(1);
    f.transport->unreachable = true;
    CHECK(send_due_uma_post_transactions(f.session(), f.services, 10) == 1);
    CHECK(f.stored().attempts == 2);
    CHECK(f.stored().next_attempt_at_ms == f.clock.now_ms() + 2000);
    CHECK(f.stored().last_error.rfind("no answer: ", 0) == 0);
    f.clock.advance_ms(2000);
    CHECK(send_due_uma_post_transactions(f.session(), f.services, 10) == 1);
    CHECK(f.stored().state == "GAVE_UP");
    CHECK(f.stored().attempts == 3);
    f.clock.advance_ms(86'400'000);
    CHECK(send_due_uma_post_transactions(f.session(), f.services, 10) == 0);
    REQUIRE(f.transport->posted.size() == 3);
    // Each attempt carries its own nonce.
    auto first = uma::parse_post_transaction_callback(f.transport->posted[0].second);
    auto last = uma::parse_post_transaction_callback(f.transport->posted[2].second);
    CHECK(first->signature_nonce != last->signature_nonce);
}
