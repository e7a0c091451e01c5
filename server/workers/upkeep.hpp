#pragma once
// Background upkeep on the ledger writer: expiring quotes past their time, failing incoming
// payments whose platform did not decide within the approval time-out, settling approved UMA
// receipts, turning screened external accounts ACTIVE, deciding due sandbox KYC reviews, and
// deleting finished webhook events past webhooks.retention_days; hourly, pruning old idempotency
// keys and UMA nonces. All are conditional UPDATEs or plain DELETEs in bounded batches, safe to run
// from any number of processes.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "ledger/base/clock.hpp"
#include "ledger/store/session_job.hpp"

namespace corridor {

struct app_services;

// Shared by the loop and the job it queued (the loop may be gone before a queued job runs).
struct upkeep_state {
    // A round is in the writer's queue or running. The loop queues no other meanwhile: rounds that
    // piled up behind a busy writer would share one batch, and one long transaction, with payments.
    std::atomic<bool> queued{false};
    // The last round deleted a full batch of finished webhook events: come back sooner.
    std::atomic<bool> more_to_prune{false};
};

// One round's job; `hourly` adds the idempotency-key and nonce pruning.
std::unique_ptr<session_job> make_upkeep_job(app_services& services, bool hourly,
                                             std::shared_ptr<upkeep_state> state);

class upkeep_loop {
public:
    using job_factory =
        std::function<std::unique_ptr<session_job>(bool hourly, std::shared_ptr<upkeep_state>)>;
    // A round every interval_ms (100 ms at most while a prune backlog lasts), never two queued.
    upkeep_loop(session_executor& writer, const clock& time, std::int64_t interval_ms,
                job_factory make_job);
    ~upkeep_loop();
    void stop();

private:
    void run();

    session_executor& writer_;
    const clock& time_;
    std::int64_t interval_ms_;
    job_factory make_job_;
    std::shared_ptr<upkeep_state> state_ = std::make_shared<upkeep_state>();
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace corridor
