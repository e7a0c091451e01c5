#include "server/workers/outbox_notifications.hpp"

#include <libpq-fe.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <memory>

#include "ledger/store/outbox.hpp"

namespace corridor {
namespace {

constexpr int reconnect_interval_ms = 1000;

struct connection_closer {
    void operator()(PGconn* connection) const { PQfinish(connection); }
};
using connection_ptr = std::unique_ptr<PGconn, connection_closer>;

}  // namespace

outbox_notification_listener::outbox_notification_listener(std::string conninfo,
                                                           std::function<void()> wake)
    : conninfo_(std::move(conninfo)), wake_(std::move(wake)) {
    stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (stop_fd_ < 0) throw std::runtime_error("cannot make an eventfd for the outbox listener");
    thread_ = std::thread([this] { run(); });
}

outbox_notification_listener::~outbox_notification_listener() {
    stop();
    ::close(stop_fd_);
}

void outbox_notification_listener::stop() {
    if (stopping_.exchange(true)) {
        if (thread_.joinable()) thread_.join();
        return;
    }
    std::uint64_t one = 1;
    [[maybe_unused]] auto written = ::write(stop_fd_, &one, sizeof one);
    if (thread_.joinable()) thread_.join();
}

void outbox_notification_listener::run() {
    bool warned = false;
    while (!stopping_) {
        if (listen_until_lost()) {
            warned = false;
            continue;
        }
        if (stopping_) return;
        if (!warned)
            spdlog::warn(
                "outbox notifications: connection lost; webhook delivery falls back to polling");
        warned = true;
        pollfd stop{stop_fd_, POLLIN, 0};
        ::poll(&stop, 1, reconnect_interval_ms);
    }
}

// Connects, LISTENs, and wakes delivery on every notification until the connection fails (true:
// it had been listening, so reconnect at once) or stop() is called.
bool outbox_notification_listener::listen_until_lost() {
    connection_ptr connection(PQconnectdb(conninfo_.c_str()));
    if (PQstatus(connection.get()) != CONNECTION_OK) return false;
    std::unique_ptr<PGresult, decltype(&PQclear)> listened(
        PQexec(connection.get(), (std::string("LISTEN ") + outbox_channel).c_str()), &PQclear);
    if (PQresultStatus(listened.get()) != PGRES_COMMAND_OK) return false;
    wake_();  // events committed while no one listened
    while (!stopping_) {
        pollfd fds[2] = {{PQsocket(connection.get()), POLLIN, 0}, {stop_fd_, POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) continue;  // EINTR
        if (fds[1].revents != 0) return false;
        if (PQconsumeInput(connection.get()) == 0) return true;
        bool any = false;
        while (PGnotify* notification = PQnotifies(connection.get())) {
            PQfreemem(notification);
            any = true;
        }
        if (any) {
            notifications_.fetch_add(1);
            wake_();
        }
    }
    return false;
}

}  // namespace corridor
