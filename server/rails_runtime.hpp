#pragma once
// The server's side of rails: turning the configuration into what rails/ needs, sending plugin log
// lines to the server's log, and running the payment engine on the ledger writer.
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "ledger/session_job.hpp"
#include "rails/loader.hpp"
#include "rails/payment_engine.hpp"
#include "server/config.hpp"

namespace corridor {

// plugins.* as the loader takes it. The sandbox rail gets timeout_ms from sandbox.timeout_seconds
// unless its own settings name one.
rail_load_config rail_load_config_of(const service_config& config);

// Prometheus text: calls into each rail's hooks, those that did not return OK, and their time.
std::string rail_metrics(const rail_registry& rails);

// External accounts for the payment engine, read from the external-account store.
std::unique_ptr<external_account_directory> make_external_account_directory();

// Plugin log lines into spdlog, tagged with the rail's name.
rail_log_sink& spdlog_rail_log();

// Submits one payment_engine::drive pass at a time to the ledger writer: the next pass right after
// one that found work (so a backlog drains at the writer's pace), otherwise after
// rails.drive_interval_ms.
class rail_driver {
public:
    rail_driver(rail_engine_services services, session_executor& writer, std::int64_t interval_ms);
    ~rail_driver();
    void stop();

private:
    friend class drive_job;
    void pass_finished(bool found_work);

    payment_engine engine_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool in_flight_ = false;
    bool found_work_ = false;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace corridor
