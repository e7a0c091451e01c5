#include "server/process/ops_metrics.hpp"

#include <dirent.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <vector>

#include "ledger/base/thread_name.hpp"
#include "server/process/build_info.hpp"

namespace corridor {
namespace {

// A Prometheus label value: backslash, quote and newline escaped.
std::string label(std::string_view value) {
    std::string out;
    for (char c : value) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}

std::int64_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::int64_t size_pages = 0, resident_pages = 0;
    if (!(statm >> size_pages >> resident_pages)) return 0;
    return resident_pages * static_cast<std::int64_t>(::sysconf(_SC_PAGESIZE));
}

std::int64_t open_fds() {
    DIR* dir = ::opendir("/proc/self/fd");
    if (!dir) return 0;
    std::int64_t count = 0;
    while (const dirent* entry = ::readdir(dir)) {
        if (entry->d_name[0] != '.') ++count;
    }
    ::closedir(dir);
    return count - 1;  // the descriptor of the listing itself
}

double cpu_seconds() {
    rusage usage{};
    if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
    auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// An aggregate column as a number, whatever integer type the backend reports it as (SQLite
// reports the type of the value found, PostgreSQL bigint or numeric).
long long integer_at(const soci::row& row, std::size_t column) {
    switch (row.get_properties(column).get_data_type()) {
        case soci::dt_integer: return row.get<int>(column);
        case soci::dt_long_long: return row.get<long long>(column);
        case soci::dt_unsigned_long_long:
            return static_cast<long long>(row.get<unsigned long long>(column));
        case soci::dt_double: return static_cast<long long>(row.get<double>(column));
        case soci::dt_string: return std::stoll(row.get<std::string>(column));
        default: return 0;
    }
}

}  // namespace

std::string build_metrics() {
    const auto& build = this_build();
    return fmt::format(
        "# HELP corridor_build_info The version and source revision of this binary (always 1).\n"
        "# TYPE corridor_build_info gauge\n"
        "corridor_build_info{{version=\"{}\",revision=\"{}\"}} 1\n",
        label(build.version), label(build.git_revision));
}

std::string process_metrics() {
    return fmt::format(
        "# HELP process_resident_memory_bytes Resident memory of the process.\n"
        "# TYPE process_resident_memory_bytes gauge\n"
        "process_resident_memory_bytes {}\n"
        "# HELP process_open_fds Open file descriptors of the process.\n"
        "# TYPE process_open_fds gauge\n"
        "process_open_fds {}\n"
        "# HELP process_cpu_seconds_total CPU time of the process, user and system.\n"
        "# TYPE process_cpu_seconds_total counter\n"
        "process_cpu_seconds_total {:.3f}\n",
        resident_bytes(), open_fds(), cpu_seconds());
}

std::string database_gauges::count(soci::session& session, std::int64_t now_ms) {
    std::string out;
    long long now = now_ms;

    out +=
        "# HELP corridor_rail_operations_open Rail operations not yet final (INITIATING or "
        "PENDING), by rail.\n# TYPE corridor_rail_operations_open gauge\n";
    std::string overdue =
        "# HELP corridor_rail_operations_overdue Open rail operations past their settlement "
        "deadline, by rail.\n# TYPE corridor_rail_operations_overdue gauge\n";
    soci::rowset<soci::row> rails =
        (session.prepare << "SELECT rail, CAST(COUNT(*) AS BIGINT), "
                            "CAST(SUM(CASE WHEN deadline_at_ms <= :n THEN 1 ELSE 0 END) AS BIGINT) "
                            "FROM rail_operations WHERE status IN ('INITIATING', 'PENDING') "
                            "GROUP BY rail ORDER BY rail",
         soci::use(now));
    for (const auto& row : rails) {
        auto rail = label(row.get<std::string>(0));
        out += fmt::format("corridor_rail_operations_open{{rail=\"{}\"}} {}\n", rail,
                           integer_at(row, 1));
        overdue += fmt::format("corridor_rail_operations_overdue{{rail=\"{}\"}} {}\n", rail,
                               integer_at(row, 2));
    }
    out += overdue;

    long long events = 0, oldest_ms = 0;
    session << "SELECT CAST(COUNT(*) AS BIGINT), CAST(COALESCE(MIN(created_at_ms), 0) AS BIGINT) "
               "FROM outbox_events WHERE state = 'PENDING'",
        soci::into(events), soci::into(oldest_ms);
    out += fmt::format(
        "# HELP corridor_webhook_backlog_events Webhook events not yet delivered (waiting or "
        "retrying).\n# TYPE corridor_webhook_backlog_events gauge\ncorridor_webhook_backlog_events "
        "{}\n"
        "# HELP corridor_webhook_backlog_oldest_age_seconds Age of the oldest undelivered webhook "
        "event (0 when none).\n# TYPE corridor_webhook_backlog_oldest_age_seconds gauge\n"
        "corridor_webhook_backlog_oldest_age_seconds {:.3f}\n",
        events, events > 0 ? std::max(0LL, now - oldest_ms) / 1000.0 : 0.0);

    std::map<std::string, long long> jobs{
        {"PENDING", 0}, {"PROCESSING", 0}, {"COMPLETED", 0}, {"FAILED", 0}};
    soci::rowset<soci::row> states =
        (session.prepare
         << "SELECT status, CAST(COUNT(*) AS BIGINT) FROM bulk_import_jobs GROUP BY status");
    for (const auto& row : states) jobs[row.get<std::string>(0)] = integer_at(row, 1);
    out +=
        "# HELP corridor_bulk_import_jobs Bulk-import jobs by state.\n"
        "# TYPE corridor_bulk_import_jobs gauge\n";
    for (const auto& [state, jobs_in_state] : jobs) {
        out += fmt::format("corridor_bulk_import_jobs{{state=\"{}\"}} {}\n", label(state),
                           jobs_in_state);
    }

    long long callbacks = 0, oldest_callback_ms = 0;
    session << "SELECT CAST(COUNT(*) AS BIGINT), CAST(COALESCE(MIN(created_at_ms), 0) AS BIGINT) "
               "FROM uma_post_transactions WHERE state = 'PENDING'",
        soci::into(callbacks), soci::into(oldest_callback_ms);
    out += fmt::format(
        "# HELP corridor_uma_post_transaction_backlog UMA post-transaction callbacks not yet "
        "delivered.\n# TYPE corridor_uma_post_transaction_backlog gauge\n"
        "corridor_uma_post_transaction_backlog {}\n"
        "# HELP corridor_uma_post_transaction_oldest_age_seconds Age of the oldest undelivered UMA "
        "post-transaction callback (0 when none).\n"
        "# TYPE corridor_uma_post_transaction_oldest_age_seconds gauge\n"
        "corridor_uma_post_transaction_oldest_age_seconds {:.3f}\n",
        callbacks, callbacks > 0 ? std::max(0LL, now - oldest_callback_ms) / 1000.0 : 0.0);
    return out;
}

class database_gauges_job final : public session_job {
public:
    explicit database_gauges_job(database_gauges& owner) : owner_(owner) {}
    bool run(soci::session& session) noexcept override {
        try {
            text_ = database_gauges::count(session, owner_.time_.now_ms());
            return true;
        } catch (const std::exception& error) {
            spdlog::warn("counting the database metrics failed: {}", error.what());
            return false;
        }
    }
    void finish(job_outcome) noexcept override { owner_.store(std::move(text_)); }

private:
    database_gauges& owner_;
    std::string text_;
};

database_gauges::database_gauges(session_executor& pool, const clock& time,
                                 std::int64_t interval_ms)
    : pool_(pool), time_(time), interval_ms_(interval_ms) {
    thread_ = std::thread([this] {
        name_this_thread("db-gauges");
        loop();
    });
}

database_gauges::~database_gauges() {
    stop();
}

void database_gauges::stop() {
    std::unique_lock lock(mutex_);
    stopping_ = true;
    wake_.notify_all();
    // A job still queued or running refers to this object: wait for it to come back.
    wake_.wait(lock, [this] { return !in_flight_; });
    lock.unlock();
    if (thread_.joinable()) thread_.join();
}

void database_gauges::loop() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        if (!in_flight_) {
            in_flight_ = true;
            lock.unlock();
            pool_.submit(std::make_unique<database_gauges_job>(*this));
            lock.lock();
        }
        wake_.wait_for(lock, std::chrono::milliseconds(interval_ms_), [this] { return stopping_; });
    }
}

void database_gauges::store(std::string text) {
    std::lock_guard lock(mutex_);
    if (!text.empty()) text_ = std::move(text);  // a failed count keeps the last good one
    in_flight_ = false;
    wake_.notify_all();
}

std::string database_gauges::render() const {
    std::lock_guard lock(mutex_);
    return text_;
}

}  // namespace corridor
