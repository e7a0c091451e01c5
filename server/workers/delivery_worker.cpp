#include "server/workers/delivery_worker.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/json.hpp>

#include "ledger/base/random.hpp"
#include "ledger/base/thread_name.hpp"
#include "ledger/payments/approvals.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/outbox_handover.hpp"
#include "server/api/app.hpp"
#include "server/process/metric_text.hpp"

namespace corridor {
namespace {

std::string transaction_id_of(const claimed_delivery& delivery) {
    boost::system::error_code error;
    auto payload = boost::json::parse(delivery.payload, error);
    if (error || !payload.is_object()) return {};
    auto* transaction = payload.as_object().if_contains("transaction");
    if (!transaction || !transaction->is_object()) return {};
    auto* id = transaction->as_object().if_contains("id");
    return id && id->is_string() ? std::string(id->as_string()) : std::string();
}

template <std::size_t N>
void observe_into(std::array<std::atomic<std::uint64_t>, N + 1>& buckets,
                  std::atomic<std::uint64_t>& sum, const std::array<std::int64_t, N>& bounds,
                  std::int64_t value_ms) {
    std::size_t bucket = 0;
    while (bucket < N && value_ms > bounds[bucket]) ++bucket;
    buckets[bucket].fetch_add(1, std::memory_order_relaxed);
    sum.fetch_add(static_cast<std::uint64_t>(std::max<std::int64_t>(value_ms, 0)),
                  std::memory_order_relaxed);
}

template <std::size_t N>
std::string histogram_text(const char* name, const char* help,
                           const std::array<std::atomic<std::uint64_t>, N + 1>& buckets,
                           const std::atomic<std::uint64_t>& sum_ms,
                           const std::array<std::int64_t, N>& bounds) {
    std::string out = fmt::format("# HELP {} {}\n# TYPE {} histogram\n", name, help, name);
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < N; ++i) {
        cumulative += buckets[i].load();
        out += fmt::format("{}_bucket{{le=\"{}\"}} {}\n", name,
                           static_cast<double>(bounds[i]) / 1000.0, cumulative);
    }
    cumulative += buckets[N].load();
    out += fmt::format("{}_bucket{{le=\"+Inf\"}} {}\n", name, cumulative);
    out += fmt::format("{}_sum {}\n{}_count {}\n", name,
                       static_cast<double>(sum_ms.load()) / 1000.0, name, cumulative);
    return out;
}

}  // namespace

retry_policy webhook_retry_policy(const service_config& config) {
    retry_policy policy;
    policy.initial_interval_ms = config.webhooks.retry_initial_interval_ms;
    policy.interval_max_ms = config.webhooks.retry_interval_max_ms;
    policy.max_age_ms = config.webhooks.retry_max_age_hours * 3600 * 1000;
    // One attempt takes at most the connect time-out twice (resolving, then connecting) and the
    // response time-out; the margin covers recording its result.
    policy.lease_ms =
        2 * config.webhooks.connect_timeout_ms + config.webhooks.response_timeout_ms + 5000;
    return policy;
}

// One round of bookkeeping on the writer: its work fills `result`, and the worker learns the
// outcome without having waited for it.
class delivery_worker::round_job final : public session_job {
public:
    round_job(std::function<void(soci::session&, round_result&)> work,
              std::function<void(round_result)> done)
        : work_(std::move(work)), done_(std::move(done)) {}
    bool run(soci::session& session) noexcept override {
        try {
            result_ = round_result{};  // a retried job starts again
            work_(session, result_);
            return true;
        } catch (const soci::soci_error& error) {
            retryable_ = is_retryable_conflict(error);
            if (!retryable_) spdlog::error("webhook bookkeeping failed: {}", error.what());
        } catch (const std::exception& error) {
            spdlog::error("webhook bookkeeping failed: {}", error.what());
        }
        return false;
    }
    void finish(job_outcome outcome) noexcept override {
        result_.durable = outcome == job_outcome::committed;
        if (!result_.durable) result_.claimed.clear();  // rolled back: never claimed
        done_(std::move(result_));
    }
    bool retryable() const noexcept override { return retryable_; }

private:
    std::function<void(soci::session&, round_result&)> work_;
    std::function<void(round_result)> done_;
    round_result result_;
    bool retryable_ = false;
};

