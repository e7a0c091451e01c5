#pragma once
// The webhook delivery loop of one process. It takes due events from the outbox, signs each body
// with the tenant's key, sends it through the outbound transport, and records every attempt with
// its outcome. Answers to approval events decide their incoming payment in the same transaction
// that records the attempt.
// Events come three ways. Those a commit of this process wrote are leased to it at their insert
// (outbox_handover.hpp). The backlog (the others, and retries) is read in the order of its due
// time by one reader, whose claims are held in memory and cost no write (read_due_deliveries):
// on SQLite the one process; on PostgreSQL the process whose delivery connection holds the
// backlog's advisory lock (another takes it within a poll when that process or its connection
// dies). Where there is no delivery connection on PostgreSQL, the rounds claim in the database
// (leases, FOR UPDATE SKIP LOCKED). A delivery under way when its process dies is sent again:
// a lease's when it runs out, the backlog's by the next reader, which reads from the first.
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "ledger/platforms/webhook_keys.hpp"
#include "ledger/store/session_job.hpp"
#include "ledger/webhooks/webhook_deliveries.hpp"
#include "server/http/outbound_client.hpp"
#include "server/workers/delivery_connection.hpp"

namespace corridor {

struct app_services;

// The retry policy the configuration describes; the lease covers one whole attempt with a margin.
retry_policy webhook_retry_policy(const struct service_config& config);

// How many deliveries a process may have claimed and not yet answered: those under way
// (in_flight_max) and a queue that covers about a quarter of a second of sending at the rate
// answers came back lately, never less than in_flight_max nor more than claimed_ahead_max, so that
// sending does not run dry while a round commits and claims more, yet a slow endpoint's claims do
// not wait long in the queue.
inline constexpr std::int64_t claimed_ahead_max = 4096;
int claims_outstanding_max(int in_flight_max, std::int64_t answered_per_s);

// A delivery's body as sent (its timestamp the signing's) and the signature header over it.
struct signed_webhook {
    std::string body, signature_header;
    std::int64_t signed_at_ms = 0;
};

// Signs and sends one claimed delivery, then reports the attempt (interrupted or endpoint-less
// deliveries are reported without being sent). Shared by the loop and POST /webhooks/test.
class webhook_sender {
public:
    explicit webhook_sender(outbound_transport& transport) : transport_(transport) {}
    void send(const claimed_delivery& delivery, std::int64_t now_ms,
              std::function<void(attempt_report)> done);
    // Whether sending the delivery means signing it (not interrupted, an endpoint to send to).
    static bool needs_signing(const claimed_delivery& delivery);
    // Throws when the tenant's key cannot sign.
    signed_webhook sign(const claimed_delivery& delivery, std::int64_t now_ms);
    // As send(), with the request signed at `now_ms` unless `ready` holds it signed already, and
    // added to `calls` for post_all() to send together with others. Throws when the tenant's key
    // cannot sign (nothing added, `done` not run).
    void prepare(const claimed_delivery& delivery, std::optional<signed_webhook> ready,
                 std::int64_t now_ms, std::function<void(attempt_report)> done,
                 std::vector<outbound_call>& calls);
    void post_all(std::vector<outbound_call> calls);

private:
    const webhook_signer& signer_for(const claimed_delivery& delivery);
    outbound_transport& transport_;
    std::mutex mutex_;
    std::map<std::string, std::pair<std::string, webhook_signer>>
        signers_;  // tenant -> (pem, signer)
};

class delivery_worker {
public:
    // `own`: delivery's own connection (delivery_connection.hpp): rounds that decide no payment
    // run there where it takes them, and with it events are handed over at their commit
    // (outbox_handover.hpp). Null: every round runs on the writer, and nothing is handed over.
    delivery_worker(app_services& services, session_executor& writer, outbound_transport& transport,
                    delivery_connection* own = nullptr);
    ~delivery_worker();
    delivery_worker(const delivery_worker&) = delete;
    delivery_worker& operator=(const delivery_worker&) = delete;

