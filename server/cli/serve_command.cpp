// `corridor serve`: start-up in the order each step needs (configuration, reference data, schema,
// keys at rest, rails), then the listeners and background workers until SIGTERM, then the drain.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <boost/program_options.hpp>
#include <csignal>
#include <iostream>
#include <optional>

#include "ledger/payments/uma_incoming_sink.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/ledger_writer.hpp"
#include "ledger/store/outbox.hpp"
#include "server/api/app.hpp"
#include "server/cli/cli_internal.hpp"
#include "server/http/db_pool.hpp"
#include "server/http/outbound_client.hpp"
#include "server/http/server.hpp"
#include "server/http/tls_context.hpp"
#include "server/process/build_info.hpp"
#include "server/process/config.hpp"
#include "server/process/file_modes.hpp"
#include "server/process/key_encryption.hpp"
#include "server/process/logging.hpp"
#include "server/process/metric_text.hpp"
#include "server/process/ops_metrics.hpp"
#include "server/process/reference_data.hpp"
#include "server/workers/bulk_import_runner.hpp"
#include "server/workers/delivery_connection.hpp"
#include "server/workers/delivery_worker.hpp"
#include "server/workers/outbox_notifications.hpp"
#include "server/workers/rail_funding_source.hpp"
#include "server/workers/rails_runtime.hpp"
#include "server/workers/uma_post_transaction_worker.hpp"
#include "server/workers/upkeep.hpp"