delivery_worker::delivery_worker(app_services& services, session_executor& writer,
                                 outbound_transport& transport, delivery_connection* own)
    : services_(services),
      writer_(writer),
      own_(own),
      sender_(transport),
      policy_(webhook_retry_policy(services.config)),
      claim_policy_(policy_) {
    claim_policy_.lease_ms += queued_ms_max;
}

delivery_worker::~delivery_worker() {
    stop(0);
    if (backlog_lock_fd_ >= 0) ::close(backlog_lock_fd_);
}

void delivery_worker::start() {
    if (own_ && !own_->takes_rounds())
        open_backlog_lock_file(own_->sqlite_path() + "-webhooks.lock");
    if (own_) {
        // A handed-over event is leased as a claim is: its lease covers the wait in the queue.
        handover_token_ = random_hex(services_.random, 16);
        set_outbox_handover(handover_token_, claim_policy_.lease_ms,
                            [this](std::vector<std::string> ids) { handed_over(std::move(ids)); });
    }
    thread_ = std::thread([this] {
        name_this_thread("webhooks");
        loop();
    });
}

void delivery_worker::wake(wake_source source) {
    (source == wake_source::commit ? woken_by_commit_ : woken_by_notification_)
        .fetch_add(1, std::memory_order_relaxed);
    {
        std::lock_guard lock(mutex_);
        woken_ = true;
    }
    ready_.notify_all();
}

void delivery_worker::handed_over(std::vector<std::string> ids) {
    // The commit woke delivery with its events: counted as the wake-up it replaces.
    woken_by_commit_.fetch_add(1, std::memory_order_relaxed);
    handed_over_.fetch_add(ids.size(), std::memory_order_relaxed);
    {
        std::lock_guard lock(mutex_);
        handed_.insert(handed_.end(), std::make_move_iterator(ids.begin()),
                       std::make_move_iterator(ids.end()));
    }
    ready_.notify_all();
}

void delivery_worker::stop(std::int64_t drain_ms) {
    if (own_) set_outbox_handover({}, 0, {});  // from now on events wait for a claim
    {
        std::lock_guard lock(mutex_);
        if (stopping_ && !thread_.joinable()) return;
        stopping_ = true;
    }
    ready_.notify_all();
    if (thread_.joinable()) thread_.join();
    // Deliveries still under way keep their lease and are claimed again later (by this process
    // after a restart, or by another), or, held in memory, are due at once for the backlog's next
    // reader: at least once, never lost. Those claimed and not sent are given back, due at once.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(drain_ms);
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return !round_pending_ || round_done_.has_value(); });
    if (round_done_) {
        end_round(*round_done_);
        round_done_.reset();
        round_pending_ = false;
    }
    ready_.wait(lock, [this] { return reading_ == 0 || read_done_.has_value(); });
    if (read_done_) enqueue(std::exchange(*read_done_, {}));
    read_done_.reset();
    reading_ = 0;
    ready_.wait_until(lock, deadline, [this] { return in_flight_ == 0; });
    std::deque<completion> finished;
    finished.swap(finished_);
    std::vector<claimed_delivery> unsent;
    for (auto& next : signed_) unsent.push_back(std::move(next.delivery));
    signed_.clear();
    signed_gauge_.store(0, std::memory_order_relaxed);
    unsent.insert(unsent.end(), std::make_move_iterator(queued_.begin()),
                  std::make_move_iterator(queued_.end()));
    queued_.clear();
    for (auto& id : handed_) {  // leased at their insert, never read back: given back too
        claimed_delivery leased;
        leased.id = std::move(id);
        leased.claim_token = handover_token_;
        unsent.push_back(std::move(leased));
    }
    handed_.clear();
    if (finished.empty() && unsent.empty()) return;
    round_pending_ = true;
    lock.unlock();
    start_round(std::move(finished), std::move(unsent), 0);
    lock.lock();
    ready_.wait(lock, [this] { return round_done_.has_value(); });
    end_round(*round_done_);
    round_done_.reset();
    round_pending_ = false;
}

void delivery_worker::observe(const completion& done) {
    observe_into(latency_, latency_sum_ms_, lag_buckets_ms, done.report.latency_ms);
    if (done.report.response_status == 0) no_answer_.fetch_add(1, std::memory_order_relaxed);
}

