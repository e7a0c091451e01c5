#include "server/process/config.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "ledger/store/database.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

std::string resolve(const std::string& base_dir, const std::string& path) {
    if (path.empty() || std::filesystem::path(path).is_absolute()) return path;
    return (std::filesystem::path(base_dir) / path).lexically_normal().string();
}

std::string fmt_percent(unsigned char c) {
    static constexpr char digits[] = "0123456789ABCDEF";
    return {'%', digits[c >> 4], digits[c & 15]};
}

[[noreturn]] void bad(const std::string& key, const std::string& expected) {
    throw config_error("configuration key \"" + key + "\" must be " + expected);
}

std::function<void(const json::value&)> text(const std::string& key, std::string& out) {
    return [key, &out](const json::value& v) {
        if (!v.is_string() || v.as_string().empty()) bad(key, "a non-empty string");
        out = std::string(v.as_string());
    };
}

// One folder (a string) or several (an array of strings, searched in order); none may be empty.
std::function<void(const json::value&)> folder_list(const std::string& key,
                                                    std::vector<std::string>& out) {
    return [key, &out](const json::value& v) {
        const char* expected = "a folder (a non-empty string) or a non-empty array of folders";
        out.clear();
        if (v.is_string() && !v.as_string().empty()) {
            out.emplace_back(v.as_string());
            return;
        }
        if (!v.is_array() || v.as_array().empty()) bad(key, expected);
        for (const auto& item : v.as_array()) {
            if (!item.is_string() || item.as_string().empty()) bad(key, expected);
            out.emplace_back(item.as_string());
        }
    };
}

// A string that may be empty (an optional file: empty means unset).
std::function<void(const json::value&)> text_or_empty(const std::string& key, std::string& out) {
    return [key, &out](const json::value& v) {
        if (!v.is_string()) bad(key, "a string");
        out = std::string(v.as_string());
    };
}

std::function<void(const json::value&)> boolean(const std::string& key, bool& out) {
    return [key, &out](const json::value& v) {
        if (!v.is_bool()) bad(key, "true or false");
        out = v.as_bool();
    };
}

template <class Int>
std::function<void(const json::value&)> integer(const std::string& key, Int& out, std::int64_t min,
                                                 std::int64_t max) {
    return [key, &out, min, max](const json::value& v) {
        if (!v.is_int64() && !v.is_uint64()) bad(key, "an integer");
        if (v.is_uint64() && v.as_uint64() > static_cast<std::uint64_t>(max)) {
            bad(key, "at most " + std::to_string(max));
        }
        std::int64_t value = v.is_int64() ? v.as_int64() : static_cast<std::int64_t>(v.as_uint64());
        if (value < min || value > max) {
            bad(key, "between " + std::to_string(min) + " and " + std::to_string(max));
        }
        out = static_cast<Int>(value);
    };
}

std::function<void(const json::value&)> text_list(const std::string& key,
                                                  std::vector<std::string>& out) {
    return [key, &out](const json::value& v) {
        if (!v.is_array()) bad(key, "an array of strings");
        out.clear();
        for (const auto& item : v.as_array()) {
            if (!item.is_string()) bad(key, "an array of strings");
            out.emplace_back(item.as_string());
        }
    };
}

// An object of rail name -> lowercase hex SHA-256.
std::function<void(const json::value&)> pin_map(const std::string& key,
                                                std::map<std::string, std::string>& out) {
    return [key, &out](const json::value& v) {
        if (!v.is_object()) bad(key, "an object of rail name to SHA-256 (64 lowercase hex digits)");
        out.clear();
        for (const auto& [name, pin] : v.as_object()) {
            bool hex = pin.is_string() && pin.as_string().size() == 64;
            if (hex) {
                for (char c : pin.as_string()) hex = hex && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
            }
            if (!hex) bad(key + "." + std::string(name), "a SHA-256 of 64 lowercase hex digits");
            out[std::string(name)] = std::string(pin.as_string());
        }
    };
}

