#pragma once
// The webhook delivery loop of one process. It claims due events from the outbox (on the ledger
// writer, in the database, so any number of processes share the work and none sends an event that
// another is sending), signs each body with the tenant's key, sends it through the outbound
// transport, and records every attempt with its outcome. Answers to approval events decide their
// incoming payment in the same transaction that records the attempt. Nothing is held only in
// memory: a delivery under way when the process dies is claimed again when its lease runs out.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "ledger/store/session_job.hpp"
#include "ledger/webhooks/webhook_deliveries.hpp"
#include "ledger/platforms/webhook_keys.hpp"
#include "server/http/outbound_client.hpp"

namespace corridor {

struct app_services;

// The retry policy the configuration describes; the lease covers one whole attempt with a margin.
retry_policy webhook_retry_policy(const struct service_config& config);

// Signs and sends one claimed delivery, then reports the attempt (interrupted or endpoint-less
// deliveries are reported without being sent). Shared by the loop and POST /webhooks/test.
class webhook_sender {
public:
    explicit webhook_sender(outbound_transport& transport) : transport_(transport) {}
    void send(const claimed_delivery& delivery, std::int64_t now_ms,
              std::function<void(attempt_report)> done);

private:
    const webhook_signer& signer_for(const claimed_delivery& delivery);
    outbound_transport& transport_;
    std::mutex mutex_;
    std::map<std::string, std::pair<std::string, webhook_signer>>
        signers_;  // tenant -> (pem, signer)
};

class delivery_worker {
public:
    delivery_worker(app_services& services, session_executor& writer,
                    outbound_transport& transport);
    ~delivery_worker();
    delivery_worker(const delivery_worker&) = delete;
    delivery_worker& operator=(const delivery_worker&) = delete;

    void start();
    // Stops claiming, waits up to `drain_ms` for deliveries under way, records what finished.
    void stop(std::int64_t drain_ms = 2000);
    // Something was committed: look at the outbox now rather than at the next poll.
    void wake();
    std::string metrics_text() const;

private:
    struct completion {
        claimed_delivery delivery;
        attempt_report report;
    };
    void loop();
    std::vector<claimed_delivery> record_and_claim(std::deque<completion>& finished, int room);
    int send_claimed(std::vector<claimed_delivery> claimed);
    void observe(const completion& done);

    app_services& services_;
    session_executor& writer_;
    webhook_sender sender_;
    retry_policy policy_;

    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<completion> finished_;
    bool stopping_ = false;
    bool woken_ = false;
    int in_flight_ = 0;
    std::thread thread_;

    // Metrics.
    static constexpr std::array<std::int64_t, 10> lag_buckets_ms = {5,   10,  25,   50,   100,
                                                                    250, 500, 1000, 5000, 60000};
    std::atomic<std::uint64_t> succeeded_{0}, retried_{0}, gave_up_{0}, no_answer_{0};
    std::array<std::atomic<std::uint64_t>, lag_buckets_ms.size() + 1> lag_{};
    std::atomic<std::uint64_t> lag_sum_ms_{0};
    std::array<std::atomic<std::uint64_t>, lag_buckets_ms.size() + 1> latency_{};
    std::atomic<std::uint64_t> latency_sum_ms_{0};
    std::atomic<std::int64_t> queue_depth_{0};
    std::int64_t last_depth_ms_ = 0;  // loop thread only
    std::atomic<int> in_flight_gauge_{0};
};

// Runs `work` on the executor's session and waits until it is durable; false when it was rolled
// back or failed (the error is logged).
bool run_and_wait(session_executor& executor, std::function<void(soci::session&)> work);

}  // namespace corridor
