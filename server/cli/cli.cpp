#include "server/cli/cli.hpp"

#include <boost/json.hpp>
#include <boost/program_options.hpp>

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
#include "ledger/store/migrations.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/book/rates.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/platforms/token_store.hpp"
#include "ledger/base/uma_address.hpp"
#include "ledger/base/time_format.hpp"
#include "ledger/webhooks/webhook_deliveries.hpp"
#include "ledger/platforms/webhook_keys.hpp"
#include "server/api/app.hpp"
#include "server/api/auth.hpp"
#include "server/cli/backup_commands.hpp"
#include "server/cli/cli_internal.hpp"
#include "server/process/config.hpp"
#include "server/process/file_modes.hpp"
#include "server/process/logging.hpp"
#include "server/process/key_encryption.hpp"
#include "uma/sql_stores.hpp"
#include "server/process/reference_data.hpp"
#include "server/cli/plugins_check.hpp"
#include "server/workers/rails_runtime.hpp"

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
    if (command == "serve") return serve_command(rest);
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