    void start();
    // Stops claiming, waits up to `drain_ms` for deliveries under way, records what finished and
    // gives back the claimed deliveries it did not send.
    void stop(std::int64_t drain_ms = 2000);
    // Something was committed: look at the outbox now rather than at the next poll. `commit`: a
    // commit of this process; `notification`: PostgreSQL's NOTIFY, sent by any process's commit.
    enum class wake_source { commit, notification };
    void wake(wake_source source = wake_source::commit);
    // Events leased to this process by the commit that wrote them (outbox_handover.hpp).
    void handed_over(std::vector<std::string> ids);
    std::string metrics_text() const;

    // A claimed delivery waits in the queue at most this long; older ones are given back rather
    // than sent, so that an attempt always starts well inside its lease.
    static constexpr std::int64_t queued_ms_max = 2000;
    // At most this many deliveries claimed by one round.
    static constexpr int claim_round_max = 1024;
    // While every slot is taken, as many queued deliveries as may be under way are signed ahead;
    // one signed this long before its slot came is signed again, so that the body's timestamp is
    // the time it was sent, give or take.
    static constexpr std::int64_t signed_age_max_ms = 100;

private:
    struct completion {
        claimed_delivery delivery;
        attempt_report report;
    };
    // A claimed delivery on its way out, signed ahead or not (then signed as it is sent).
    struct outgoing {
        claimed_delivery delivery;
        std::optional<signed_webhook> request;
    };
    // What a round (one writer job) came to; filled on the writer's thread.
    struct round_result {
        bool durable = false;
        std::vector<claimed_delivery> claimed;
        std::vector<delivery_verdict> verdicts;
        std::size_t recorded = 0;
        std::int64_t depth = -1;
        int asked = 0;
        // A read of the backlog in order: where it stopped, whether it came to the end.
        bool read_in_order = false, reached_end = false;
        std::optional<due_position> last;
        std::vector<std::string> answered;  // claims in memory recorded (or not) by the round
    };
    // What the next read of the backlog passes to read_due_deliveries (loop thread, mutex_ held).
    struct read_plan {
        std::optional<due_position> after;
        std::unordered_set<std::string> held;
    };
    read_plan plan_read();
    void claim_more(soci::session& session, bool on_own, const read_plan& plan, int room,
                    round_result& result);
    bool holds_backlog_lock(soci::session& session);
    void open_backlog_lock_file(const std::string& path);
    bool holds_backlog_file_lock();
    // An event held in memory is no longer: recorded, or due again (mutex_ held).
    void let_go(const std::string& id, bool due_again);
    class round_job;
    class read_job;
    void start_reading(std::vector<std::string> ids);  // reads handed-over events back
    void enqueue(std::vector<claimed_delivery> claimed);
    std::vector<std::string> take_results();
    void set_handover_room(int in_flight_max);
    int outstanding_max(int in_flight_max) const;
    void count_answers(std::size_t answered);
    void loop();
    // Submits one round to the writer without waiting: records `finished`, gives back `unsent`,
    // and claims up to `room` due events.
    void start_round(std::deque<completion> finished, std::vector<claimed_delivery> unsent,
                     int room);
    void end_round(round_result& result);  // on the loop thread, with mutex_ held
    bool worth_looking(bool none_finished, int in_flight_max, std::size_t gather_max) const;
    std::vector<outgoing> take_sendable(int in_flight_max, std::vector<claimed_delivery>& unsent);
    std::vector<claimed_delivery> take_to_sign_ahead(int in_flight_max);
    void send(std::vector<outgoing> batch);
    std::vector<outgoing> sign_ahead(std::vector<claimed_delivery> deliveries);
    // Claimed and not yet under way: queued, or signed ahead (mutex_ held).
    int claims_waiting() const { return static_cast<int>(queued_.size() + signed_.size()); }
    // A delivery queued longer than queued_ms_max: given back by the next round (mutex_ held).
    bool queued_too_long(claimed_delivery& delivery, std::int64_t now_ms,
                         std::vector<claimed_delivery>& unsent);
    void observe(const completion& done);

