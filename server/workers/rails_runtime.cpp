#include "server/workers/rails_runtime.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/rand.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <sys/file.h>

#include <array>
#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>

#include "ledger/store/database.hpp"
#include "ledger/customers/external_account_store.hpp"
#include "rails/rail_sdk/lightning/bolt11.hpp"

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

// A new node key as 64 hex digits: 32 random bytes that are a valid secp256k1 secret key.
std::string new_node_key_hex() {
    lightning::bytes32 key{};
    do {
        if (RAND_bytes(key.data(), static_cast<int>(key.size())) != 1)
            throw std::runtime_error("no randomness for a new Lightning node key");
    } while (!lightning::node_public_key(key));
    static constexpr char digits[] = "0123456789abcdef";
    std::string hex;
    for (auto byte : key) {
        hex.push_back(digits[byte >> 4]);
        hex.push_back(digits[byte & 15]);
    }
    return hex;
}

// Creates the key file unless it exists; O_EXCL: of processes starting together one writes it and
// the others read that one. Returns whether this call created it.
bool create_key_file(const std::filesystem::path& file) {
    std::error_code error;
    if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), error);
    int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) return false;
    if (fd < 0) {
        throw std::runtime_error("plugins.settings.spark.node_private_key_file: " + file.string() +
                                 " cannot be created: " + std::strerror(errno));
    }
    std::string text = new_node_key_hex() + "\n";
    bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                   ::fsync(fd) == 0;
    ::close(fd);
    if (!written) {
        ::unlink(file.c_str());
        throw std::runtime_error("plugins.settings.spark.node_private_key_file: " + file.string() +
                                 " cannot be written");
    }
    return true;
}

}  // namespace

int routed_arrivals::receive(soci::session& session, const std::string& rail,
                             const std::vector<rail_incoming>& arrivals) {
    int recorded = 0;
    for (const auto& arrival : arrivals) recorded += route(session, {rail, arrival, 0});
    return recorded;
}

void routed_arrivals::retry(soci::session& session) {
    auto again = std::move(backlog_);
    backlog_.clear();
    for (auto& item : again) route(session, std::move(item));
}

void routed_arrivals::pass_finished(bool durable) {
    if (durable) {
        for (const auto& [warn, line] : log_lines_) {
            if (warn)
                spdlog::warn("{}", line);
            else
                spdlog::info("{}", line);
        }
    } else {
        backlog_.insert(backlog_.end(), in_pass_.begin(), in_pass_.end());
    }
    backlog_.insert(backlog_.end(), failed_.begin(), failed_.end());
    in_pass_.clear();
    failed_.clear();
    log_lines_.clear();
}

int routed_arrivals::route(soci::session& session, pending item) {
    if (routing_.router == nullptr) return 0;
    const rail_incoming& arrival = item.arrival;
    incoming_payment payment;
    payment.rail = item.rail;
    payment.rail_reference = arrival.rail_reference;
    payment.env = parse_environment(arrival.environment).value_or(environment::sandbox);
    payment.match_key = arrival.match_key;
    payment.reference = arrival.reference;
    payment.currency = arrival.currency;
    payment.amount_minor = arrival.amount_minor;
    payment.amount_milli_minor = arrival.amount_milli_minor;
    payment.received_at_ms = arrival.received_at_ms;
    payment.rail_message = arrival.message;
    std::optional<incoming_payment> stored;
    try {
        write_transaction own(session);  // a savepoint inside the pass
        stored = routing_.router->receive(session, routing_.services(), std::move(payment));
        own.commit();
    } catch (const std::exception& error) {
        item.failures += 1;
        if (item.failures < routing_attempts_max) {
            spdlog::warn("rail {}: incoming payment {} could not be routed ({}); trying again",
                         item.rail, arrival.rail_reference, error.what());
            failed_.push_back(std::move(item));
        } else {
            spdlog::error(
                "rail {}: incoming payment {} could not be routed {} times ({}); given up until "
                "the rail reports it again",
                item.rail, arrival.rail_reference, item.failures, error.what());
        }
        return 0;
    }
    in_pass_.push_back(std::move(item));
    if (!stored) return 0;  // recorded before
    // Unmatched and refused arrivals wait for the operator: they are warnings.
    log_lines_.emplace_back(
        stored->status != "CREDITED",
        fmt::format("rail {}: incoming payment {} of {} {} ({}) {}: {}{}", stored->rail,
                    stored->rail_reference, stored->amount_minor, stored->currency,
                    to_string(stored->env), stored->status, stored->outcome,
                    stored->routed_to.empty() ? "" : " [" + stored->routed_to + "]"));
    return 1;
}

