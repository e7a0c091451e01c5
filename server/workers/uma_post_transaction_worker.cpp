#include "server/workers/uma_post_transaction_worker.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/json/serialize.hpp>

#include "ledger/payments/payments.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "server/api/app.hpp"
#include "uma/post_transaction.hpp"
#include "uma/responder.hpp"
#include "uma/signing.hpp"
#include "uma/sql_stores.hpp"

namespace corridor {
namespace {

constexpr int batch_max = 16;
constexpr std::int64_t retry_interval_max_ms = 3600000;

// Long enough for one attempt (bounded by outbound.timeout_ms) before another worker may take it.
std::int64_t lease_ms(const app_services& services) {
    return services.config.outbound_timeout_ms + 5000;
}

std::int64_t retry_delay_ms(const app_services& services, int attempts) {
    std::int64_t delay = services.config.uma_post_transaction_retry_initial_interval_ms;
    for (int i = 1; i < attempts && delay < retry_interval_max_ms; ++i) delay *= 2;
    return std::min(delay, retry_interval_max_ms);
}

// Sends one callback; the error text when it was not delivered.
std::optional<std::string> deliver(soci::session& session, app_services& services,
                                   const uma_post_transaction& callback) {
    std::string body;
    try {
        body = signed_post_transaction_body(session, services, callback);
    } catch (const std::exception& error) {
        return std::string("cannot sign: ") + error.what();
    }
    auto reply = services.uma_transport->post_json(callback.url, body);
    if (!reply) return "no answer: " + reply.error();
    if (reply->status < 200 || reply->status > 299) {
        return "answered HTTP " + std::to_string(reply->status);
    }
    return std::nullopt;
}

// The receiver never heard of its payment: the transaction says so with the interface's failure
// reason and an OUTGOING_PAYMENT event, in the caller's transaction. Its status stays COMPLETED:
// the Lightning payment settled and cannot be called back, so nothing is refunded.
void mark_post_transaction_failed(soci::session& session, app_services& services,
                                  const uma_post_transaction& callback) {
    note_transaction_failure_reason(session, services.ids, services.time, services.currencies,
                                    callback.owner, callback.transaction_id,
                                    "COUNTERPARTY_POST_TX_FAILED");
}

}  // namespace

std::string signed_post_transaction_body(soci::session& session, app_services& services,
                                         const uma_post_transaction& callback) {
    auto config = load_platform_config(session, callback.owner);
    if (!config) throw std::runtime_error("no platform configuration");
    uma::sql_key_store keys(session, services.time, services.random,
                            services.uma_sealing ? &*services.uma_sealing : nullptr);
    uma::post_transaction_callback message;
    // A Lightning payment names no on-chain outputs: the callback says the payment is done.
    message.vasp_domain = callback.vasp_domain;
    message.signature_nonce = uma::generate_nonce(services.random);
    message.signature_timestamp_s = services.time.now_ms() / 1000;
    message.signature = uma::sign_payload(
        uma::signable_payload(message),
        keys.keys_for(uma_key_owner(session, *config), config->uma_domain).signing.secret);
    return boost::json::serialize(uma::to_json(message));
}

int send_due_uma_post_transactions(soci::session& session, app_services& services, int limit) {
    std::vector<uma_post_transaction> due;
    {
        write_transaction transaction(session);
        due = claim_due_uma_post_transactions(session, services.time.now_ms(), lease_ms(services),
                                              limit);
        transaction.commit();
    }
    for (auto& callback : due) {
        auto problem = deliver(session, services, callback);
        std::int64_t now_ms = services.time.now_ms();
        callback.attempts += 1;
        callback.updated_at_ms = now_ms;
        if (!problem) {
            callback.state = "DELIVERED";
            callback.last_error.clear();
        } else if (callback.attempts >= services.config.uma_post_transaction_attempts_max) {
            callback.state = "GAVE_UP";
            callback.last_error = problem->substr(0, 512);
            // The URL may name the receiver: the transaction id is enough to find it.
            spdlog::warn("post-transaction callback of {} given up after {} attempts: {}",
                         callback.transaction_id, callback.attempts, *problem);
        } else {
            callback.last_error = problem->substr(0, 512);
            callback.next_attempt_at_ms = now_ms + retry_delay_ms(services, callback.attempts);
        }
        write_transaction transaction(session);
        update_uma_post_transaction(session, callback);
        if (callback.state == "GAVE_UP") mark_post_transaction_failed(session, services, callback);
        transaction.commit();
    }
    return static_cast<int>(due.size());
}

uma_post_transaction_worker::uma_post_transaction_worker(app_services& services, database_url url)
    : services_(services), url_(std::move(url)) {
    thread_ = std::thread([this] { loop(); });
}

uma_post_transaction_worker::~uma_post_transaction_worker() {
    stop();
}

void uma_post_transaction_worker::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void uma_post_transaction_worker::loop() {
    session_ptr session;
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        lock.unlock();
        int sent = 0;
        try {
            if (!session) session = open_session(url_);
            sent = send_due_uma_post_transactions(*session, services_, batch_max);
        } catch (const std::exception& error) {
            spdlog::error("post-transaction callbacks: {}", error.what());
            session.reset();  // reopened on the next pass
        }
        lock.lock();
        if (sent == batch_max) continue;  // more may be due
        wake_.wait_for(
            lock, std::chrono::milliseconds(services_.config.uma_post_transaction_poll_interval_ms),
            [this] { return stopping_; });
    }
}

}  // namespace corridor