// One writer job, so one commit: records the finished attempts (and feeds approval answers to
// their payments), gives back `unsent`, then claims up to `room` due events. The loop goes on
// sending what it holds meanwhile.
void delivery_worker::start_round(std::deque<completion> finished,
                                  std::vector<claimed_delivery> unsent, int room) {
    auto payments = services_.payments();
    std::int64_t approval_timeout_ms = services_.config.webhooks_approval_timeout_ms;
    // An approval answer decides its payment: that round is the writer's. The others touch only
    // the outbox and the attempts, and run on delivery's own connection when there is one.
    bool decides_payment = std::any_of(finished.begin(), finished.end(), [](const auto& done) {
        return done.delivery.purpose == event_purpose::approval;
    });
    session_executor& executor = own_ && own_->takes_rounds() && !decides_payment ? *own_ : writer_;
    (&executor == &writer_ ? rounds_on_writer_ : rounds_on_own_)
        .fetch_add(1, std::memory_order_relaxed);
    // The queue depth is a COUNT over the outbox: once a second is enough for a gauge.
    std::int64_t now_ms = services_.time.now_ms();
    bool count_depth = room > 0 && now_ms - last_depth_ms_ >= 1000;
    if (count_depth) last_depth_ms_ = now_ms;
    // Claims in memory that this round answers: no longer held once it ends, recorded or not.
    std::vector<std::string> answered;
    for (const auto& done : finished) {
        if (done.delivery.claim_token.empty()) answered.push_back(done.delivery.id);
    }
    bool on_own = &executor != &writer_;
    read_plan plan;
    {
        std::lock_guard lock(mutex_);
        if (room > 0) plan = plan_read();
    }
    auto work = [this, finished = std::move(finished), unsent = std::move(unsent), room,
                 count_depth, payments, approval_timeout_ms, on_own,
                 plan = std::move(plan)](soci::session& session, round_result& result) {
        result.asked = room;
        result.recorded = finished.size();
        std::vector<finished_attempt> attempts;
        attempts.reserve(finished.size());
        for (const auto& done : finished) attempts.push_back({&done.delivery, &done.report});
        result.verdicts =
            finish_deliveries(session, services_.ids, services_.time, policy_, attempts);
        for (const auto& done : finished) {
            if (done.delivery.purpose != event_purpose::approval) continue;
            std::string transaction_id = transaction_id_of(done.delivery);
            if (transaction_id.empty()) continue;
            apply_approval_answer(session, payments, done.delivery.owner, transaction_id,
                                  done.report.response_status, done.report.response_excerpt,
                                  approval_timeout_ms);
        }
        if (!unsent.empty()) release_deliveries(session, services_.time, unsent);
        if (room > 0) claim_more(session, on_own, plan, room, result);
        if (count_depth) result.depth = pending_delivery_count(session);
    };
    executor.submit(std::make_unique<round_job>(
        std::move(work), [this, answered = std::move(answered)](round_result result) mutable {
            result.answered = std::move(answered);
            {
                std::lock_guard lock(mutex_);
                round_done_ = std::move(result);
            }
            ready_.notify_all();
        }));
}

void delivery_worker::end_round(round_result& result) {
    // Recorded, the answered events are no longer held; not recorded, they are due again.
    for (const auto& id : result.answered) let_go(id, !result.durable);
    if (result.durable && result.read_in_order) {
        for (const auto& delivery : result.claimed) {
            if (delivery.claim_token.empty()) held_.insert(delivery.id);
        }
        if (result.last && (!held_last_ || *held_last_ < *result.last)) held_last_ = result.last;
        if (result.last) place_ = result.last;
        reached_end_ = result.reached_end;
    }
    held_gauge_.store(static_cast<std::int64_t>(held_.size()), std::memory_order_relaxed);
    if (!result.durable) {
        // Leased claims, finished or new, come round again after their lease; those held in
        // memory were let go above and are read again at once.
        if (result.recorded > 0) {
            spdlog::warn("could not record {} webhook attempt(s); they will be retried",
                         result.recorded);
        }
        return;
    }
    for (const auto& verdict : result.verdicts) {
        if (verdict.outcome == "SUCCEEDED")
            succeeded_.fetch_add(1, std::memory_order_relaxed);
        else if (verdict.outcome == "RETRY_SCHEDULED")
            retried_.fetch_add(1, std::memory_order_relaxed);
        else
            gave_up_.fetch_add(1, std::memory_order_relaxed);
    }
    if (result.depth >= 0) queue_depth_.store(result.depth, std::memory_order_relaxed);
    more_due_ = result.read_in_order
                    ? !result.reached_end
                    : result.asked > 0 && static_cast<int>(result.claimed.size()) == result.asked;
    enqueue(std::move(result.claimed));
}

