#include "server/workers/upkeep.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "ledger/payments/approvals.hpp"
#include "ledger/customers/external_account_store.hpp"
#include "ledger/store/idempotency.hpp"
#include "ledger/customers/kyc.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/payments/uma_receipts.hpp"
#include "ledger/webhooks/webhook_deliveries.hpp"
#include "server/api/app.hpp"
#include "uma/sql_stores.hpp"

namespace corridor {
namespace {

// Finished webhook events deleted per round at most: a small batch keeps the writer's transaction
// short; a full batch makes the loop come back sooner.
constexpr int webhook_prune_batch = 500;
constexpr std::int64_t backlog_interval_ms = 100;
constexpr std::int64_t hourly_ms = 3600000;

class upkeep_job final : public session_job {
public:
    upkeep_job(app_services& services, bool hourly, std::shared_ptr<upkeep_state> state)
        : services_(services), hourly_(hourly), state_(std::move(state)) {}

    bool run(soci::session& session) noexcept override {
        try {
            expire_due_quotes(session, services_.payments(), 500);
            expire_due_approvals(session, services_.payments(), 500);
            settle_approved_uma_receipts(session, services_.payments(), 500);
            screen_due_external_accounts(session, {services_.ids, services_.time}, 500);
            decide_due_kyc_reviews(session, services_.ids, services_.time, 100);
            std::int64_t pruned = prune_finished_events(
                session,
                services_.time.now_ms() - services_.config.webhooks.retention_effective_ms(),
                webhook_prune_batch);
            state_->more_to_prune = pruned >= webhook_prune_batch;
            if (hourly_) {
                prune_idempotency_keys(
                    session, services_.time.now_ms() -
                                 services_.config.idempotency_retention_hours * hourly_ms);
                // UMA nonces outside the replay window would be refused anyway.
                uma::sql_nonce_store(session, services_.time, uma::default_nonce_window_s)
                    .purge_expired();
            }
            return true;
        } catch (const std::exception& error) {
            spdlog::error("upkeep failed: {}", error.what());
            return false;
        }
    }
    void finish(job_outcome) noexcept override {}

private:
    app_services& services_;
    bool hourly_;
    std::shared_ptr<upkeep_state> state_;
};

// Clears upkeep_state::queued once the round is over, however it ended (applied, rolled back,
// or refused by a full or stopping writer).
class queued_round final : public session_job {
public:
    queued_round(std::unique_ptr<session_job> inner, std::shared_ptr<upkeep_state> state)
        : inner_(std::move(inner)), state_(std::move(state)) {}
    bool run(soci::session& session) noexcept override { return inner_->run(session); }
    void finish(job_outcome outcome) noexcept override {
        inner_->finish(outcome);
        state_->queued = false;
    }
    bool retryable() const noexcept override { return inner_->retryable(); }

private:
    std::unique_ptr<session_job> inner_;
    std::shared_ptr<upkeep_state> state_;
};

}  // namespace

std::unique_ptr<session_job> make_upkeep_job(app_services& services, bool hourly,
                                             std::shared_ptr<upkeep_state> state) {
    return std::make_unique<upkeep_job>(services, hourly, std::move(state));
}

upkeep_loop::upkeep_loop(session_executor& writer, const clock& time, std::int64_t interval_ms,
                         job_factory make_job)
    : writer_(writer), time_(time), interval_ms_(interval_ms), make_job_(std::move(make_job)) {
    thread_ = std::thread([this] { run(); });
}

upkeep_loop::~upkeep_loop() {
    stop();
}

void upkeep_loop::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void upkeep_loop::run() {
    std::int64_t last_hourly_ms = 0;
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        if (!state_->queued.exchange(true)) {
            std::int64_t now_ms = time_.now_ms();
            bool hourly = now_ms - last_hourly_ms >= hourly_ms;
            if (hourly) last_hourly_ms = now_ms;
            writer_.submit(std::make_unique<queued_round>(make_job_(hourly, state_), state_));
        }
        std::int64_t wait_ms = interval_ms_;
        if (state_->more_to_prune) wait_ms = std::min(wait_ms, backlog_interval_ms);
        wake_.wait_for(lock, std::chrono::milliseconds(wait_ms));
    }
}

}  // namespace corridor
