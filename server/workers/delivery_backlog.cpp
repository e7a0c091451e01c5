// How the delivery loop reads the backlog of due events in order, holding its claims in memory
// (read_due_deliveries), and how a process becomes the backlog's one reader: PostgreSQL's advisory
// lock on delivery's connection, or, on SQLite, a file lock beside the database.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ledger/store/database.hpp"
#include "server/api/app.hpp"
#include "server/workers/delivery_worker.hpp"

namespace corridor {

// The round's claims: the backlog read in order by its one reader (SQLite's writer, or delivery's
// connection on PostgreSQL while it holds the backlog's lock), or, on PostgreSQL without a
// delivery connection, claims in the database; a writer's round beside a delivery connection
// claims nothing (its connection reads the backlog, or another process's does).
void delivery_worker::claim_more(soci::session& session, bool on_own, const read_plan& plan,
                                 int room, round_result& result) {
    result.asked = room;
    bool sqlite = backend_of(session) == database_backend::sqlite;
    if (!sqlite && !on_own) {
        if (!own_) {
            result.claimed = claim_due_deliveries(session, services_.time, services_.random,
                                                  claim_policy_, room);
        } else {
            result.asked = 0;
        }
        return;
    }
    if (sqlite ? !holds_backlog_file_lock() : !holds_backlog_lock(session)) {
        result.asked = 0;
        reading_backlog_.store(false, std::memory_order_relaxed);
        return;
    }
    reading_backlog_.store(true, std::memory_order_relaxed);
    auto read = read_due_deliveries(session, services_.time, services_.random, claim_policy_,
                                    plan.after, plan.held, room);
    result.read_in_order = true;
    result.reached_end = read.reached_end;
    result.last = std::move(read.last);
    result.claimed = std::move(read.claimed);
}

// PostgreSQL: whether this delivery connection's session holds the backlog's lock, taking it if
// it is free. A session-level lock: it outlives the round's transaction and goes with the session
// (a process that dies, a connection that drops), when another process's next round takes it.
bool delivery_worker::holds_backlog_lock(soci::session& session) {
    constexpr long long backlog_lock_key = 7244012;  // migrations hold 7244011
    if (lock_session_ != 0 && lock_session_ == own_->session_number()) return true;
    int taken = 0;
    session << "SELECT CAST(pg_try_advisory_lock(:k) AS INTEGER)", soci::use(backlog_lock_key),
        soci::into(taken);
    if (taken == 0) return false;
    lock_session_ = own_->session_number();
    return true;
}

// SQLite: opens the file beside the database whose lock makes a process the backlog's reader,
// once, at the start (a process that is not the reader tries the lock again every round).
void delivery_worker::open_backlog_lock_file(const std::string& path) {
    backlog_lock_fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (backlog_lock_fd_ < 0) {
        spdlog::error("webhook delivery cannot open {}: {}; this process will not read the backlog",
                      path, std::strerror(errno));
    }
}

// SQLite: whether this process holds that file's lock, taking it if it is free. flock: the kernel
// lets it go with the process.
bool delivery_worker::holds_backlog_file_lock() {
    if (!own_ || backlog_locked_) return true;
    backlog_locked_ = backlog_lock_fd_ >= 0 && ::flock(backlog_lock_fd_, LOCK_EX | LOCK_NB) == 0;
    return backlog_locked_;
}

// Where the next read of the backlog starts and what it must pass over (mutex_ held). From the
// first when there is no place (at the start, after claims were let go), when the last read came
// to the end and what is held is no more than a round (in quiet times: at little cost, events that
// became due behind the place are found at once), and at least once a second under a backlog.
delivery_worker::read_plan delivery_worker::plan_read() {
    constexpr auto from_first_every = std::chrono::seconds(1);
    auto now = std::chrono::steady_clock::now();
    read_plan plan;
    bool from_first = !place_ || read_from_first_ ||
                      (reached_end_ && held_.size() <= claim_round_max) ||
                      now - read_from_first_at_ >= from_first_every;
    if (from_first) {
        read_from_first_at_ = now;
        read_from_first_ = false;
        plan.held = held_;
        return plan;
    }
    plan.after = place_;
    // Events read earlier in order lie at or before the place: only after a read from the first
    // that stopped short of them may some lie after it.
    if (held_last_ && *place_ < *held_last_) plan.held = held_;
    return plan;
}

void delivery_worker::let_go(const std::string& id, bool due_again) {
    if (held_.erase(id) == 0) return;
    read_from_first_ = read_from_first_ || due_again;  // due again behind the place
    if (held_.empty()) held_last_.reset();
    held_gauge_.store(static_cast<std::int64_t>(held_.size()), std::memory_order_relaxed);
}

}  // namespace corridor