void delivery_worker::enqueue(std::vector<claimed_delivery> claimed) {
    // Approval and test events are sent once: they go first and never wait in the queue, so that
    // a crash cannot leave one claimed but never sent.
    for (auto it = claimed.rbegin(); it != claimed.rend(); ++it) {
        if (it->purpose != event_purpose::notify) queued_.push_front(std::move(*it));
    }
    for (auto& delivery : claimed) {
        if (delivery.purpose == event_purpose::notify) queued_.push_back(std::move(delivery));
    }
}

// Takes in what the last round and the last read came to, and returns the handed-over ids to read
// back next, if no read is under way (mutex_ held).
std::vector<std::string> delivery_worker::take_results() {
    if (round_done_) {
        end_round(*round_done_);
        round_done_.reset();
        round_pending_ = false;
    }
    if (read_done_) {
        enqueue(std::exchange(*read_done_, {}));
        read_done_.reset();
        reading_ = 0;
    }
    std::vector<std::string> to_read;
    if (!handed_.empty() && reading_ == 0) {
        to_read.swap(handed_);
        reading_ = to_read.size();
    }
    return to_read;
}

// Reads handed-over events back on delivery's own connection (never the writer's): what a claim
// round would have returned, without a write or a commit.
void delivery_worker::start_reading(std::vector<std::string> ids) {
    auto work = [this, ids = std::move(ids)](soci::session& session, round_result& result) {
        auto read = read_handed_over(session, services_.time, handover_token_, ids);
        result.claimed = std::move(read.claimed);
        // Their events are written closed: a second's rest from reading them back.
        for (const auto& owner : read.without_endpoint) {
            skip_handover_for(owner.platform_id, std::string(owner.env_name()),
                              services_.time.now_ms() + 1000);
        }
    };
    own_->submit(std::make_unique<round_job>(std::move(work), [this](round_result result) {
        {
            std::lock_guard lock(mutex_);
            read_done_ = std::move(result.claimed);  // empty when the read failed: leases run out
        }
        ready_.notify_all();
    }));
}

int claims_outstanding_max(int in_flight_max, std::int64_t answered_per_s) {
    auto ahead = std::clamp<std::int64_t>(answered_per_s / 4, in_flight_max,
                                          std::max<std::int64_t>(in_flight_max, claimed_ahead_max));
    return in_flight_max + static_cast<int>(ahead);
}

int delivery_worker::outstanding_max(int in_flight_max) const {
    return claims_outstanding_max(in_flight_max, answered_per_s_);
}

// Folds `answered` more answers into the recent rate, measured over windows of half a second.
void delivery_worker::count_answers(std::size_t answered) {
    auto now = std::chrono::steady_clock::now();
    answered_in_window_ += answered;
    auto elapsed_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(now - window_start_).count();
    if (elapsed_ms < 500) return;
    answered_per_s_ = static_cast<std::int64_t>(answered_in_window_) * 1000 / elapsed_ms;
    answered_in_window_ = 0;
    window_start_ = now;
}

// How many more events may be handed over: as many as may wait in the queue (mutex_ held).
void delivery_worker::set_handover_room(int in_flight_max) {
    std::int64_t waiting =
        in_flight_ + claims_waiting() + static_cast<std::int64_t>(handed_.size() + reading_);
    set_outbox_handover_room(std::max<std::int64_t>(0, outstanding_max(in_flight_max) - waiting));
}

