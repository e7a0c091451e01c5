#pragma once
// On PostgreSQL, other processes' commits wake this process's webhook delivery: a connection of
// its own LISTENs on the outbox channel (write_transaction sends NOTIFY when a transaction that
// recorded events commits). Losing the connection only costs latency: delivery still polls, and
// the listener reconnects and wakes delivery once, for what it may have missed.
#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace corridor {

class outbox_notification_listener {
public:
    // `conninfo`: a libpq connection string or URI.
    outbox_notification_listener(std::string conninfo, std::function<void()> wake);
    ~outbox_notification_listener();
    outbox_notification_listener(const outbox_notification_listener&) = delete;
    outbox_notification_listener& operator=(const outbox_notification_listener&) = delete;

    void stop();
    std::uint64_t notifications_total() const { return notifications_.load(); }

private:
    void run();
    bool listen_until_lost();  // false when stopping

    std::string conninfo_;
    std::function<void()> wake_;
    int stop_fd_ = -1;  // an eventfd that stop() signals
    std::atomic<bool> stopping_{false};
    std::atomic<std::uint64_t> notifications_{0};
    std::thread thread_;
};

}  // namespace corridor