// An object of rail name -> that rail's settings object, kept as JSON text for the plugin.
std::function<void(const json::value&)> settings_map(const std::string& key,
                                                     std::map<std::string, std::string>& out) {
    return [key, &out](const json::value& v) {
        if (!v.is_object()) bad(key, "an object of rail name to settings object");
        out.clear();
        for (const auto& [name, settings] : v.as_object()) {
            if (!settings.is_object()) bad(key + "." + std::string(name), "an object");
            out[std::string(name)] = json::serialize(settings);
        }
    };
}

class reader {
public:
    explicit reader(const json::object& root) : root_(root) {}

    // Calls `apply` with the value at a dotted key when present; records every key it knows so
    // that the rest can be reported as unknown.
    void at(const std::string& dotted, const std::function<void(const json::value&)>& apply) {
        known_.insert(dotted);
        const json::value* value = find(dotted);
        if (value) apply(*value);
    }

    // Each reads the key into `out` when present, checking its type (and range).
    void text(const std::string& key, std::string& out) { at(key, corridor::text(key, out)); }
    void text_or_empty(const std::string& key, std::string& out) {
        at(key, corridor::text_or_empty(key, out));
    }
    void boolean(const std::string& key, bool& out) { at(key, corridor::boolean(key, out)); }
    template <class Int>
    void integer(const std::string& key, Int& out, std::int64_t min, std::int64_t max) {
        at(key, corridor::integer(key, out, min, max));
    }
    void text_list(const std::string& key, std::vector<std::string>& out) {
        at(key, corridor::text_list(key, out));
    }
    void folders(const std::string& key, std::vector<std::string>& out) {
        at(key, corridor::folder_list(key, out));
    }
    void pins(const std::string& key, std::map<std::string, std::string>& out) {
        at(key, corridor::pin_map(key, out));
    }
    void settings(const std::string& key, std::map<std::string, std::string>& out) {
        at(key, corridor::settings_map(key, out));
    }

    void check_unknown(const json::object& object, const std::string& prefix) const {
        for (const auto& [key, value] : object) {
            std::string dotted = prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
            bool is_section = false;
            for (const auto& known : known_) {
                if (known.starts_with(dotted + ".")) is_section = true;
            }
            if (is_section && value.is_object()) {
                check_unknown(value.as_object(), dotted);
            } else if (!known_.contains(dotted)) {
                throw config_error("unknown configuration key \"" + dotted + "\"");
            }
        }
    }

private:
    const json::value* find(const std::string& dotted) const {
        const json::object* object = &root_;
        std::size_t start = 0;
        while (true) {
            auto dot = dotted.find('.', start);
            std::string part = dotted.substr(start, dot == std::string::npos ? dot : dot - start);
            const json::value* value = object->if_contains(part);
            if (!value) return nullptr;
            if (dot == std::string::npos) return value;
            if (!value->is_object()) {
                throw config_error("configuration key \"" + dotted.substr(0, dot) +
                                   "\" must be an object");
            }
            object = &value->as_object();
            start = dot + 1;
        }
    }

    const json::object& root_;
    std::set<std::string> known_;
};

// The state folder: the key (relative to the file's folder), else the folder systemd made for the
// unit (StateDirectory= sets STATE_DIRECTORY, colon-separated when it names several), else the
// configuration file's own folder.
std::string state_dir_of(const std::string& base_dir, const std::string& key) {
    if (!key.empty()) return resolve(base_dir, key);
    if (const char* systemd = std::getenv("STATE_DIRECTORY"); systemd != nullptr && *systemd != 0) {
        std::string first(systemd);
        return first.substr(0, first.find(':'));
    }
    return base_dir;
}

