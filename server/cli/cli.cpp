#include "server/cli/cli.hpp"

#include <boost/json.hpp>
#include <boost/program_options.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <condition_variable>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>

#include "ledger/payments/approvals.hpp"
#include "ledger/payments/uma_receipts.hpp"
#include "ledger/book/currencies.hpp"
#include "ledger/store/database.hpp"
#include "ledger/customers/external_account_store.hpp"
#include "ledger/store/idempotency.hpp"
#include "ledger/customers/kyc.hpp"
#include "ledger/store/ledger_writer.hpp"
#include "ledger/store/migrations.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/book/rates.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/platforms/token_store.hpp"
#include "ledger/payments/uma_incoming_sink.hpp"
#include "ledger/base/uma_address.hpp"
#include "ledger/base/time_format.hpp"
#include "ledger/webhooks/webhook_deliveries.hpp"
#include "ledger/platforms/webhook_keys.hpp"
#include "server/api/app.hpp"
#include "server/api/auth.hpp"
#include "server/process/build_info.hpp"
#include "server/workers/bulk_import_runner.hpp"
#include "server/cli/backup_commands.hpp"
#include "server/cli/cli_internal.hpp"
#include "server/process/config.hpp"
#include "server/process/file_modes.hpp"
#include "server/process/logging.hpp"
#include "server/process/ops_metrics.hpp"
#include "server/http/db_pool.hpp"
#include "server/http/outbound_client.hpp"
#include "server/http/server.hpp"
#include "server/http/tls_context.hpp"
#include "server/process/key_encryption.hpp"
#include "server/workers/uma_post_transaction_worker.hpp"
#include "server/workers/delivery_worker.hpp"
#include "server/workers/outbox_notifications.hpp"
#include "ledger/store/outbox.hpp"
#include "uma/sql_stores.hpp"
#include "server/workers/rail_funding_source.hpp"
#include "server/process/reference_data.hpp"
#include "server/cli/plugins_check.hpp"
#include "server/workers/rails_runtime.hpp"
#include "server/workers/upkeep.hpp"

