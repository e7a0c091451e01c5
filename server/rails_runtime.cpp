#include "server/rails_runtime.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <boost/json.hpp>

#include "ledger/external_account_store.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

class spdlog_sink final : public rail_log_sink {
public:
    void write(const std::string& rail, corridor_rail_log_level level,
               const std::string& message) override {
        switch (level) {
            case CORRIDOR_RAIL_LOG_DEBUG: spdlog::debug("rail {}: {}", rail, message); break;
            case CORRIDOR_RAIL_LOG_INFO: spdlog::info("rail {}: {}", rail, message); break;
            case CORRIDOR_RAIL_LOG_WARN: spdlog::warn("rail {}: {}", rail, message); break;
            default: spdlog::error("rail {}: {}", rail, message); break;
        }
    }
};

class stored_external_accounts final : public external_account_directory {
public:
    std::optional<external_account_ref> find(soci::session& session, const tenant& owner,
                                             const std::string& id) override {
        auto found = find_external_account(session, owner, id);
        if (!found) return std::nullopt;
        return external_account_ref{
            found->id,           found->customer_id.value_or(""), found->currency,
            found->account_type, found->account_info_json,        found->status};
    }
};

}  // namespace

// One engine pass on the ledger writer's session.
class drive_job final : public session_job {
public:
    drive_job(payment_engine& engine, rail_driver& driver) : engine_(engine), driver_(driver) {}
    bool run(soci::session& session) noexcept override {
        try {
            changed_ = engine_.drive(session);
            return true;
        } catch (const std::exception& error) {
            spdlog::error("payment engine pass failed: {}", error.what());
            return false;
        }
    }
    void finish(bool durable) noexcept override { driver_.pass_finished(durable && changed_ > 0); }

private:
    payment_engine& engine_;
    rail_driver& driver_;
    int changed_ = 0;
};

rail_load_config rail_load_config_of(const service_config& config) {
    rail_load_config out;
    out.plugins_dir = config.plugins_dir;
    out.rails = config.plugins_rails;
    out.sha256_pins = config.plugins_sha256;
    out.settings_json = config.plugins_settings;
    json::object sandbox;
    auto found = out.settings_json.find("sandbox");
    if (found != out.settings_json.end()) sandbox = json::parse(found->second).as_object();
    if (!sandbox.contains("timeout_ms"))
        sandbox["timeout_ms"] = config.sandbox_timeout_seconds * 1000;
    out.settings_json["sandbox"] = json::serialize(sandbox);
    return out;
}

std::string rail_metrics(const rail_registry& rails) {
    std::string out =
        "# HELP corridor_rail_calls_total Calls into rail plugin hooks.\n"
        "# TYPE corridor_rail_calls_total counter\n";
    std::string not_ok =
        "# HELP corridor_rail_calls_not_ok_total Rail hook calls that did not return OK.\n"
        "# TYPE corridor_rail_calls_not_ok_total counter\n";
    std::string seconds =
        "# HELP corridor_rail_call_seconds_total Time spent inside rail plugin hooks.\n"
        "# TYPE corridor_rail_call_seconds_total counter\n";
    for (const auto& rail : rails.all()) {
        for (std::size_t i = 0; i < rail_hook_names.size(); ++i) {
            const auto& stats = rail->stats(static_cast<rail_hook>(i));
            std::string labels =
                fmt::format("{{rail=\"{}\",hook=\"{}\"}}", rail->name(), rail_hook_names[i]);
            out += fmt::format("corridor_rail_calls_total{} {}\n", labels, stats.calls.load());
            not_ok +=
                fmt::format("corridor_rail_calls_not_ok_total{} {}\n", labels, stats.not_ok.load());
            seconds += fmt::format("corridor_rail_call_seconds_total{} {:.6f}\n", labels,
                                   static_cast<double>(stats.total_us.load()) / 1e6);
        }
    }
    return out + not_ok + seconds;
}

std::unique_ptr<external_account_directory> make_external_account_directory() {
    return std::make_unique<stored_external_accounts>();
}

rail_log_sink& spdlog_rail_log() {
    static spdlog_sink sink;
    return sink;
}

rail_driver::rail_driver(rail_engine_services services, session_executor& writer,
                         std::int64_t interval_ms)
    : engine_(services) {
    thread_ = std::thread([this, &writer, interval_ms] {
        std::unique_lock lock(mutex_);
        while (!stopping_) {
            in_flight_ = true;
            lock.unlock();
            writer.submit(std::make_unique<drive_job>(engine_, *this));
            lock.lock();
            wake_.wait(lock, [this] { return !in_flight_; });
            if (found_work_) continue;
            wake_.wait_for(lock, std::chrono::milliseconds(interval_ms),
                           [this] { return stopping_; });
        }
    });
}

void rail_driver::pass_finished(bool found_work) {
    {
        std::lock_guard lock(mutex_);
        in_flight_ = false;
        found_work_ = found_work;
    }
    wake_.notify_all();
}

rail_driver::~rail_driver() {
    stop();
}

void rail_driver::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

}  // namespace corridor