    app_services& services_;
    session_executor& writer_;
    delivery_connection* own_;  // null: none
    webhook_sender sender_;
    retry_policy policy_;        // the retry schedule and an attempt's lease
    retry_policy claim_policy_;  // the same, its lease longer by queued_ms_max

    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<completion> finished_;
    // Claimed, not yet sent: sent as answers free room, so that a slot never waits for a round's
    // commit. Oldest claim first.
    std::deque<claimed_delivery> queued_;
    // Queued deliveries signed while every slot was taken, older than every one in queued_: the
    // first to go when answers free room (the loop thread's, mutex_ held).
    std::deque<outgoing> signed_;
    bool round_pending_ = false;
    std::string handover_token_;       // this process's claim token for handed-over events
    std::vector<std::string> handed_;  // handed over, not yet read back
    std::size_t reading_ = 0;          // being read back
    std::optional<std::vector<claimed_delivery>> read_done_;
    std::optional<round_result> round_done_;
    bool more_due_ = false;  // the last round claimed all it asked for
    // The backlog's reader: the events it holds in memory (claimed, not yet recorded), the place
    // its next read goes on from (none: from the first), the furthest place of an event held, and
    // when it last read from the first (which finds events that became due behind the place: a
    // commit that came late, a lease run out, one given back or not recorded).
    std::unordered_set<std::string> held_;
    std::optional<due_position> place_, held_last_;
    bool reached_end_ = false;
    bool read_from_first_ = false;  // an event held was let go: it is due behind the place
    std::chrono::steady_clock::time_point read_from_first_at_{};
    std::uint64_t lock_session_ = 0;  // delivery connection's thread: the session holding the lock
    // SQLite: the file beside the database whose lock (flock) makes this process the backlog's
    // reader, opened at the start when there is a delivery connection (without one, in tests on a
    // database of their own, the process reads the backlog unasked); the lock is taken on the
    // writer's thread.
    int backlog_lock_fd_ = -1;
    bool backlog_locked_ = false;
    std::atomic<bool> reading_backlog_{false};
    std::atomic<std::int64_t> held_gauge_{0}, signed_gauge_{0};
    bool stopping_ = false;
    bool woken_ = false;
    int in_flight_ = 0;
    std::chrono::steady_clock::time_point finished_since_;  // when finished_ became non-empty
    // Answers recorded per second lately (loop thread): sizes the queue of claims.
    std::int64_t answered_per_s_ = 0;
    std::size_t answered_in_window_ = 0;
    std::chrono::steady_clock::time_point window_start_ = std::chrono::steady_clock::now();
    std::thread thread_;

    // Metrics.
    static constexpr std::array<std::int64_t, 10> lag_buckets_ms = {5,   10,  25,   50,   100,
                                                                    250, 500, 1000, 5000, 60000};
    std::atomic<std::uint64_t> succeeded_{0}, retried_{0}, gave_up_{0}, no_answer_{0};
    std::atomic<std::uint64_t> woken_by_commit_{0}, woken_by_notification_{0};
    std::atomic<std::uint64_t> rounds_on_writer_{0}, rounds_on_own_{0};
    std::atomic<std::uint64_t> handed_over_{0};
    std::array<std::atomic<std::uint64_t>, lag_buckets_ms.size() + 1> lag_{};
    std::atomic<std::uint64_t> lag_sum_ms_{0};
    std::array<std::atomic<std::uint64_t>, lag_buckets_ms.size() + 1> latency_{};
    std::atomic<std::uint64_t> latency_sum_ms_{0};
    std::atomic<std::int64_t> queue_depth_{0};
    std::int64_t last_depth_ms_ = 0;  // loop thread only
    std::atomic<int> in_flight_gauge_{0};
};

}  // namespace corridor