namespace corridor {
namespace po = boost::program_options;
namespace json = boost::json;

constexpr const char* usage_text = R"(usage:
  corridor serve    [--config FILE] [--listen HOST:PORT] [--database URL] [--threads N] [--no-migrate]
                    [--admin-listen HOST:PORT] [--allow-root]
  corridor migrate  [--config FILE] [--database URL] [--status | --dry-run] [--json]
  corridor --version | version [--json]
  corridor platform create --name NAME --uma-domain DOMAIN [--regulated] [--json]
  corridor token create --platform ID --environment sandbox|production --name NAME
                        --permissions VIEW,TRANSACT,MANAGE [--json]
  corridor webhook-key show   --platform ID --environment sandbox|production [--next]
  corridor webhook-key rotate --platform ID --environment sandbox|production
                              [--next [--at RFC3339-TIME] | --activate]
  corridor uma-key show   --platform ID [--environment sandbox|production] [--next]
  corridor uma-key rotate --platform ID [--environment sandbox|production]
                          [--next [--at RFC3339-TIME] | --activate]
  corridor plugins list [--json]          (loaded rails, versions, ABI)
  corridor plugins check FILE [--settings JSON|FILE] [--account JSON]   (conformance kit for one rail)
  corridor platform list [--json]
  corridor token list --platform ID [--json] ;  corridor token revoke ID [--json]
  corridor payment show ID [--json]
  corridor rails operations [--stuck] [--limit N] [--json]
  corridor webhooks backlog [--platform ID] [--json]
  corridor kyc approve|reject --customer ID [--reason TEXT] [--json]
  corridor user create --platform ID --email EMAIL --role admin|developer|viewer
                       [--password-file F] [--json]   (without a password file: a setup link)
  corridor user list --platform ID [--json] ;  corridor user disable ID [--json]
  corridor audit [--json]                 (rebuilds every balance from the postings)
  corridor backup --to DIR ;  corridor restore --from DIR [--force]
Every command takes --config FILE (default conf/corridor.json when present) and --database URL
(sqlite:PATH or postgresql://...).
)";

po::options_description common_options() {
    po::options_description options;
    options.add_options()("config", po::value<std::string>(), "configuration file")(
        "database", po::value<std::string>(), "database URL")("help", "show usage");
    return options;
}

po::variables_map parse(const std::vector<std::string>& args, const po::options_description& options) {
    po::variables_map values;
    try {
        po::store(po::command_line_parser(args).options(options).run(), values);
        po::notify(values);
    } catch (const po::error& error) {
        throw usage_error(error.what());
    }
    if (values.count("help")) {
        std::cout << usage_text;
        std::exit(0);
    }
    return values;
}

// --config, else ./conf/corridor.json, else /etc/corridor/corridor.json: never a database made
// silently in whatever folder the command ran in. The database URL may come from the environment
// (CORRIDOR_DATABASE), so that a password stays out of argv and the file; --database wins.
key_rotation_action key_rotation_action_of(const std::string& command, const std::string& action,
                                           const po::variables_map& values) {
    bool next = values.count("next") > 0, at = values.count("at") > 0,
         activate = values.count("activate") > 0;
    if (action == "show") {
        if (at || activate) throw usage_error("--at and --activate belong to " + command + " rotate");
        return next ? key_rotation_action::show_next : key_rotation_action::show;
    }
    if (next && activate) {
        throw usage_error("--next stages the next key and --activate switches to it: give one of them");
    }
    if (at && !next) throw usage_error("--at needs --next (the time the next key takes over)");
    if (activate) return key_rotation_action::activate_next;
    return next ? key_rotation_action::stage_next : key_rotation_action::rotate_now;
}

std::optional<std::int64_t> staged_switch_time_of(const std::string& command,
                                                  const po::variables_map& values,
                                                  std::int64_t now_ms) {
    if (!values.count("at")) return std::nullopt;
    const auto& text = values["at"].as<std::string>();
    auto at_ms = parse_timestamp_ms(text);
    if (!at_ms || text.size() <= 10) {
        throw usage_error("--at must be an RFC 3339 time such as 2026-01-31T09:00:00Z, not '" +
                          text + "'");
    }
    if (*at_ms <= now_ms) {
        throw usage_error("--at " + text + " is not in the future; to switch now use " + command +
                          " rotate --activate");
    }
    return at_ms;
}

service_config load_config(const po::variables_map& values) {
    std::optional<std::string> file;
    if (values.count("config")) file = values["config"].as<std::string>();
    else file = find_default_config_file();
    if (!file) {
        throw usage_error("no configuration file: give --config FILE, or create ./conf/corridor.json or "
                          "/etc/corridor/corridor.json");
    }
    service_config config = service_config::load_file(*file);
    auto override_database = [&config](const std::string& url, const std::string& where) {
        if (!database_url::parse(url)) throw usage_error(where + " must be sqlite:PATH or postgresql://...");
        config.database = url;
    };
    if (const char* url = std::getenv("CORRIDOR_DATABASE"); url != nullptr && *url != 0) {
        override_database(url, "CORRIDOR_DATABASE");
    }
    if (values.count("database")) override_database(values["database"].as<std::string>(), "--database");
    return config;
}

// The folder relative paths of the configuration are resolved against (as load_config reads it).
std::string config_dir_of(const service_config& config) {
    return std::filesystem::path(config.config_file).parent_path().string();
}

session_ptr open_migrated(const service_config& config) {
    auto url = database_url::parse(config.database);
    auto session = open_session(*url);
    apply_migrations(*session);
    restrict_database_files(config.database);  // an older version made them 0644
    return session;
}

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
    std::string out = "# HELP corridor_ledger_batch_size Commands per ledger writer transaction.\n"
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
    out += "# HELP corridor_ledger_commands_retried_total Commands run again after a deadlock or "
           "serialization conflict.\n# TYPE corridor_ledger_commands_retried_total counter\n";
    out += fmt::format("corridor_ledger_commands_retried_total {}\n", writer.commands_retried());
    out +=
        "# HELP corridor_ledger_round_trips_total Database round trips of the ledger writer "
        "(statements, savepoint control, flushes, commits).\n"
        "# TYPE corridor_ledger_round_trips_total counter\n";
    out += fmt::format("corridor_ledger_round_trips_total {}\n", writer.round_trips_total());
    out +=
        "# HELP corridor_ledger_statements_total SQL statements the ledger writer executed.\n"
        "# TYPE corridor_ledger_statements_total counter\n";
    out += fmt::format("corridor_ledger_statements_total {}\n", writer.statements_total());
    out +=
        "# HELP corridor_ledger_lost_commits_total Ledger batches whose COMMIT lost its database "
        "connection, by what the marker lookup learnt.\n"
        "# TYPE corridor_ledger_lost_commits_total counter\n";
    out += fmt::format("corridor_ledger_lost_commits_total{{outcome=\"committed\"}} {}\n",
                       writer.outcomes_committed());
    out += fmt::format("corridor_ledger_lost_commits_total{{outcome=\"not_committed\"}} {}\n",
                       writer.outcomes_not_committed());
    out += fmt::format("corridor_ledger_lost_commits_total{{outcome=\"unknown\"}} {}\n",
                       writer.outcomes_unknown());
    out += "# HELP corridor_ledger_queue_depth Commands waiting for the ledger writer.\n"
           "# TYPE corridor_ledger_queue_depth gauge\n";
    out += fmt::format("corridor_ledger_queue_depth {}\n", writer.queue_depth());
    return out;
}

