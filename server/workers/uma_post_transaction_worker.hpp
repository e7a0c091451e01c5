#pragma once
// Sends the post-transaction callbacks (UMAD-07) owed to the providers of UMA receivers we paid:
// a thread with its own database session that claims due callbacks (ledger/
// uma_post_transactions.hpp), signs each with the platform environment's UMA key, POSTs it to the
// receiver's utxoCallback and records the attempt. A failed attempt is retried after
// uma.post_transaction_retry_initial_interval_ms, doubling up to an hour, until
// uma.post_transaction_attempts_max attempts; then the callback is given up (the payment itself
// stays COMPLETED: its money reached the receiver). Never on the ledger writer, never on an io
// thread. Started by `serve`.
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "ledger/store/database.hpp"
#include "ledger/payments/uma_post_transactions.hpp"

namespace corridor {

struct app_services;

// The body of one callback, signed now with a fresh nonce.
std::string signed_post_transaction_body(soci::session& session, app_services& services,
                                         const uma_post_transaction& callback);

// One pass on `session`: claims up to `limit` due callbacks, sends them and records each outcome.
// Returns how many were attempted.
int send_due_uma_post_transactions(soci::session& session, app_services& services, int limit);

class uma_post_transaction_worker {
public:
    uma_post_transaction_worker(app_services& services, database_url url);
    ~uma_post_transaction_worker();
    uma_post_transaction_worker(const uma_post_transaction_worker&) = delete;
    uma_post_transaction_worker& operator=(const uma_post_transaction_worker&) = delete;
    void stop();

private:
    void loop();

    app_services& services_;
    database_url url_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace corridor