// Runs `work` as one ledger-writer command and waits for it: true once its transaction is durable.
// An exception from `work` rolls the command back.
bool run_on_writer(session_executor& writer, std::function<void(soci::session&)> work) {
    class job final : public session_job {
    public:
        explicit job(std::function<void(soci::session&)> work) : work_(std::move(work)) {}
        bool run(soci::session& session) noexcept override {
            try {
                work_(session);
                return true;
            } catch (const std::exception& error) {
                spdlog::error("payment engine pass failed: {}", error.what());
                return false;
            }
        }
        void finish(job_outcome outcome) noexcept override {
            done_.set_value(outcome == job_outcome::committed);
        }
        std::future<bool> done() { return done_.get_future(); }

    private:
        std::function<void(soci::session&)> work_;
        std::promise<bool> done_;
    };
    auto submitted = std::make_unique<job>(std::move(work));
    auto done = submitted->done();
    writer.submit(std::move(submitted));
    return done.get();
}

rail_load_config rail_load_config_of(const service_config& config) {
    rail_load_config out;
    out.plugins_dirs = config.plugins_dirs;
    out.rails = config.plugins_rails;
    out.sha256_pins = config.plugins_sha256;
    out.settings_json = config.plugins_settings;
    for (const auto& name : config.plugins_rails) {
        json::object settings;
        auto found = out.settings_json.find(name);
        if (found != out.settings_json.end()) settings = json::parse(found->second).as_object();
        if (!settings.contains("data_dir"))
            settings["data_dir"] = (std::filesystem::path(config.rails_data_dir) / name).string();
        if (name == rail_registry::sandbox_rail_name && !settings.contains("timeout_ms"))
            settings["timeout_ms"] = config.sandbox_timeout_seconds * 1000;
        // The spark rail plays the sandbox patterns itself (it serves the sandbox): same timeout.
        if (name == "spark" && !settings.contains("sandbox_timeout_ms"))
            settings["sandbox_timeout_ms"] = config.sandbox_timeout_seconds * 1000;
        out.settings_json[name] = json::serialize(settings);
    }
    return out;
}