int serve(const std::vector<std::string>& args) {
    // Until the listener's signal handler is installed, SIGHUP (a logrotate run during start-up)
    // must not end the process either.
    std::signal(SIGHUP, SIG_IGN);
    auto options = common_options();
    options.add_options()("listen", po::value<std::string>(), "HOST:PORT")(
        "threads", po::value<int>(), "io threads")(
        "no-migrate", "refuse a database that needs migrations")(
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
    setup_logging(config);
    // The spark rail and the host's own invoices must sign with one node key: settle its settings
    // before either reads them.
    if (auto created = prepare_spark_settings(config, config_dir_of(config)); !created.empty())
        spdlog::info("made a new Lightning node key in {}", created);
    auto tls = load_tls_context(config.tls);  // a bad certificate or key stops start-up here
    auto currencies = load_currencies(config);
    auto uma_providers = load_uma_providers(config, currencies);
    for (const auto& warning : reference_data_warnings(config)) spdlog::warn("{}", warning);
    prepare_schema_for_serve(config, config.migrate_on_start && !values.count("no-migrate"));
    {
        auto session = open_session(*database_url::parse(config.database));
        auto keys = prepare_keys_at_rest(config, *session);
        if (keys.made_key)
            spdlog::info("made a new key-encryption key in {}: back it up",
                         config.key_encryption_key_file);
        if (keys.sealed > 0) spdlog::info("sealed {} private key(s) stored in clear", keys.sealed);
    }
    restrict_state_files(config);
    system_clock wall;
    os_random random;
    id_generator ids(wall, random);
    app_services services(config, wall, random, ids, std::move(currencies), production_rates(config, wall),
                          production_funding(config));
    services.sandbox_rates = sandbox_rates(config, wall);
    services.sandbox_funding = sandbox_funding(config);
    // Rails load now or never: a plugin that cannot load stops start-up with its file named.
    services.uma_providers = std::move(uma_providers);
    // The rails' state folder belongs to one process: a second one on it stops here.
    std::optional<rail_node_lock> rail_node;
    if (!config.plugins_rails.empty()) rail_node.emplace(config.rails_data_dir, random);
    services.rails = load_rails(rail_load_config_of(config), &spdlog_rail_log());
    services.external_accounts = make_external_account_directory();
    services.payouts =
        std::make_unique<rail_payout_gateway>(services.rail_payments(), *services.external_accounts);
    services.funding_rails = std::make_unique<rail_funding_source>(services.rails);
    for (const auto& rail : services.rails.all()) {
        spdlog::info("rail {} {} loaded from {} (rail ABI {}.{})", rail->name(), rail->version(), rail->file(),
                     rail->abi_major(), rail->abi_minor());
    }
    // Each rail's own folder, made by its plugin at load (or by an earlier run).
    auto rail_settings = rail_load_config_of(config).settings_json;
    for (const auto& [name, settings] : rail_settings) {
        auto parsed = json::parse(settings);
        if (const auto* dir = parsed.as_object().if_contains("data_dir"); dir && dir->is_string())
            restrict_folder_tree(std::string(dir->as_string()));
    }
    api application(services);
    auto url = *database_url::parse(config.database);
    db_pool database(url, config.database_threads);
    ledger_writer writer(url, static_cast<std::size_t>(config.ledger_batch_commands_max),
                         static_cast<std::size_t>(config.ledger_queue_commands_max),
                         config.ledger_outcome_lookup_timeout_ms);
    services.stats->add_source([&writer] { return writer_metrics(writer); });
    services.stats->add_source([] { return build_metrics() + process_metrics(); });
    services.stats->add_source([&database] {
        return fmt::format(
            "# HELP corridor_db_pool_sessions_in_use Database pool sessions running a job.\n"
            "# TYPE corridor_db_pool_sessions_in_use gauge\ncorridor_db_pool_sessions_in_use {}\n"
            "# HELP corridor_db_pool_sessions Database pool sessions (database_threads).\n"
            "# TYPE corridor_db_pool_sessions gauge\ncorridor_db_pool_sessions {}\n"
            "# HELP corridor_db_pool_queue_depth Jobs waiting for a database pool session.\n"
            "# TYPE corridor_db_pool_queue_depth gauge\ncorridor_db_pool_queue_depth {}\n",
            database.sessions_in_use(), database.sessions_total(), database.queue_depth());
    });
    database_gauges backlogs(database, wall, database_gauges_interval_ms);
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
    outbound_options outbound_settings{config.webhooks.connect_timeout_ms,
                                       config.webhooks.response_timeout_ms,
                                       config.outbound_allow_private_addresses};
    // As many kept connections as deliveries under way: one endpoint takes them all.
    outbound_settings.idle_per_origin_max =
        static_cast<std::size_t>(config.webhooks.in_flight_max);
    outbound_client outbound(outbound_settings);
    webhook_sender test_sender(outbound);
    services.webhooks = &test_sender;
    delivery_worker deliveries(services, writer, outbound);
    services.stats->add_source([&deliveries] { return deliveries.metrics_text(); });
    auto port = server.start();
    std::uint16_t admin_port = admin ? admin->start() : 0;
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
    std::string host = config.listen.substr(0, config.listen.rfind(':'));
    std::string public_url = fmt::format("{}://{}:{}", tls ? "https" : "http", host, port);
    std::string admin_url;
    if (admin) {
        admin_url =
            fmt::format("http://{}:{}",
                        config.admin_listen.substr(0, config.admin_listen.rfind(':')), admin_port);
    }
    log_started(config, config.config_file, services.rails, public_url, admin_url);
    // Scripts and the test harness read these lines from stdout.
    std::cout << "corridor listening on " << public_url << std::endl;
    if (admin) std::cout << "corridor admin listening on " << admin_url << std::endl;
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

// Plugin log lines of `plugins list` go to stderr, so that a rail's own words (why its create
// failed) reach the operator without a server log.
struct stderr_rail_log final : rail_log_sink {
    void write(const std::string& rail, corridor_rail_log_level level, const std::string& message) override {
        static constexpr const char* levels[] = {"debug", "info", "warn", "error"};
        std::cerr << "rail " << rail << " [" << levels[level] << "]: " << message << std::endl;
    }
};

// corridor plugins list: loads the configured rails as serve would and describes them; a rail that
// cannot load is listed with its error (the loader's words and the plugin's own), and the command
// then exits 1.
int plugins_list(const std::vector<std::string>& args) {
    auto options = common_options();
    options.add_options()("json", "print JSON");
    auto values = parse(args, options);
    auto config = load_config(values);
    prepare_spark_settings(config, config_dir_of(config));  // as serve does
    stderr_rail_log log;
    auto attempts = load_each_rail(rail_load_config_of(config), &log);
    bool failed = false;
    for (const auto& attempt : attempts) failed = failed || !attempt.rail;
    // ABI 1.1 capabilities as words: what operators check before routing pulls.
    auto capabilities = [](const rail_instance& rail) {
        json::array out;
        if (rail.can(CORRIDOR_RAIL_PAYOUT)) out.emplace_back("PAYOUT");
        if (rail.can(CORRIDOR_RAIL_PULL)) out.emplace_back("PULL");
        if (rail.serves_sandbox()) out.emplace_back("SANDBOX");  // ABI 1.2: runs its own sandbox
        return out;
    };
    std::string dirs;
    for (const auto& dir : config.plugins_dirs) dirs += (dirs.empty() ? "" : ", ") + dir;
    if (values.count("json")) {
        json::array out;
        for (const auto& attempt : attempts) {
            if (!attempt.rail) {
                out.push_back(json::object{{"name", attempt.name}, {"file", attempt.file}, {"error", attempt.error}});
                continue;
            }
            const auto& rail = attempt.rail;
            json::array types;
            for (const auto& type : rail->account_types()) types.emplace_back(type);
            out.push_back(json::object{{"name", rail->name()},
                                       {"version", rail->version()},
                                       {"abi", fmt::format("{}.{}", rail->abi_major(), rail->abi_minor())},
                                       {"file", rail->file()},
                                       {"accountTypes", types},
                                       {"capabilities", capabilities(*rail)}});
        }
        std::cout << json::serialize(json::object{{"hostAbi", fmt::format("{}.{}", CORRIDOR_RAIL_ABI_MAJOR,
                                                                              CORRIDOR_RAIL_ABI_MINOR)},
                                                  {"rails", out}})
                  << std::endl;
        return failed ? 1 : 0;
    }
    std::cout << fmt::format("rail ABI {}.{}; plugins from {}\n", CORRIDOR_RAIL_ABI_MAJOR,
                             CORRIDOR_RAIL_ABI_MINOR, dirs);
    if (attempts.empty()) std::cout << "no rails configured (plugins.rails is empty)\n";
    for (const auto& attempt : attempts) {
        if (!attempt.rail) {
            std::cout << fmt::format("{:<12} NOT LOADED  {}\n  error: {}\n", attempt.name, attempt.file,
                                     attempt.error);
            continue;
        }
        const auto& rail = attempt.rail;
        std::string types;
        for (const auto& type : rail->account_types()) types += (types.empty() ? "" : ",") + type;
        std::string can;
        for (const auto& word : capabilities(*rail)) can += (can.empty() ? "" : ",") + std::string(word.as_string());
        std::cout << fmt::format("{:<12} {:<10} ABI {}.{}  {}\n  account types: {}\n  can: {}\n",
                                 rail->name(), rail->version(), rail->abi_major(), rail->abi_minor(),
                                 rail->file(), types, can);
    }
    std::cout << std::flush;
    return failed ? 1 : 0;
}

std::vector<supported_currency> default_currencies(const service_config& config) {
    auto registry = load_currencies(config);
    std::vector<supported_currency> out;
    for (const auto& code : config.platform_default_currencies) {
        const currency* known = registry.find(code);
        if (!known) throw std::runtime_error("platform_defaults.supported_currencies: unknown currency " + code);
        // Up to ten million whole units per transfer by default; platforms narrow it with PATCH /config.
        std::int64_t max_amount = 10'000'000;
        for (int i = 0; i < known->decimals && max_amount < 9'000'000'000'000'000 / 10; ++i) max_amount *= 10;
        out.push_back({code, 1, max_amount, {"OUTGOING", "INCOMING"}, {}});
    }
    return out;
}

json::object credentials_json(const created_token& created) {
    return json::object{{"tokenId", created.token.id},
                        {"clientId", created.token.client_id},
                        {"clientSecret", created.client_secret}};
}

int platform_create(const std::vector<std::string>& args) {
    auto options = common_options();
    options.add_options()("name", po::value<std::string>(), "platform name")(
        "uma-domain", po::value<std::string>(), "UMA domain")("regulated", "regulated institution")(
        "json", "print JSON");
    auto values = parse(args, options);
    if (!values.count("name") || values["name"].as<std::string>().empty()) throw usage_error("--name is required");
    if (!values.count("uma-domain")) throw usage_error("--uma-domain is required");
    auto domain = normalize_uma_domain(values["uma-domain"].as<std::string>());
    if (!domain) throw usage_error("--uma-domain must be a DNS name or an IP literal, optionally with :port");
    auto config = load_config(values);
    auto session = open_migrated(config);
    prepare_keys_at_rest(config, *session);
    system_clock wall;
    os_random random;
    id_generator ids(wall, random);
    new_platform request{values["name"].as<std::string>(), *domain, values.count("regulated") > 0,
                         default_currencies(config)};
    auto created = create_platform(*session, platform_services{ids, random, wall}, request);
    if (!created) throw std::runtime_error("UMA domain " + *domain + " is already used by another platform");
    const std::string& platform_id = created.value();
    auto sandbox = create_token(*session, ids, random, wall, tenant{platform_id, environment::sandbox},
                                "operator (sandbox)", permissions_all);
    auto production = create_token(*session, ids, random, wall,
                                   tenant{platform_id, environment::production},
                                   "operator (production)", permissions_all);
    if (values.count("json")) {
        std::cout << json::serialize(json::object{{"platformId", platform_id},
                                                  {"sandbox", credentials_json(sandbox)},
                                                  {"production", credentials_json(production)}})
                  << std::endl;
    } else {
        std::cout << "platform " << platform_id << " (UMA domain " << *domain << ")\n"
                  << "sandbox    clientId " << sandbox.token.client_id << "  clientSecret "
                  << sandbox.client_secret << "\n"
                  << "production clientId " << production.token.client_id << "  clientSecret "
                  << production.client_secret << "\n"
                  << "The secrets are shown once; store them now." << std::endl;
    }
    return 0;
}

unsigned parse_permissions(const std::string& text) {
    unsigned permissions = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
        auto end = text.find(',', start);
        if (end == std::string::npos) end = text.size();
        auto name = text.substr(start, end - start);
        if (name == "VIEW") permissions |= permission_view;
        else if (name == "TRANSACT") permissions |= permission_transact;
        else if (name == "MANAGE") permissions |= permission_manage;
        else throw usage_error("--permissions takes VIEW, TRANSACT and MANAGE, comma-separated");
        start = end + 1;
    }
    return permissions;
}

int token_create(const std::vector<std::string>& args) {
    auto options = common_options();
    options.add_options()("platform", po::value<std::string>(), "platform id")(
        "environment", po::value<std::string>(), "sandbox or production")(
        "name", po::value<std::string>(), "token name")("permissions", po::value<std::string>(),
                                                        "VIEW,TRANSACT,MANAGE")("json", "print JSON");
    auto values = parse(args, options);
    for (auto required : {"platform", "environment", "name", "permissions"}) {
        if (!values.count(required)) throw usage_error(std::string("--") + required + " is required");
    }
    auto env = parse_environment(values["environment"].as<std::string>());
    if (!env) throw usage_error("--environment must be sandbox or production");
    unsigned permissions = parse_permissions(values["permissions"].as<std::string>());
    auto config = load_config(values);
    auto session = open_migrated(config);
    auto platform_id = values["platform"].as<std::string>();
    if (!platform_exists(*session, platform_id)) throw std::runtime_error("no platform " + platform_id);
    system_clock wall;
    os_random random;
    id_generator ids(wall, random);
    auto created = create_token(*session, ids, random, wall, tenant{platform_id, *env},
                                values["name"].as<std::string>(), permissions);
    if (values.count("json")) {
        auto body = credentials_json(created);
        body["platformId"] = platform_id;
        body["environment"] = to_string(*env);
        body["permissions"] = permission_names(permissions);
        std::cout << json::serialize(body) << std::endl;
    } else {
        std::cout << "token " << created.token.id << "\nclientId     " << created.token.client_id
                  << "\nclientSecret " << created.client_secret
                  << "\nThe secret is shown once; store it now." << std::endl;
    }
    return 0;
}

// webhook-key show|rotate: the public key of a platform environment's webhook signing key (made
// on first need for platforms older than signing keys). A plain rotate replaces the pair at once;
// --next publishes the next key ahead of the switch, which happens at --at or on --activate.
int webhook_key(const std::string& action, const std::vector<std::string>& args) {
    auto options = common_options();
    options.add_options()("platform", po::value<std::string>(), "platform id")(
        "environment", po::value<std::string>(), "sandbox or production")(
        "next", "the next key (show), or stage one (rotate)")(
        "at", po::value<std::string>(), "when the next key takes over (RFC 3339)")(
        "activate", "make the staged next key current");
    auto values = parse(args, options);
    for (auto required : {"platform", "environment"}) {
        if (!values.count(required)) throw usage_error(std::string("--") + required + " is required");
    }
    auto env = parse_environment(values["environment"].as<std::string>());
    if (!env) throw usage_error("--environment must be sandbox or production");
    auto what = key_rotation_action_of("webhook-key", action, values);
    system_clock wall;
    auto activate_at_ms = staged_switch_time_of("webhook-key", values, wall.now_ms());
    auto config = load_config(values);
    auto session = open_migrated(config);
    prepare_keys_at_rest(config, *session);
    auto platform_id = values["platform"].as<std::string>();
    if (!platform_exists(*session, platform_id)) throw std::runtime_error("no platform " + platform_id);
    tenant owner{platform_id, *env};
    std::string no_next = "no next webhook key is staged for " + platform_id + " (" +
                          std::string(to_string(*env)) +
                          "); stage one with webhook-key rotate --next";
    write_transaction transaction(*session);
    std::string pem;
    switch (what) {
        case key_rotation_action::show:
            pem = ensure_webhook_key(*session, wall, owner).public_key_pem;
            break;
        case key_rotation_action::rotate_now:
            pem = rotate_webhook_key(*session, wall, owner).public_key_pem;
            break;
        case key_rotation_action::show_next: {
            auto next = find_next_webhook_key(*session, wall, owner);
            if (!next) throw std::runtime_error(no_next);
            pem = next->public_key_pem;
            break;
        }
        case key_rotation_action::stage_next: {
            auto next = stage_next_webhook_key(*session, wall, owner, activate_at_ms);
            pem = next.public_key_pem;
            std::cerr << "The next key is published; the current key signs until "
                      << (activate_at_ms ? format_timestamp_ms(*activate_at_ms)
                                         : std::string("webhook-key rotate --activate"))
                      << "." << std::endl;
            break;
        }
        case key_rotation_action::activate_next: {
            auto current = activate_next_webhook_key(*session, wall, owner);
            if (!current) throw std::runtime_error(no_next);
            pem = current->public_key_pem;
            break;
        }
    }
    transaction.commit();
    std::cout << pem << std::flush;
    return 0;
}

int dispatch(const std::vector<std::string>& words) {
    if (words.empty()) throw usage_error("a command is required");
    const std::string& command = words[0];
    std::vector<std::string> rest(words.begin() + 1, words.end());
    if (command == "serve") return serve(rest);
    if (command == "migrate") return migrate_command(rest);
    if (command == "--version" || command == "version")
        return version_command(rest, command == "--version");
    if (command == "backup" || command == "restore")
        return backup_command(command, rest);
    if (auto done = run_operator_command(command, rest)) return *done;
    if (auto done = run_uma_key_command(command, rest)) return *done;
    if (auto done = run_user_command(command, rest)) return *done;
    if (command == "--help" || command == "help") {
        std::cout << usage_text;
        return 0;
    }
    if (command == "plugins" && !rest.empty() && rest[0] == "check") return plugins_check({rest.begin() + 1, rest.end()});
    if (command == "plugins" && !rest.empty() && rest[0] == "list") {
        return plugins_list(std::vector<std::string>(rest.begin() + 1, rest.end()));
    }
    if ((command == "platform" || command == "token") && !rest.empty() && rest[0] == "create") {
        std::vector<std::string> options(rest.begin() + 1, rest.end());
        return command == "platform" ? platform_create(options) : token_create(options);
    }
    if (command == "webhook-key" && !rest.empty() && (rest[0] == "show" || rest[0] == "rotate")) {
        return webhook_key(rest[0], std::vector<std::string>(rest.begin() + 1, rest.end()));
    }
    throw usage_error("unknown command: " + command);
}

}  // namespace

int run_cli(int argc, char** argv) {
    std::vector<std::string> words(argv + 1, argv + argc);
    // Whatever a command creates (the database, its WAL, keys, folders) is its user's alone.
    restrict_umask();
    try {
        install_json_logging("info");  // serve switches to the configured level and file
        return dispatch(words);
    } catch (const usage_error& error) {
        std::cerr << "corridor: " << error.what() << "\n\n" << usage_text;
        return 2;
    } catch (const std::exception& error) {
        std::cerr << "corridor: " << error.what() << std::endl;
        return 1;
    }
}

}  // namespace corridor