namespace corridor {
namespace po = boost::program_options;
namespace json = boost::json;

namespace {

void setup_logging(const service_config& config) {
    install_json_logging(config.log_level, config.log_file);
}

// The start-up line: what runs, from where, on what, listening where.
void log_started(const service_config& config, const std::string& config_file,
                 const rail_registry& rails, const std::string& public_url,
                 const std::string& admin_url) {
    json::array rail_list;
    for (const auto& rail : rails.all()) {
        rail_list.push_back(json::object{{"name", rail->name()}, {"version", rail->version()}});
    }
    json::object listeners{{"public", public_url}};
    listeners["admin"] = admin_url.empty() ? json::value(nullptr) : json::value(admin_url);
    const auto& build = this_build();
    json::object fields{
        {"version", build.version},
        {"revision", build.git_revision},
        {"config", config_file.empty() ? json::value(nullptr) : json::value(config_file)},
        {"database", database_url::parse(config.database)->redacted()},
        {"rails", std::move(rail_list)},
        {"listeners", std::move(listeners)},
        {"logFile", config.log_file.empty() ? json::value(nullptr) : json::value(config.log_file)},
        {"pid", static_cast<std::int64_t>(::getpid())}};
    log_info_fields("corridor started", json::serialize(fields));
}

// SIGHUP: reopen log.file (logrotate's postrotate or systemd's ExecReload), never stop.
void on_hangup() {
    const std::string& file = log_file_path();
    if (file.empty()) {
        spdlog::info("SIGHUP received: no log.file to reopen (logging to stderr)");
        return;
    }
    std::string failure = reopen_log_file();
    if (failure.empty()) {
        log_info_fields("SIGHUP received: log file reopened",
                        json::serialize(json::object{{"logFile", file}}));
    } else {
        spdlog::error(
            "SIGHUP received: cannot reopen log file {}: {}; still writing to the old one", file,
            failure);
    }
}

// Database backlogs are counted this often for the metrics (on a database thread).
constexpr std::int64_t database_gauges_interval_ms = 2000;

std::string writer_metrics(const ledger_writer& writer) {
    std::string out =
        "# HELP corridor_ledger_batch_size Commands per ledger writer transaction.\n"
        "# TYPE corridor_ledger_batch_size histogram\n";
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < ledger_writer::batch_size_buckets.size(); ++i) {
        cumulative += writer.batches_at_most(i);
        out += fmt::format("corridor_ledger_batch_size_bucket{{le=\"{}\"}} {}\n",
                           ledger_writer::batch_size_buckets[i], cumulative);
    }
    cumulative += writer.batches_at_most(ledger_writer::batch_size_buckets.size());
    out += fmt::format("corridor_ledger_batch_size_bucket{{le=\"+Inf\"}} {}\n", cumulative);
    out += fmt::format("corridor_ledger_batch_size_sum {}\n", writer.commands_total());
    out += fmt::format("corridor_ledger_batch_size_count {}\n", writer.batches_total());
    append_metric(out, "corridor_ledger_commands_retried_total", "counter",
                  "Commands run again after a deadlock or serialization conflict.",
                  writer.commands_retried());
    append_metric(out, "corridor_ledger_batch_conflict_reruns_total", "counter",
                  "Batches rolled back and run again because a command met a deadlock or "
                  "serialization conflict behind row locks its earlier commands held.",
                  writer.batch_conflict_reruns());
    append_metric(out, "corridor_ledger_optimistic_refusals_total", "counter",
                  "PostgreSQL batches whose optimistic first attempt met a refusal and ran again "
                  "command by command.",
                  writer.optimistic_refusals());
    append_metric(out, "corridor_ledger_round_trips_total", "counter",
                  "Database round trips of the ledger writer (statements, savepoint control, "
                  "flushes, commits).",
                  writer.round_trips_total());
    append_metric(out, "corridor_ledger_statements_total", "counter",
                  "SQL statements the ledger writer executed.", writer.statements_total());
    constexpr std::string_view lost = "corridor_ledger_lost_commits_total";
    append_metric_header(out, lost, "counter",
                         "Ledger batches whose COMMIT lost its database connection, by what the "
                         "marker lookup learnt.");
    append_sample(out, lost, "outcome", "committed", writer.outcomes_committed());
    append_sample(out, lost, "outcome", "not_committed", writer.outcomes_not_committed());
    append_sample(out, lost, "outcome", "unknown", writer.outcomes_unknown());
    append_metric(out, "corridor_ledger_queue_depth", "gauge",
                  "Commands waiting for the ledger writer.", writer.queue_depth());
    return out;
}

// The configuration as serve runs it: the file, then the command line's overrides. Refuses root
// without --allow-root. `migrate` tells whether start-up may apply pending migrations.
service_config serve_config(const std::vector<std::string>& args, bool& migrate) {
    auto options = common_options();
    options.add_options()("listen", po::value<std::string>(), "HOST:PORT")(
        "threads", po::value<int>(), "io threads")("no-migrate",
                                                   "refuse a database that needs migrations")(
        "admin-listen", po::value<std::string>(),
        "HOST:PORT of the admin listener (\"\" for none)")("allow-root",
                                                           "run even as root (uid 0)");
    auto values = parse(args, options);
    if (::geteuid() == 0 && !values.count("allow-root")) {
        throw std::runtime_error(
            "refusing to serve as root (uid 0): run Corridor as its own unprivileged user (the "
            "systemd unit does), or pass --allow-root to run as root anyway");
    }
    auto config = load_config(values);
    if (values.count("listen")) config.listen = values["listen"].as<std::string>();
    if (values.count("admin-listen")) {
        config.admin_listen = values["admin-listen"].as<std::string>();
        std::string host;
        std::uint16_t port = 0;
        if (!config.admin_listen.empty() && !split_host_port(config.admin_listen, host, port))
            throw usage_error("--admin-listen must be HOST:PORT, or \"\" for no admin listener");
    }
    if (values.count("threads")) {
        int threads = values["threads"].as<int>();
        if (threads < 0 || threads > 256) throw usage_error("--threads must be 0 to 256");
        config.threads = threads;
    }
    migrate = config.migrate_on_start && !values.count("no-migrate");
    return config;
}

void seal_keys_at_rest(const service_config& config) {
    auto session = open_session(*database_url::parse(config.database));
    auto keys = prepare_keys_at_rest(config, *session);
    if (keys.made_key)
        spdlog::info("made a new key-encryption key in {}: back it up",
                     config.key_encryption_key_file);
    if (keys.sealed > 0) spdlog::info("sealed {} private key(s) stored in clear", keys.sealed);
}

// Rails load now or never: a plugin that cannot load stops start-up with its file named.
void load_rails_into(app_services& services, const service_config& config) {
    services.rails = load_rails(rail_load_config_of(config), &spdlog_rail_log());
    services.external_accounts = make_external_account_directory();
    services.payouts = std::make_unique<rail_payout_gateway>(services.rail_payments(),
                                                             *services.external_accounts);
    services.funding_rails = std::make_unique<rail_funding_source>(services.rails);
    for (const auto& rail : services.rails.all()) {
        spdlog::info("rail {} {} loaded from {} (rail ABI {}.{})", rail->name(), rail->version(),
                     rail->file(), rail->abi_major(), rail->abi_minor());
    }
    // Each rail's own folder, made by its plugin at load (or by an earlier run).
    auto rail_settings = rail_load_config_of(config).settings_json;
    for (const auto& [name, settings] : rail_settings) {
        auto parsed = json::parse(settings);
        if (const auto* dir = parsed.as_object().if_contains("data_dir"); dir && dir->is_string())
            restrict_folder_tree(std::string(dir->as_string()));
    }
}

std::string db_pool_metrics(const db_pool& database) {
    return fmt::format(
        "# HELP corridor_db_pool_sessions_in_use Database pool sessions running a job.\n"
        "# TYPE corridor_db_pool_sessions_in_use gauge\ncorridor_db_pool_sessions_in_use {}\n"
        "# HELP corridor_db_pool_sessions Database pool sessions (database_threads).\n"
        "# TYPE corridor_db_pool_sessions gauge\ncorridor_db_pool_sessions {}\n"
        "# HELP corridor_db_pool_queue_depth Jobs waiting for a database pool session.\n"
        "# TYPE corridor_db_pool_queue_depth gauge\ncorridor_db_pool_queue_depth {}\n",
        database.sessions_in_use(), database.sessions_total(), database.queue_depth());
}

outbound_options webhook_outbound_options(const service_config& config) {
    outbound_options outbound_settings{config.webhooks.connect_timeout_ms,
                                       config.webhooks.response_timeout_ms,
                                       config.outbound_allow_private_addresses};
    // As many kept connections as deliveries under way: one endpoint takes them all.
    outbound_settings.idle_per_origin_max = static_cast<std::size_t>(config.webhooks.in_flight_max);
    return outbound_settings;
}

// The start-up line in the log, and the listening lines on stdout that scripts and the test
// harness read.
void announce_listeners(const service_config& config, const rail_registry& rails, bool tls,
                        std::uint16_t port, std::optional<std::uint16_t> admin_port) {
    std::string host = config.listen.substr(0, config.listen.rfind(':'));
    std::string public_url = fmt::format("{}://{}:{}", tls ? "https" : "http", host, port);
    std::string admin_url;
    if (admin_port) {
        admin_url =
            fmt::format("http://{}:{}",
                        config.admin_listen.substr(0, config.admin_listen.rfind(':')), *admin_port);
    }
    log_started(config, config.config_file, rails, public_url, admin_url);
    // Scripts and the test harness read these lines from stdout.
    std::cout << "corridor listening on " << public_url << std::endl;
    if (admin_port) std::cout << "corridor admin listening on " << admin_url << std::endl;
}

// Listeners, the ledger writer and the background workers, from start to a signal and through
// the drain. The objects are locals so that they stop in the reverse of the order they need
// each other; the explicit stops below set the order that matters for a clean drain.
int run_until_signal(const service_config& config, app_services& services,
                     std::shared_ptr<tls_context> tls, const rail_node_lock* rail_node) {
    api application(services);
    auto url = *database_url::parse(config.database);
    db_pool database(url, config.database_threads);
    ledger_writer writer(url, static_cast<std::size_t>(config.ledger_batch_commands_max),
                         static_cast<std::size_t>(config.ledger_queue_commands_max),
                         config.ledger_outcome_lookup_timeout_ms);
    services.stats->add_source([&writer] { return writer_metrics(writer); });
    services.stats->add_source([] { return build_metrics() + process_metrics(); });
    services.stats->add_source([&database] { return db_pool_metrics(database); });
    database_gauges backlogs(database, services.time, database_gauges_interval_ms);
    services.stats->add_source([&backlogs] { return backlogs.render(); });
    bulk_import_runner bulk_imports(services, url);
    services.wake_bulk_import = [&bulk_imports] { bulk_imports.wake(); };  // before any request
    services.stats->add_source([&services] { return rail_metrics(services.rails); });
    http_server server(application, database, writer, services.config, tls);
    api admin_application(services, api_surface::admin);
    std::optional<http_server> admin;
    if (!config.admin_listen.empty()) {
        admin.emplace(admin_application, database, writer, services.config, nullptr,
                      listener_role::admin);
    }
    outbound_client outbound(webhook_outbound_options(config));
    webhook_sender test_sender(outbound);
    services.webhooks = &test_sender;
    delivery_connection delivery_db(url);
    delivery_worker deliveries(services, writer, outbound, &delivery_db);
    services.stats->add_source([&deliveries] { return deliveries.metrics_text(); });
    auto port = server.start();
    std::optional<std::uint16_t> admin_port;
    if (admin) admin_port = admin->start();
    upkeep_loop upkeep(writer, services.time, services.config.quotes_sweep_interval_ms,
                       [&services](bool hourly, std::shared_ptr<upkeep_state> state) {
                           return make_upkeep_job(services, hourly, std::move(state));
                       });
    // Money rails report arriving (a paid invoice of our node) is recorded and routed here. Code
    // that issues invoices of its own registers a sink for their match keys before this point:
    // the UMA receiving side's invoices are signed with the same node key as the spark rail's.
    incoming_payment_router incoming;
    uma_incoming_sink uma_receipts;
    incoming.add_sink("uma", uma_receipts);
    auto rail_payments = services.rail_payments();
    if (rail_node) rail_payments.settings.node = rail_node->id();
    rail_driver rails(rail_payments, writer, config.rails_drive_interval_ms,
                      incoming_routing{&incoming, [&services] { return services.payments(); }});
    uma_post_transaction_worker uma_callbacks(services, url);
    deliveries.start();
    // Commits that record events wake delivery at once: this process's own through the outbox
    // listener, other processes' through PostgreSQL's NOTIFY. Polling stays as the safety net.
    set_outbox_listener([&deliveries] { deliveries.wake(); });
    std::optional<outbox_notification_listener> notifications;
    if (url.backend == database_backend::postgresql) {
        notifications.emplace(url.connect_string, [&deliveries] {
            deliveries.wake(delivery_worker::wake_source::notification);
        });
    }
    announce_listeners(config, services.rails, tls != nullptr, port, admin_port);
    int signal_number = server.wait_for_signal(on_hangup);
    spdlog::info("signal {} received: draining", signal_number);
    // Background work hands its jobs back now, while requests in flight finish: a drain that
    // waits on slow clients must not go on importing.
    bulk_imports.request_stop();
    server.drain();
    if (admin) admin->drain();
    if (notifications) notifications->stop();
    set_outbox_listener({});
    deliveries.stop(config.limits.shutdown_timeout_ms / 2);
    delivery_db.stop();
    outbound.stop();
    bulk_imports.stop();
    uma_callbacks.stop();
    rails.stop();
    upkeep.stop();
    backlogs.stop();
    writer.stop();
    database.stop();
    spdlog::info("stopped cleanly");
    return 0;
}

}  // namespace