// A PostgreSQL URL with the password of `password_file` put in, so the password lives in a file
// only its owner reads rather than in the configuration or in argv.
std::string with_password(const std::string& url, const std::string& password_file) {
    const std::string key = "database_password_file";
    if (!url.starts_with("postgresql://") && !url.starts_with("postgres://")) {
        bad(key, "used with a postgresql:// database");
    }
    std::ifstream in(password_file);
    if (!in) throw config_error("cannot read " + key + " " + password_file);
    std::string password;
    std::getline(in, password);
    if (password.empty()) bad(key, "a file whose first line is the password");
    std::size_t authority = url.find("://") + 3;
    std::size_t at = url.find('@', authority);
    std::size_t slash = url.find('/', authority);
    if (at == std::string::npos || (slash != std::string::npos && at > slash)) {
        bad("database", "postgresql://USER@HOST/DB when database_password_file is set");
    }
    std::string user = url.substr(authority, at - authority);
    if (user.find(':') != std::string::npos) {
        bad("database", "a URL without a password when database_password_file is set");
    }
    std::string encoded;
    for (unsigned char c : password) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
            encoded += static_cast<char>(c);
        } else {
            encoded += fmt_percent(c);
        }
    }
    return url.substr(0, at) + ":" + encoded + url.substr(at);
}

void validate(const service_config& config) {
    std::string host;
    std::uint16_t port = 0;
    if (!split_host_port(config.listen, host, port)) bad("listen", "HOST:PORT");
    if (!config.admin_listen.empty() && !split_host_port(config.admin_listen, host, port)) {
        bad("admin_listen", "HOST:PORT, or \"\" for no admin listener");
    }
    if (!database_url::parse(config.database)) {
        bad("database", "sqlite:PATH or postgresql://...");
    }
    if (!config.public_base_url.starts_with("http://") &&
        !config.public_base_url.starts_with("https://")) {
        bad("public_base_url", "an http:// or https:// URL");
    }
    static const std::set<std::string> levels = {"trace", "debug", "info", "warn", "error", "off"};
    if (config.ledger_queue_commands_max < config.ledger_batch_commands_max) {
        bad("ledger.queue_commands_max", "at least ledger.batch_commands_max");
    }
    for (const auto& [name, pin] : config.plugins_sha256) {
        if (std::find(config.plugins_rails.begin(), config.plugins_rails.end(), name) == config.plugins_rails.end()) {
            bad("plugins.sha256." + name, "the pin of a rail listed in plugins.rails");
        }
    }
    const auto& tls = config.tls;
    if (tls.certificate_file.empty() != tls.private_key_file.empty()) {
        bad(tls.certificate_file.empty() ? "tls.certificate_file" : "tls.private_key_file",
            "set together with the other of tls.certificate_file and tls.private_key_file");
    }
    if (tls.min_version != "1.2" && tls.min_version != "1.3") {
        bad("tls.min_version", "\"1.2\" or \"1.3\"");
    }
    if (!levels.contains(config.log_level)) bad("log.level", "one of trace, debug, info, warn, error, off");
}

// The document, or a config_error naming the line and column (1-based) where parsing stopped.
json::value parse_config_json(const std::string& path, const std::string& text) {
    json::stream_parser parser;
    boost::system::error_code ec;
    std::size_t consumed = parser.write(text.data(), text.size(), ec);
    if (!ec) parser.finish(ec);
    if (!ec) return parser.release();
    std::size_t at = std::min(consumed, text.size());
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < at; ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    throw config_error("configuration file " + path + " is not valid JSON: line " +
                       std::to_string(line) + ", column " + std::to_string(column) + ": " +
                       ec.message());
}

}  // namespace

bool split_host_port(const std::string& text, std::string& host, std::uint16_t& port) {
    auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return false;
    host = text.substr(0, colon);
    if (host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    auto digits = text.substr(colon + 1);
    if (digits.size() > 5) return false;
    long value = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') return false;
        value = value * 10 + (c - '0');
    }
    if (value > 65535) return false;
    port = static_cast<std::uint16_t>(value);
    return !host.empty();
}

std::string key_file_in(const std::string& state_dir) {
    return (std::filesystem::path(state_dir) / "key-encryption.key").string();
}