// The batch's requests go to the transport a few at a time: together they cost its thread one
// wake-up, and the first ones leave while the others are signed (about 20 us each).
void delivery_worker::send(std::vector<outgoing> batch) {
    constexpr std::size_t calls_per_post = 16;
    std::vector<outbound_call> calls;
    for (auto& [delivery, request] : batch) {
        std::int64_t now_ms = services_.time.now_ms();
        if (delivery.attempt == 1)
            observe_into(lag_, lag_sum_ms_, lag_buckets_ms, now_ms - delivery.created_at_ms);
        auto shared = std::make_shared<claimed_delivery>(std::move(delivery));
        try {
            sender_.prepare(
                *shared, std::move(request), now_ms,
                [this, shared](attempt_report report) {
                    completion done{std::move(*shared), std::move(report)};
                    observe(done);
                    {
                        std::lock_guard lock(mutex_);
                        if (finished_.empty()) finished_since_ = std::chrono::steady_clock::now();
                        finished_.push_back(std::move(done));
                        --in_flight_;
                        in_flight_gauge_.store(in_flight_, std::memory_order_relaxed);
                    }
                    ready_.notify_all();
                },
                calls);
        } catch (const std::exception& error) {
            // A key that cannot sign: recorded as a failed attempt rather than lost.
            spdlog::error("webhook {} could not be sent: {}", shared->id, error.what());
            attempt_report report;
            report.attempted_at_ms = services_.time.now_ms();
            report.error = "the delivery could not be signed";
            std::lock_guard lock(mutex_);
            if (finished_.empty()) finished_since_ = std::chrono::steady_clock::now();
            finished_.push_back(completion{std::move(*shared), std::move(report)});
            --in_flight_;
            in_flight_gauge_.store(in_flight_, std::memory_order_relaxed);
        }
        if (calls.size() >= calls_per_post) sender_.post_all(std::exchange(calls, {}));
    }
    sender_.post_all(std::move(calls));
}

// Whether the loop has something to do before its deadline (mutex_ held).
bool delivery_worker::worth_looking(bool none_finished, int in_flight_max,
                                    std::size_t gather_max) const {
    if (stopping_ || round_done_.has_value() || read_done_.has_value()) return true;
    if (!handed_.empty() && reading_ == 0) return true;
    if (claims_waiting() > 0 && in_flight_ < in_flight_max) return true;
    if (round_pending_) return false;
    // The first answer to arrive sets the gathering's deadline: look again when it does.
    if (none_finished && !finished_.empty()) return true;
    return (woken_ && outstanding_max(in_flight_max) > in_flight_ + claims_waiting()) ||
           finished_.size() >= gather_max;
}

// Sending and bookkeeping overlap: claimed deliveries wait in a queue (at most as many as may be
// under way) and go out as soon as answers free room, while one round at a time records answers
// and claims more on the writer. A slot is then held for an HTTP exchange only, never for a commit.
void delivery_worker::loop() {
    using clock_type = std::chrono::steady_clock;
    const int in_flight_max = static_cast<int>(services_.config.webhooks.in_flight_max);
    const auto poll = std::chrono::milliseconds(services_.config.webhooks.poll_interval_ms);
    // Answers that arrive close together are recorded together: every round is a commit.
    const auto gather = std::chrono::milliseconds(2);
    const std::size_t gather_max = 64;
    auto next_poll = clock_type::now();    // the first round claims at once
    std::vector<claimed_delivery> unsent;  // held too long: given back by the next round
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        std::vector<std::string> to_read = take_results();
        std::vector<outgoing> batch = take_sendable(in_flight_max, unsent);
        auto now = clock_type::now();
        bool start = false;
        int room = 0;
        std::deque<completion> finished;
        if (!round_pending_) {
            room = std::clamp(outstanding_max(in_flight_max) - in_flight_ - claims_waiting(), 0,
                              claim_round_max);
            // Without room the poll waits for the next round (answers make room and record).
            if (room == 0 && now >= next_poll) next_poll = now + poll;
            bool claim = room > 0 && (woken_ || more_due_ || now >= next_poll);
            bool record =
                !finished_.empty() && (finished_.size() >= gather_max || in_flight_ == 0 ||
                                       now >= finished_since_ + gather);
            if (claim || record || !unsent.empty()) {
                start = true;
                count_answers(finished_.size());
                finished.swap(finished_);
                woken_ = false;
                more_due_ = false;
                if (room > 0) next_poll = now + poll;
                round_pending_ = true;
            }
        }
        set_handover_room(in_flight_max);
        auto ahead = take_to_sign_ahead(in_flight_max);  // counted above as queued
        if (start || !batch.empty() || !to_read.empty() || !ahead.empty()) {
            in_flight_gauge_.store(in_flight_, std::memory_order_relaxed);
            lock.unlock();
            try {
                if (!to_read.empty()) start_reading(std::move(to_read));
                if (start) start_round(std::move(finished), std::exchange(unsent, {}), room);
                send(std::move(batch));
            } catch (const std::exception& error) {
                spdlog::error("webhook delivery round failed: {}", error.what());
            }
            auto signed_now = sign_ahead(std::move(ahead));
            lock.lock();
            for (auto& next : signed_now) signed_.push_back(std::move(next));
            signed_gauge_.store(static_cast<std::int64_t>(signed_.size()),
                                std::memory_order_relaxed);
            continue;
        }
        // Nothing to do until an answer, a commit, a round's end or the next poll.
        auto until = next_poll;
        if (round_pending_) until = now + poll;
        if (!round_pending_ && !finished_.empty())
            until = std::min(until, finished_since_ + gather);
        bool none_finished = finished_.empty();
        ready_.wait_until(lock, until,
                          [&] { return worth_looking(none_finished, in_flight_max, gather_max); });
    }
}