int serve_command(const std::vector<std::string>& args) {
    // Until the listener's signal handler is installed, SIGHUP (a logrotate run during start-up)
    // must not end the process either.
    std::signal(SIGHUP, SIG_IGN);
    bool migrate = true;
    auto config = serve_config(args, migrate);
    setup_logging(config);
    // The spark rail and the host's own invoices must sign with one node key: settle its settings
    // before either reads them.
    if (auto created = prepare_spark_settings(config, config_dir_of(config)); !created.empty())
        spdlog::info("made a new Lightning node key in {}", created);
    auto tls = load_tls_context(config.tls);  // a bad certificate or key stops start-up here
    auto currencies = load_currencies(config);
    auto uma_providers = load_uma_providers(config, currencies);
    for (const auto& warning : reference_data_warnings(config)) spdlog::warn("{}", warning);
    prepare_schema_for_serve(config, migrate);
    seal_keys_at_rest(config);
    restrict_state_files(config);
    system_clock wall;
    os_random random;
    id_generator ids(wall, random);
    app_services services(config, wall, random, ids, std::move(currencies),
                          production_rates(config, wall), production_funding(config));
    services.sandbox_rates = sandbox_rates(config, wall);
    services.sandbox_funding = sandbox_funding(config);
    services.uma_providers = std::move(uma_providers);
    // The rails' state folder belongs to one process: a second one on it stops here.
    std::optional<rail_node_lock> rail_node;
    if (!config.plugins_rails.empty()) rail_node.emplace(config.rails_data_dir, random);
    load_rails_into(services, config);
    return run_until_signal(config, services, std::move(tls), rail_node ? &*rail_node : nullptr);
}

}  // namespace corridor