std::string prepare_spark_settings(service_config& config, const std::string& config_dir) {
    auto found = config.plugins_settings.find("spark");
    if (found == config.plugins_settings.end()) return "";
    boost::system::error_code parse_error;
    json::value parsed = json::parse(found->second, parse_error);
    if (parse_error || !parsed.is_object())
        throw std::runtime_error("plugins.settings.spark must be a JSON object");
    json::object& settings = parsed.as_object();
    for (const char* key : {"node_private_key_file", "sandbox_network_dir"}) {
        const json::value* value = settings.if_contains(key);
        if (value == nullptr || !value->is_string() || value->as_string().empty()) continue;
        std::filesystem::path path(std::string(value->as_string()));
        if (path.is_relative())
            settings[key] = (std::filesystem::path(config_dir) / path).lexically_normal().string();
    }
    std::string created;
    const json::value* file = settings.if_contains("node_private_key_file");
    const json::value* network = settings.if_contains("network");
    bool mainnet = network != nullptr && network->is_string() && network->as_string() == "mainnet";
    if (!settings.contains("node_private_key_hex") && file != nullptr && file->is_string() &&
        !file->as_string().empty() && !mainnet) {
        std::filesystem::path path(std::string(file->as_string()));
        if (!std::filesystem::exists(path) && create_key_file(path)) created = path.string();
    }
    found->second = json::serialize(settings);
    return created;
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

namespace {

rail_engine_services with_arrivals(rail_engine_services services, incoming_payment_handler* to) {
    services.incoming = to;
    return services;
}

}  // namespace

rail_node_lock::rail_node_lock(const std::string& data_dir, random_source& random) {
    namespace fs = std::filesystem;
    auto refuse = [&](const std::string& why) {
        throw rail_load_error("rails.data_dir " + data_dir + ": " + why);
    };
    std::error_code error;
    fs::create_directories(data_dir, error);
    if (error) refuse("cannot be made (" + error.message() + ")");
    std::string lock_path = (fs::path(data_dir) / "node.lock").string();
    fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) refuse("cannot open node.lock (" + std::string(std::strerror(errno)) + ")");
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd_);
        fd_ = -1;
        refuse(
            "another running corridor process uses this folder; give each process its own "
            "rails.data_dir");
    }
    fs::path id_path = fs::path(data_dir) / "node-id";
    std::ifstream in(id_path);
    std::getline(in, id_);
    if (!id_.empty()) return;
    // First start: a random id, written whole (temporary file, flushed, renamed) so that a crash
    // never leaves a torn one.
    std::array<std::uint8_t, 16> bytes{};
    random.fill(bytes);
    for (auto b : bytes) id_ += fmt::format("{:02x}", b);
    fs::path temporary = id_path;
    temporary += ".tmp";
    int out = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    std::string line = id_ + "\n";
    bool written = out >= 0 &&
                   ::write(out, line.data(), line.size()) == static_cast<ssize_t>(line.size()) &&
                   ::fsync(out) == 0;
    if (out >= 0) ::close(out);
    if (!written) refuse("cannot write node-id (" + std::string(std::strerror(errno)) + ")");
    fs::rename(temporary, id_path, error);
    if (error) refuse("cannot write node-id (" + error.message() + ")");
    int dir = ::open(data_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
}

rail_node_lock::~rail_node_lock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
}

rail_driver::rail_driver(rail_engine_services services, session_executor& writer,
                         std::int64_t interval_ms, incoming_routing incoming)
    : arrivals_(std::make_unique<routed_arrivals>(std::move(incoming))),
      engine_(with_arrivals(services, arrivals_.get())) {
    thread_ = std::thread([this, &writer, interval_ms] {
        while (!stopping()) {
            if (pass(writer)) continue;
            std::unique_lock lock(mutex_);
            wake_.wait_for(lock, std::chrono::milliseconds(interval_ms),
                           [this] { return stopping_; });
        }
        // What the rails last answered is recorded before the thread ends (the writer is still
        // running); if even that fails, the next start's retries bring it back.
        if (unrecorded_) {
            bool durable = run_on_writer(writer, [&](soci::session& s) {
                arrivals_->retry(s);
                engine_.record(s, *unrecorded_);
            });
            arrivals_->pass_finished(durable);
        }
    });
}

// One pass; true when it found work. One writer command per pass: it routes arrivals an earlier
// command did not commit, records what the rails answered in the pass before, and claims this
// pass's operations; the hooks run after it commits.
bool rail_driver::pass(session_executor& writer) {
    rail_claim claimed;
    int changed = 0;
    bool durable = run_on_writer(writer, [&](soci::session& s) {
        arrivals_->retry(s);
        if (unrecorded_) changed = engine_.record(s, *unrecorded_);
        claimed = engine_.claim(s);
    });
    arrivals_->pass_finished(durable);
    if (!durable) {
        if (unrecorded_)
            spdlog::error("payment engine: what the rails answered is recorded on the next pass");
        return false;
    }
    unrecorded_.reset();
    rail_answers answers = engine_.call(claimed);  // the rails' hooks, on this thread
    // Answers to record make the next pass come at once.
    if (!answers.empty()) unrecorded_ = std::move(answers);
    return changed > 0 || !claimed.empty() || claimed.closed > 0 || unrecorded_.has_value();
}

bool rail_driver::stopping() {
    std::lock_guard lock(mutex_);
    return stopping_;
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
