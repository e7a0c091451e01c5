#pragma once
// The server's side of rails: turning the configuration into what rails/ needs, sending plugin log
// lines to the server's log, the process's identity as a rail node, and running the payment
// engine: its claims and records on the ledger writer, the rails' hooks on a thread of its own.
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "ledger/payments/incoming_payments.hpp"
#include "ledger/base/random.hpp"
#include "ledger/store/session_job.hpp"
#include "rails/loader.hpp"
#include "rails/payment_engine.hpp"
#include "server/process/config.hpp"

namespace corridor {

// plugins.* as the loader takes it. Every rail gets data_dir, its own folder under rails.data_dir
// (rails.data_dir/<name>), and the sandbox rail timeout_ms, the spark rail sandbox_timeout_ms,
// from sandbox.timeout_seconds, unless its own settings name them.
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

// Completes plugins.settings.spark before anything reads it (the spark rail and the host's own
// invoice signing must use one node key): its node_private_key_file and sandbox_network_dir, when
// relative, become paths relative to config_dir (the configuration file's folder); a
// node_private_key_file that does not exist yet is created with a new random key (mode 0600) unless
// the network is mainnet, whose key is never made up. Returns the key file it created, or "".
// Throws std::runtime_error naming the setting when the settings are not an object or the file
// cannot be made.
std::string prepare_spark_settings(service_config& config, const std::string& config_dir);

// Prometheus text: calls into each rail's hooks, those that did not return OK, and their time.
std::string rail_metrics(const rail_registry& rails);

// External accounts for the payment engine, read from the external-account store.
std::unique_ptr<external_account_directory> make_external_account_directory();

// Plugin log lines into spdlog, tagged with the rail's name.
rail_log_sink& spdlog_rail_log();

// Where money that rails report arriving goes: the router records and routes it with the payment
// services of the moment (quote funding needs rates and payouts).
struct incoming_routing {
    const incoming_payment_router* router = nullptr;  // null: arrivals are dropped
    std::function<payment_services()> services;
};

// The payment engine's incoming handler: each arrival goes to the router inside the engine's pass,
// in a savepoint of its own, so that one arrival that cannot be routed does not stop the engine.
// What a pass received is logged once the pass is durable, or routed again by the next pass when
// the pass was rolled back (a rail reports each arrival only once per run); an arrival whose own
// routing fails is tried again by the next passes, and given up (logged as an error; the rail
// reports it again when it restarts) after routing_attempts_max failures. Used on one thread at a
// time (the ledger writer's).
class routed_arrivals final : public incoming_payment_handler {
public:
    static constexpr int routing_attempts_max = 10;

    explicit routed_arrivals(incoming_routing routing) : routing_(std::move(routing)) {}
    int receive(soci::session& session, const std::string& rail,
                const std::vector<rail_incoming>& arrivals) override;
    // At the start of a pass: routes what earlier passes received but did not commit.
    void retry(soci::session& session);
    // After the pass: durable, its arrivals are logged; otherwise they wait for the next pass.
    void pass_finished(bool durable);
    std::size_t waiting() const { return backlog_.size(); }

private:
    struct pending {
        std::string rail;
        rail_incoming arrival;
        int failures = 0;
    };
    int route(soci::session& session, pending item);

    incoming_routing routing_;
    std::vector<pending> in_pass_, failed_, backlog_;
    std::vector<std::pair<bool, std::string>> log_lines_;  // (warn, text), emitted once durable
};

// Runs payment engine passes, one at a time, on a thread of its own. Each pass is one ledger
// writer command, which routes arrivals an earlier command did not commit, records what the rails
// answered in the pass before and claims this pass's operations; then the rails' hooks run on this
// thread, outside any transaction (so a slow plugin delays only rail work, never the writer). The
// next pass starts right after one that found work or has answers to record (so a backlog drains
// at the writer's pace), otherwise after rails.drive_interval_ms. Answers whose command did not
// commit are recorded by the next one.
class rail_driver {
public:
    rail_driver(rail_engine_services services, session_executor& writer, std::int64_t interval_ms,
                incoming_routing incoming = {});
    ~rail_driver();
    void stop();

private:
    bool pass(session_executor& writer);
    bool stopping();

    std::unique_ptr<routed_arrivals> arrivals_;  // before engine_, which points at it
    payment_engine engine_;
    std::optional<rail_answers> unrecorded_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace corridor