std::string delivery_worker::metrics_text() const {
    std::string out;
    constexpr std::string_view attempts = "corridor_webhook_attempts_total";
    append_metric_header(out, attempts, "counter", "Webhook delivery attempts by outcome.");
    append_sample(out, attempts, "outcome", "SUCCEEDED", succeeded_.load());
    append_sample(out, attempts, "outcome", "RETRY_SCHEDULED", retried_.load());
    append_sample(out, attempts, "outcome", "GAVE_UP", gave_up_.load());
    append_metric(out, "corridor_webhook_attempts_unanswered_total", "counter",
                  "Attempts that got no HTTP answer.", no_answer_.load());
    constexpr std::string_view wakeups = "corridor_webhook_wakeups_total";
    append_metric_header(out, wakeups, "counter",
                         "Times delivery was woken before its poll: by a commit of this process "
                         "that recorded events, or by PostgreSQL's NOTIFY of any process's.");
    append_sample(out, wakeups, "source", "commit", woken_by_commit_.load());
    append_sample(out, wakeups, "source", "notification", woken_by_notification_.load());
    constexpr std::string_view rounds = "corridor_webhook_rounds_total";
    append_metric_header(out, rounds, "counter",
                         "Delivery rounds (claims and recorded attempts, one transaction each) by "
                         "where they ran: the ledger writer (those with an approval answer, or "
                         "all without a delivery connection) or delivery's own connection.");
    append_sample(out, rounds, "connection", "writer", rounds_on_writer_.load());
    append_sample(out, rounds, "connection", "delivery", rounds_on_own_.load());
    append_metric(out, "corridor_webhook_backlog_reader", "gauge",
                  "1 while this process reads the backlog of due events (on PostgreSQL one "
                  "process at a time, the holder of its lock), else 0.",
                  reading_backlog_.load() ? 1 : 0);
    append_metric(out, "corridor_webhook_claims_held", "gauge",
                  "Events of the backlog this process holds in memory, read and not yet "
                  "recorded: queued, under way, or answered.",
                  held_gauge_.load());
    append_metric(out, "corridor_webhook_signed_ahead", "gauge",
                  "Deliveries signed while every slot was taken, waiting for one.",
                  signed_gauge_.load());
    append_metric(out, "corridor_webhook_handed_over_total", "counter",
                  "Events leased to this process by the commit that wrote them and handed to its "
                  "delivery without a claim.",
                  handed_over_.load());
    append_metric(out, "corridor_webhook_queue_depth", "gauge",
                  "Events waiting for a delivery attempt (all processes).", queue_depth_.load());
    append_metric(out, "corridor_webhook_in_flight", "gauge",
                  "Deliveries under way in this process.", in_flight_gauge_.load());
    out += histogram_text("corridor_webhook_delivery_lag_seconds",
                          "From an event's commit to its first attempt.", lag_, lag_sum_ms_,
                          lag_buckets_ms);
    out += histogram_text("corridor_webhook_attempt_duration_seconds",
                          "From sending a webhook to its answer.", latency_, latency_sum_ms_,
                          lag_buckets_ms);
    return out;
}

}  // namespace corridor
