#pragma once
// The server's side of rails: turning the configuration into what rails/ needs, sending plugin log
// lines to the server's log, the process's identity as a rail node, and running the payment
// engine: its claim and record steps on the ledger writer, the rails' hooks on a thread of its own.
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "ledger/random.hpp"
#include "ledger/session_job.hpp"
#include "rails/loader.hpp"
#include "rails/payment_engine.hpp"
#include "server/config.hpp"

namespace corridor {

// plugins.* as the loader takes it. Every rail gets data_dir, its own folder under rails.data_dir
// (rails.data_dir/<name>), and the sandbox rail timeout_ms from sandbox.timeout_seconds, unless its
// own settings name them.
rail_load_config rail_load_config_of(const service_config& config);

// This process as a rail node: the id kept in DATA_DIR/node-id (made on the first start, the same
// at every later one) and an exclusive lock on DATA_DIR/node.lock held for the object's life, so
// that two running processes are never one node (each keeps its rails' state in its own folder).
// Throws rail_load_error naming the folder when it cannot be made or another process holds it.
class rail_node_lock {
public:
    rail_node_lock(const std::string& data_dir, random_source& random);
    ~rail_node_lock();
    rail_node_lock(const rail_node_lock&) = delete;
    rail_node_lock& operator=(const rail_node_lock&) = delete;
    const std::string& id() const { return id_; }

private:
    int fd_ = -1;
    std::string id_;
};

// Prometheus text: calls into each rail's hooks, those that did not return OK, and their time.
std::string rail_metrics(const rail_registry& rails);

// External accounts for the payment engine, read from the external-account store.
std::unique_ptr<external_account_directory> make_external_account_directory();

// Plugin log lines into spdlog, tagged with the rail's name.
rail_log_sink& spdlog_rail_log();

// Runs payment engine passes, one at a time, on a thread of its own. Each pass is one ledger
// writer command, which records what the rails answered in the pass before and claims this
// pass's operations, then the rails' hooks on this thread, outside any transaction (so a slow
// plugin delays only rail work, never the writer). The next pass starts right after one that found
// work or has answers to record (so a backlog drains at the writer's pace), otherwise after
// rails.drive_interval_ms. Answers whose command did not commit are recorded by the next one.
class rail_driver {
public:
    rail_driver(rail_engine_services services, session_executor& writer, std::int64_t interval_ms);
    ~rail_driver();
    void stop();

private:
    bool pass(session_executor& writer);
    bool stopping();

    payment_engine engine_;
    std::optional<rail_answers> unrecorded_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace corridor