std::optional<std::string> find_default_config_file() {
    for (const char* candidate : {"conf/corridor.json", "/etc/corridor/corridor.json"}) {
        if (std::filesystem::exists(candidate)) return std::string(candidate);
    }
    return std::nullopt;
}

std::string default_plugins_dir() {
    std::error_code ec;
    auto bin = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
    if (ec) return "plugins";
    auto installed = bin.parent_path() / "lib" / "corridor" / "rails";
    if (bin.filename() == "bin" && std::filesystem::is_directory(installed)) return installed.string();
    return (bin / "plugins").string();
}

service_config service_config::defaults(const std::string& state_dir) {
    service_config config;
    config.state_dir = std::filesystem::absolute(state_dir).lexically_normal().string();
    config.plugins_dirs = {default_plugins_dir()};
    config.bulk_import.dir = resolve(config.state_dir, config.bulk_import.dir);
    config.rails_data_dir = resolve(config.state_dir, config.rails_data_dir);
    config.database = "sqlite:" + resolve(config.state_dir, "corridor.db");
    config.key_encryption_key_file = key_file_in(config.state_dir);
    return config;
}

service_config service_config::load_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw config_error("cannot read configuration file " + path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    json::value document = parse_config_json(path, buffer.str());
    if (!document.is_object()) throw config_error("configuration file " + path + " must hold an object");

    // Absolute, so that what the file names stays put whatever folder the process later works in.
    std::string base_dir =
        std::filesystem::absolute(std::filesystem::path(path)).parent_path().lexically_normal().string();
    std::vector<std::string> plugins_dirs;
    reader keys(document.as_object());
    std::string state_dir;
    keys.text("state_dir", state_dir);
    service_config config = defaults(state_dir_of(base_dir, state_dir));
    config.config_file = std::filesystem::absolute(path).lexically_normal().string();
    std::string currencies_file, rates_file, funding_file, uma_providers_file, database;
    std::string sandbox_rates_file, sandbox_funding_file, database_password_file;
    keys.text("listen", config.listen);
    keys.text_or_empty("admin_listen", config.admin_listen);
    keys.text("database", database);
    keys.text("database_password_file", database_password_file);
    keys.integer("threads", config.threads, 0, 256);
    keys.integer("database_threads", config.database_threads, 1, 256);
    keys.boolean("migrate_on_start", config.migrate_on_start);
    keys.text("public_base_url", config.public_base_url);
    keys.text("currencies_file", currencies_file);
    keys.text("rates_file", rates_file);
    keys.text("funding_file", funding_file);
    keys.text("uma_providers_file", uma_providers_file);
    keys.integer("rates.cache_seconds", config.rates_cache_seconds, 0, 86400);
    keys.integer("ledger.batch_commands_max", config.ledger_batch_commands_max, 1, 8192);
    keys.integer("ledger.queue_commands_max", config.ledger_queue_commands_max, 1, 10000000);
    keys.integer("ledger.outcome_lookup_timeout_ms", config.ledger_outcome_lookup_timeout_ms, 0,
                 3600000);
    keys.integer("quotes.sweep_interval_ms", config.quotes_sweep_interval_ms, 10, 600000);
    keys.integer("idempotency.retention_hours", config.idempotency_retention_hours, 24, 24 * 90);
    keys.text("uma.proxy_host", config.uma_proxy_host);
    std::string key_encryption_key_file, uma_key_encryption_key_file;
    keys.text("key_encryption_key_file", key_encryption_key_file);
    keys.text("uma.key_encryption_key_file", uma_key_encryption_key_file);
    keys.integer("uma.lookup_ttl_seconds", config.uma_lookup_ttl_seconds, 10, 86400);
    keys.integer("uma.previous_key_overlap_seconds", config.uma_previous_key_overlap_seconds, 0,
                 90LL * 24 * 3600);
    keys.integer("uma.post_transaction_poll_interval_ms",
                 config.uma_post_transaction_poll_interval_ms, 5, 60000);
    keys.integer("uma.post_transaction_retry_initial_interval_ms",
                 config.uma_post_transaction_retry_initial_interval_ms, 10, 3600000);
    keys.integer("uma.post_transaction_attempts_max", config.uma_post_transaction_attempts_max, 1,
                 100);
    keys.integer("quotes.ttl_seconds", config.quotes_ttl_seconds, 1, 3600);
    keys.integer("sandbox.timeout_seconds", config.sandbox_timeout_seconds, 1, 3600);
    keys.text("sandbox.rates_file", sandbox_rates_file);
    keys.text("sandbox.funding_file", sandbox_funding_file);
    keys.integer("external_accounts.screening_delay_ms", config.external_accounts_screening_delay_ms, 0, 86400000);
    keys.integer("bank_link.token_ttl_seconds", config.bank_link_token_ttl_seconds, 1, 7 * 86400);
    keys.boolean("outbound.allow_private_addresses", config.outbound_allow_private_addresses);
    keys.integer("outbound.timeout_ms", config.outbound_timeout_ms, 100, 120000);
    keys.integer("webhooks.approval_timeout_ms", config.webhooks_approval_timeout_ms, 100, 600000);
    auto& hooks = config.webhooks;
    keys.integer("webhooks.connect_timeout_ms", hooks.connect_timeout_ms, 10, 120000);
    keys.integer("webhooks.response_timeout_ms", hooks.response_timeout_ms, 10, 300000);
    keys.integer("webhooks.retry_initial_interval_ms", hooks.retry_initial_interval_ms, 10, 3600000);
    keys.integer("webhooks.retry_interval_max_ms", hooks.retry_interval_max_ms, 10, 86400000);
    keys.integer("webhooks.retry_max_age_hours", hooks.retry_max_age_hours, 1, 24 * 30);
    keys.integer("webhooks.poll_interval_ms", hooks.poll_interval_ms, 5, 60000);
    keys.integer("webhooks.in_flight_max", hooks.in_flight_max, 1, 100000);
    keys.integer("webhooks.retention_days", hooks.retention_days, 1, 3650);
    keys.integer("webhooks.retention_ms", hooks.retention_ms, 1, 86400000);  // tests only
    keys.folders("plugins.dir", plugins_dirs);
    keys.text_list("plugins.rails", config.plugins_rails);
    keys.pins("plugins.sha256", config.plugins_sha256);
    keys.settings("plugins.settings", config.plugins_settings);
    keys.integer("rails.call_timeout_ms", config.rails_call_timeout_ms, 100, 3600000);
    keys.integer("rails.settlement_timeout_ms", config.rails_settlement_timeout_ms, 1000, 90LL * 86400000);
    keys.integer("rails.drive_interval_ms", config.rails_drive_interval_ms, 10, 60000);
    std::string rails_data_dir;
    keys.text("rails.data_dir", rails_data_dir);
    auto& limits = config.limits;
    keys.integer("limits.request_body_bytes_max", limits.request_body_bytes_max, 1024, 1LL << 30);
    keys.integer("limits.request_header_bytes_max", limits.request_header_bytes_max, 1024, 1 << 20);
    keys.integer("limits.request_timeout_ms", limits.request_timeout_ms, 100, 3600000);
    keys.integer("limits.response_write_timeout_ms", limits.response_write_timeout_ms, 100, 3600000);
    keys.integer("limits.shutdown_timeout_ms", limits.shutdown_timeout_ms, 0, 600000);
    keys.integer("limits.connections_per_core_max", limits.connections_per_core_max, 1, 1000000);
    keys.integer("limits.bulk_upload_bytes_max", limits.bulk_upload_bytes_max, 1024, 1LL << 40);
    std::string bulk_import_dir;
    keys.text("bulk_import.dir", bulk_import_dir);
    keys.integer("bulk_import.batch_rows", config.bulk_import.batch_rows, 1, 10000);
    keys.integer("bulk_import.lease_ms", config.bulk_import.lease_ms, 100, 3600000);
    keys.integer("bulk_import.poll_interval_ms", config.bulk_import.poll_interval_ms, 10, 600000);
    keys.integer("kyc.link_ttl_seconds", config.kyc.link_ttl_seconds, 1, 30 * 86400);
    keys.integer("kyc.sandbox_review_delay_ms", config.kyc.sandbox_review_delay_ms, 0, 3600000);
    keys.integer("dashboard.session_idle_ms", config.dashboard.session_idle_ms, 1000,
                 7 * 86400000LL);
    keys.integer("dashboard.session_absolute_ms", config.dashboard.session_absolute_ms, 1000,
                 30 * 86400000LL);
    keys.integer("dashboard.setup_link_ttl_ms", config.dashboard.setup_link_ttl_ms, 1000,
                 30 * 86400000LL);
    keys.integer("cache.ttl_ms", config.cache_ttl_ms, 0, 600000);
    std::string tls_certificate_file, tls_private_key_file;
    keys.text_or_empty("tls.certificate_file", tls_certificate_file);
    keys.text_or_empty("tls.private_key_file", tls_private_key_file);
    keys.text("tls.min_version", config.tls.min_version);
    keys.integer("tls.handshake_timeout_ms", config.tls.handshake_timeout_ms, 100, 600000);
    keys.boolean("log.access", config.log_access);
    keys.text("log.level", config.log_level);
    std::string log_file;
    keys.text_or_empty("log.file", log_file);
    keys.text_list("platform_defaults.supported_currencies", config.platform_default_currencies);
    keys.check_unknown(document.as_object(), "");

    config.currencies_file = resolve(base_dir, currencies_file);
    config.rates_file = resolve(base_dir, rates_file);
    config.funding_file = resolve(base_dir, funding_file);
    config.sandbox_rates_file = resolve(base_dir, sandbox_rates_file);
    config.sandbox_funding_file = resolve(base_dir, sandbox_funding_file);
    config.uma_providers_file = resolve(base_dir, uma_providers_file);
    if (!log_file.empty()) config.log_file = resolve(base_dir, log_file);
    if (!plugins_dirs.empty()) {
        config.plugins_dirs.clear();
        for (const auto& dir : plugins_dirs) config.plugins_dirs.push_back(resolve(base_dir, dir));
    }
    if (!bulk_import_dir.empty()) config.bulk_import.dir = resolve(base_dir, bulk_import_dir);
    if (!rails_data_dir.empty()) config.rails_data_dir = resolve(base_dir, rails_data_dir);
    // uma.key_encryption_key_file is the key's older name, from when it sealed UMA keys only.
    key_encryption_key_file = resolve(base_dir, key_encryption_key_file);
    uma_key_encryption_key_file = resolve(base_dir, uma_key_encryption_key_file);
    if (!key_encryption_key_file.empty() && !uma_key_encryption_key_file.empty() &&
        key_encryption_key_file != uma_key_encryption_key_file) {
        bad("uma.key_encryption_key_file",
            "left out, or the same file as key_encryption_key_file (it is its older name)");
    }
    if (key_encryption_key_file.empty()) key_encryption_key_file = uma_key_encryption_key_file;
    if (!key_encryption_key_file.empty()) config.key_encryption_key_file = key_encryption_key_file;
    config.tls.certificate_file = resolve(base_dir, tls_certificate_file);
    config.tls.private_key_file = resolve(base_dir, tls_private_key_file);
    if (database.starts_with("sqlite:")) {
        // database_url reads "sqlite://x" as the path "x" (and "sqlite:///x" as "/x"): resolve
        // that path, or "sqlite://x" would name a file in the process's working directory.
        std::string file = database.substr(7);
        if (file.starts_with("//")) file.erase(0, 2);
        config.database = "sqlite:" + resolve(base_dir, file);
    } else if (!database.empty()) {
        config.database = database;
    }
    if (!database_password_file.empty()) {
        config.database = with_password(config.database, resolve(base_dir, database_password_file));
    }
    validate(config);
    return config;
}

}  // namespace corridor
