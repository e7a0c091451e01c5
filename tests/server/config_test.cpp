// Loading conf/corridor.json. Every key has a default; an unknown key or a bad value must stop
// start-up with a message naming the key; relative paths in the file are relative to the file's
// own folder, wherever the process was started. Each test writes its files into a fresh temporary
// folder.
#include "server/process/config.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "ledger/book/currencies.hpp"
#include "ledger/store/database.hpp"
#include "ledger/base/random.hpp"
#include "ledger/platforms/uma_providers.hpp"

using namespace corridor;
namespace fs = std::filesystem;

namespace {

class temp_folder {
public:
    temp_folder() {
        os_random random;
        path_ = fs::temp_directory_path() / ("corridor-config-" + random_hex(random, 8));
        fs::create_directories(path_ / "conf");
    }
    ~temp_folder() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    const fs::path& path() const { return path_; }
    // Writes conf/corridor.json (or another name) and returns its path.
    std::string write(const std::string& text, const std::string& name = "conf/corridor.json") {
        fs::path file = path_ / name;
        std::ofstream(file) << text;
        return file.string();
    }

private:
    fs::path path_;
};

std::string error_of(const std::string& path) {
    try {
        service_config::load_file(path);
    } catch (const config_error& error) {
        return error.what();
    }
    return "(no error)";
}

std::string load_error(const std::string& json_text) {
    temp_folder folder;
    return error_of(folder.write(json_text));
}

}  // namespace

TEST_CASE("an empty file gives the defaults, paths next to the file", "[server][config]") {
    temp_folder folder;
    auto config = service_config::load_file(folder.write("{}"));
    const fs::path conf = folder.path() / "conf";
    CHECK(config.listen == "127.0.0.1:8080");
    CHECK(config.threads == 0);
    CHECK(config.database_threads == 4);
    CHECK(config.public_base_url == "http://127.0.0.1:8080");
    CHECK(config.quotes_ttl_seconds == 300);
    CHECK(config.sandbox_timeout_seconds == 30);
    CHECK_FALSE(config.outbound_allow_private_addresses);
    CHECK(config.outbound_timeout_ms == 5000);
    CHECK(config.webhooks_approval_timeout_ms == 5000);
    CHECK(config.webhooks.connect_timeout_ms == 5000);
    CHECK(config.webhooks.response_timeout_ms == 10000);
    CHECK(config.webhooks.retry_initial_interval_ms == 5000);
    CHECK(config.webhooks.retry_interval_max_ms == 1800000);
    CHECK(config.webhooks.retry_max_age_hours == 168);
    CHECK(config.limits.request_body_bytes_max == 1048576);
    CHECK(config.cache_ttl_ms == 1000);
    CHECK(config.log_level == "info");
    // Reference data is built in; production has no rates or bank details of its own yet.
    CHECK(config.currencies_file.empty());
    CHECK(config.uma_providers_file.empty());
    CHECK(config.rates_file.empty());
    CHECK(config.funding_file.empty());
    // The binary's own rails, the sandbox rail alone, and the state next to the file.
    CHECK(config.plugins_dirs == std::vector<std::string>{default_plugins_dir()});
    CHECK(config.plugins_rails == std::vector<std::string>{"sandbox"});
    CHECK(config.state_dir == conf.string());
    CHECK(config.config_file == (conf / "corridor.json").string());
    CHECK(config.database == "sqlite:" + (conf / "corridor.db").string());
    CHECK(config.rails_data_dir == (conf / "rail-data").string());
    CHECK(config.bulk_import.dir == (conf / "bulk-imports").string());
}

TEST_CASE("state_dir holds what the process makes unless a key says otherwise", "[server][config]") {
    temp_folder folder;
    const fs::path conf = folder.path() / "conf";
    auto config = service_config::load_file(folder.write(R"({"state_dir": "../state",
        "bulk_import": {"dir": "uploads"}})"));
    const fs::path state = folder.path() / "state";
    CHECK(config.state_dir == state.string());
    CHECK(config.database == "sqlite:" + (state / "corridor.db").string());
    CHECK(config.rails_data_dir == (state / "rail-data").string());
    CHECK(config.bulk_import.dir == (conf / "uploads").string());  // a key: next to the file

    // systemd's StateDirectory= names the folder when the file does not.
    ::setenv("STATE_DIRECTORY", "/var/lib/corridor:/var/lib/other", 1);
    auto under_systemd = service_config::load_file(folder.write("{}"));
    ::unsetenv("STATE_DIRECTORY");
    CHECK(under_systemd.state_dir == "/var/lib/corridor");
    CHECK(under_systemd.database == "sqlite:/var/lib/corridor/corridor.db");
}

TEST_CASE("an absent plugins.rails loads the sandbox rail; an empty list loads none", "[server][config]") {
    temp_folder folder;
    CHECK(service_config::load_file(folder.write(R"({"plugins": {"rails": []}})")).plugins_rails.empty());
    CHECK(service_config::load_file(folder.write(R"({"plugins": {"dir": "p"}})")).plugins_rails ==
          std::vector<std::string>{"sandbox"});
}

TEST_CASE("database_password_file puts the password into the PostgreSQL URL", "[server][config]") {
    temp_folder folder;
    folder.write("s3cret:p@ss/word\n", "conf/db-password");
    auto config = service_config::load_file(folder.write(R"({
        "database": "postgresql://corridor@db.internal:5432/corridor",
        "database_password_file": "db-password"})"));
    CHECK(config.database == "postgresql://corridor:s3cret%3Ap%40ss%2Fword@db.internal:5432/corridor");
    auto url = database_url::parse(config.database);
    REQUIRE(url);
    CHECK(url->redacted() == "postgresql://corridor:***@db.internal:5432/corridor");

    CHECK(load_error(R"({"database": "sqlite:x.db", "database_password_file": "db-password"})") ==
          "configuration key \"database_password_file\" must be used with a postgresql:// database");
    CHECK(load_error(R"({"database": "postgresql://corridor:inline@db/c",
                         "database_password_file": "/nonexistent/db-password"})")
              .starts_with("cannot read database_password_file"));
}

TEST_CASE("every key is read", "[server][config]") {
    temp_folder folder;
    auto config = service_config::load_file(folder.write(R"({
        "listen": "0.0.0.0:9090",
        "database": "postgresql://corridor@db.internal:5432/corridor",
        "threads": 8,
        "database_threads": 16,
        "public_base_url": "https://pay.example",
        "currencies_file": "/etc/corridor/currencies.json",
        "uma": {"proxy_host": "uma.pay.example", "key_encryption_key_file": "/etc/corridor/uma.key",
                "lookup_ttl_seconds": 120, "post_transaction_poll_interval_ms": 50,
                "post_transaction_retry_initial_interval_ms": 200,
                "post_transaction_attempts_max": 3},
        "quotes": {"ttl_seconds": 60},
        "sandbox": {"timeout_seconds": 5},
        "outbound": {"allow_private_addresses": true, "timeout_ms": 750},
        "webhooks": {"approval_timeout_ms": 2500, "connect_timeout_ms": 700, "response_timeout_ms": 900,
                     "retry_initial_interval_ms": 50, "retry_interval_max_ms": 60000,
                     "retry_max_age_hours": 24, "poll_interval_ms": 10, "in_flight_max": 8},
        "plugins": {"dir": "/opt/corridor/plugins", "rails": ["ach", "pix"]},
        "limits": {"request_body_bytes_max": 4096, "request_header_bytes_max": 2048,
                   "request_timeout_ms": 1000, "response_write_timeout_ms": 2000,
                   "shutdown_timeout_ms": 0, "connections_per_core_max": 50},
        "cache": {"ttl_ms": 0},
        "log": {"access": false, "level": "warn"},
        "platform_defaults": {"supported_currencies": ["USD"]}
    })"));
    CHECK(config.listen == "0.0.0.0:9090");
    CHECK(config.database == "postgresql://corridor@db.internal:5432/corridor");
    CHECK(config.threads == 8);
    CHECK(config.database_threads == 16);
    CHECK(config.public_base_url == "https://pay.example");
    CHECK(config.currencies_file == "/etc/corridor/currencies.json");
    CHECK(config.uma_proxy_host == "uma.pay.example");
    CHECK(config.key_encryption_key_file == "/etc/corridor/uma.key");
    CHECK(config.uma_lookup_ttl_seconds == 120);
    CHECK(config.uma_post_transaction_poll_interval_ms == 50);
    CHECK(config.uma_post_transaction_retry_initial_interval_ms == 200);
    CHECK(config.uma_post_transaction_attempts_max == 3);
    CHECK(config.quotes_ttl_seconds == 60);
    CHECK(config.sandbox_timeout_seconds == 5);
    CHECK(config.outbound_allow_private_addresses);
    CHECK(config.outbound_timeout_ms == 750);
    CHECK(config.webhooks_approval_timeout_ms == 2500);
    CHECK(config.webhooks.connect_timeout_ms == 700);
    CHECK(config.webhooks.response_timeout_ms == 900);
    CHECK(config.webhooks.retry_initial_interval_ms == 50);
    CHECK(config.webhooks.retry_interval_max_ms == 60000);
    CHECK(config.webhooks.retry_max_age_hours == 24);
    CHECK(config.webhooks.poll_interval_ms == 10);
    CHECK(config.webhooks.in_flight_max == 8);
    CHECK(config.plugins_dirs == std::vector<std::string>{"/opt/corridor/plugins"});
    CHECK(config.plugins_rails == std::vector<std::string>{"ach", "pix"});
    CHECK(config.limits.request_body_bytes_max == 4096);
    CHECK(config.limits.request_header_bytes_max == 2048);
    CHECK(config.limits.request_timeout_ms == 1000);
    CHECK(config.limits.response_write_timeout_ms == 2000);
    CHECK(config.limits.shutdown_timeout_ms == 0);
    CHECK(config.limits.connections_per_core_max == 50);
    CHECK(config.cache_ttl_ms == 0);
    CHECK_FALSE(config.log_access);
    CHECK(config.log_level == "warn");
    CHECK(config.platform_default_currencies == std::vector<std::string>{"USD"});
}

TEST_CASE("relative paths resolve against the configuration file's folder", "[server][config]") {
    temp_folder folder;
    const fs::path conf = folder.path() / "conf";
    auto config = service_config::load_file(folder.write(R"({
        "database": "sqlite:../var/corridor.db",
        "currencies_file": "data/currencies.json",
        "plugins": {"dir": "./plugins/../rails"}
    })"));
    CHECK(config.database == "sqlite:" + (folder.path() / "var" / "corridor.db").string());
    CHECK(config.currencies_file == (conf / "data" / "currencies.json").string());
    CHECK(config.plugins_dirs == std::vector<std::string>{(conf / "rails").string()});

    // Absolute paths stay as they are, in either spelling.
    for (const char* absolute : {"sqlite:/srv/corridor.db", "sqlite:///srv/corridor.db"}) {
        INFO(absolute);
        config = service_config::load_file(
            folder.write(std::string(R"({"database": ")") + absolute + "\"}"));
        auto url = database_url::parse(config.database);
        REQUIRE(url);
        CHECK(url->connect_string == "/srv/corridor.db");
    }
}

TEST_CASE("plugins.dir takes one folder or a list searched in order", "[server][config]") {
    temp_folder folder;
    const fs::path conf = folder.path() / "conf";
    auto config = service_config::load_file(
        folder.write(R"({"plugins": {"dir": ["my-rails", "/usr/lib/corridor/rails"]}})"));
    CHECK(config.plugins_dirs ==
          std::vector<std::string>{(conf / "my-rails").string(), "/usr/lib/corridor/rails"});
    const char* expected =
        "configuration key \"plugins.dir\" must be a folder (a non-empty string) or a non-empty "
        "array of folders";
    CHECK(load_error(R"({"plugins": {"dir": []}})") == expected);
    CHECK(load_error(R"({"plugins": {"dir": ["a", ""]}})") == expected);
    CHECK(load_error(R"({"plugins": {"dir": ["a", 3]}})") == expected);
    CHECK(load_error(R"({"plugins": {"dir": ""}})") == expected);
}

TEST_CASE("sqlite:// URLs with a relative path resolve against the file's folder too",
          "[server][config]") {
    // database_url reads "sqlite://corridor.db" as the relative path corridor.db; left as it is,
    // it would name a file in whatever folder the process happened to start in.
    temp_folder folder;
    auto config = service_config::load_file(folder.write(R"({"database": "sqlite://data/c.db"})"));
    auto url = database_url::parse(config.database);
    REQUIRE(url);
    CHECK(url->connect_string == (folder.path() / "conf" / "data" / "c.db").string());
}

TEST_CASE("unknown keys stop start-up, at the top and in sections", "[server][config]") {
    CHECK(load_error(R"({"listne": "127.0.0.1:8080"})") == "unknown configuration key \"listne\"");
    CHECK(load_error(R"({"uma": {"proxy_host": "x", "proxyHost": "y"}})") ==
          "unknown configuration key \"uma.proxyHost\"");
    CHECK(load_error(R"({"limits": {"request_body_bytes": 2048}})") ==
          "unknown configuration key \"limits.request_body_bytes\"");
    CHECK(load_error(R"({"log": {"level": "info", "format": "json"}})") ==
          "unknown configuration key \"log.format\"");
    CHECK(load_error(R"({"ratez": {}})") == "unknown configuration key \"ratez\"");
    CHECK(load_error(R"({"uma": {}, "quotes": {}, "x": 1})") == "unknown configuration key \"x\"");
    CHECK(load_error(R"({"uma": {"proxy_host": {"nested": 1}}})") ==
          "configuration key \"uma.proxy_host\" must be a non-empty string");
}

TEST_CASE("bad types and values name the key and what it must be", "[server][config]") {
    CHECK(load_error(R"({"threads": "4"})") == "configuration key \"threads\" must be an integer");
    CHECK(load_error(R"({"threads": 1.5})") == "configuration key \"threads\" must be an integer");
    CHECK(load_error(R"({"threads": 4.0})") == "configuration key \"threads\" must be an integer");
    CHECK(load_error(R"({"threads": true})") == "configuration key \"threads\" must be an integer");
    CHECK(load_error(R"({"threads": -1})") ==
          "configuration key \"threads\" must be between 0 and 256");
    CHECK(load_error(R"({"threads": 257})") ==
          "configuration key \"threads\" must be between 0 and 256");
    CHECK(load_error(R"({"threads": 18446744073709551615})") ==
          "configuration key \"threads\" must be at most 256");
    CHECK(load_error(R"({"database_threads": 0})") ==
          "configuration key \"database_threads\" must be between 1 and 256");
    CHECK(load_error(R"({"quotes": {"ttl_seconds": 0}})") ==
          "configuration key \"quotes.ttl_seconds\" must be between 1 and 3600");
    CHECK(
        load_error(R"({"limits": {"request_body_bytes_max": 1023}})") ==
        "configuration key \"limits.request_body_bytes_max\" must be between 1024 and 1073741824");
    CHECK(
        load_error(R"({"limits": {"request_body_bytes_max": 9223372036854775807}})") ==
        "configuration key \"limits.request_body_bytes_max\" must be between 1024 and 1073741824");
    CHECK(load_error(R"({"outbound": {"allow_private_addresses": "yes"}})") ==
          "configuration key \"outbound.allow_private_addresses\" must be true or false");
    CHECK(load_error(R"({"log": {"access": 1}})") ==
          "configuration key \"log.access\" must be true or false");
    CHECK(load_error(R"({"listen": ""})") ==
          "configuration key \"listen\" must be a non-empty string");
    CHECK(load_error(R"({"listen": 8080})") ==
          "configuration key \"listen\" must be a non-empty string");
    CHECK(load_error(R"({"plugins": {"rails": "ach"}})") ==
          "configuration key \"plugins.rails\" must be an array of strings");
    CHECK(load_error(R"({"plugins": {"rails": ["ach", 2]}})") ==
          "configuration key \"plugins.rails\" must be an array of strings");
    CHECK(load_error(R"({"uma": "uma.example"})") == "configuration key \"uma\" must be an object");
    CHECK(load_error(R"({"limits": []})") == "configuration key \"limits\" must be an object");
}

TEST_CASE("rail plugin keys: pins, settings and engine timeouts", "[server][config]") {
    temp_folder folder;
    const std::string pin(64, 'a');
    auto config = service_config::load_file(folder.write(R"({
        "plugins": {"rails": ["sandbox", "ach"], "sha256": {"ach": ")" + pin + R"("},
                    "settings": {"ach": {"origin": "1234567890", "cutoffs": [1, 2]}}},
        "rails": {"call_timeout_ms": 2000, "settlement_timeout_ms": 60000, "drive_interval_ms": 50}
    })"));
    CHECK(config.plugins_sha256 == std::map<std::string, std::string>{{"ach", pin}});
    CHECK(config.plugins_settings == std::map<std::string, std::string>{
                                         {"ach", R"({"origin":"1234567890","cutoffs":[1,2]})"}});
    CHECK(config.rails_call_timeout_ms == 2000);
    CHECK(config.rails_settlement_timeout_ms == 60000);
    CHECK(config.rails_drive_interval_ms == 50);

    CHECK(load_error(R"({"plugins": {"rails": ["ach"], "sha256": {"ach": "ABC"}}})") ==
          "configuration key \"plugins.sha256.ach\" must be a SHA-256 of 64 lowercase hex digits");
    CHECK(load_error(R"({"plugins": {"rails": ["ach"], "sha256": {"pix": ")" + pin + R"("}}})") ==
          "configuration key \"plugins.sha256.pix\" must be the pin of a rail listed in plugins.rails");
    CHECK(load_error(R"({"plugins": {"settings": {"ach": 3}}})") ==
          "configuration key \"plugins.settings.ach\" must be an object");
    CHECK(load_error(R"({"rails": {"call_timeout_ms": 5}})") ==
          "configuration key \"rails.call_timeout_ms\" must be between 100 and 3600000");
    CHECK(load_error(R"({"rails": {"retries": 5}})") == "unknown configuration key \"rails.retries\"");
}

TEST_CASE("values are validated after reading", "[server][config]") {
    for (const char* listen : {"localhost", "127.0.0.1:", ":8080", "127.0.0.1:65536",
                               "127.0.0.1:80a", "127.0.0.1:123456", "[]:80"}) {
        INFO(listen);
        CHECK(load_error(std::string(R"({"listen": ")") + listen + "\"}") ==
              "configuration key \"listen\" must be HOST:PORT");
    }
    CHECK(load_error(R"({"database": "mysql://db/corridor"})") ==
          "configuration key \"database\" must be sqlite:PATH or postgresql://...");
    CHECK(load_error(R"({"database": "sqlite:"})") ==
          "configuration key \"database\" must be sqlite:PATH or postgresql://...");
    CHECK(load_error(R"({"database": "corridor.db"})") ==
          "configuration key \"database\" must be sqlite:PATH or postgresql://...");
    CHECK(load_error(R"({"public_base_url": "ftp://pay.example"})") ==
          "configuration key \"public_base_url\" must be an http:// or https:// URL");
    CHECK(load_error(R"({"log": {"level": "verbose"}})") ==
          "configuration key \"log.level\" must be one of trace, debug, info, warn, error, off");
}

TEST_CASE("unreadable and malformed files", "[server][config]") {
    temp_folder folder;
    const std::string missing = (folder.path() / "nope.json").string();
    CHECK(error_of(missing) == "cannot read configuration file " + missing);
    std::string path = folder.write("{\"listen\": ");
    CHECK(error_of(path).starts_with("configuration file " + path + " is not valid JSON"));
    path = folder.write("[]");
    CHECK(error_of(path) == "configuration file " + path + " must hold an object");
}

TEST_CASE("split_host_port", "[server][config]") {
    std::string host;
    std::uint16_t port = 1;
    CHECK(split_host_port("127.0.0.1:8080", host, port));
    CHECK(host == "127.0.0.1");
    CHECK(port == 8080);
    CHECK(split_host_port("[::1]:443", host, port));
    CHECK(host == "::1");
    CHECK(port == 443);
    CHECK(split_host_port("localhost:0", host, port));
    CHECK(port == 0);
    CHECK(split_host_port("localhost:65535", host, port));
    CHECK(port == 65535);
    CHECK_FALSE(split_host_port("localhost", host, port));
    CHECK_FALSE(split_host_port("localhost:", host, port));
    CHECK_FALSE(split_host_port(":80", host, port));
    CHECK_FALSE(split_host_port("localhost:65536", host, port));
    CHECK_FALSE(split_host_port("localhost:-1", host, port));
    CHECK_FALSE(split_host_port("[]:80", host, port));
}

TEST_CASE("external account screening and bank-link token keys", "[server][config]") {
    temp_folder folder;
    auto defaults = service_config::load_file(folder.write("{}"));
    CHECK(defaults.external_accounts_screening_delay_ms == 1000);
    CHECK(defaults.bank_link_token_ttl_seconds == 14400);
    auto config = service_config::load_file(folder.write(
        R"({"external_accounts": {"screening_delay_ms": 0}, "bank_link": {"token_ttl_seconds": 60}})"));
    CHECK(config.external_accounts_screening_delay_ms == 0);
    CHECK(config.bank_link_token_ttl_seconds == 60);
    CHECK_THAT(load_error(R"({"external_accounts": {"screening_delay_ms": -1}})"),
               Catch::Contains("external_accounts.screening_delay_ms"));
    CHECK_THAT(load_error(R"({"bank_link": {"token_ttl_seconds": 0}})"), Catch::Contains("bank_link.token_ttl_seconds"));
    CHECK_THAT(load_error(R"({"bank_link": {"ttl": 5}})"), Catch::Contains("bank_link.ttl"));
}

TEST_CASE("webhook retention: 30 days by default, whole days, a test-only ms override",
          "[server][config]") {
    temp_folder folder;
    auto defaults = service_config::load_file(folder.write("{}"));
    CHECK(defaults.webhooks.retention_days == 30);
    CHECK(defaults.webhooks.retention_effective_ms() == 30LL * 86400000);
    auto days = service_config::load_file(folder.write(R"({"webhooks": {"retention_days": 7}})"));
    CHECK(days.webhooks.retention_effective_ms() == 7LL * 86400000);
    auto ms = service_config::load_file(
        folder.write(R"({"webhooks": {"retention_days": 7, "retention_ms": 1500}})"));
    CHECK(ms.webhooks.retention_effective_ms() == 1500);
    CHECK(load_error(R"({"webhooks": {"retention_days": 0}})") ==
          "configuration key \"webhooks.retention_days\" must be between 1 and 3650");
    CHECK(load_error(R"({"webhooks": {"retention_days": 3651}})") ==
          "configuration key \"webhooks.retention_days\" must be between 1 and 3650");
    CHECK(load_error(R"({"webhooks": {"retention_ms": 0}})") ==
          "configuration key \"webhooks.retention_ms\" must be between 1 and 86400000");
}

TEST_CASE("tls keys: off by default, both files or neither, paths next to the file",
          "[server][config]") {
    temp_folder folder;
    const fs::path conf = folder.path() / "conf";
    auto plain = service_config::load_file(folder.write("{}"));
    CHECK_FALSE(plain.tls.enabled());
    CHECK(plain.tls.min_version == "1.2");
    CHECK(plain.tls.handshake_timeout_ms == 10000);

    // Empty strings are how the shipped file says "off".
    auto empty = service_config::load_file(
        folder.write(R"({"tls": {"certificate_file": "", "private_key_file": ""}})"));
    CHECK_FALSE(empty.tls.enabled());
    CHECK(empty.tls.certificate_file.empty());
    CHECK(empty.tls.private_key_file.empty());

    auto on = service_config::load_file(folder.write(R"({"tls": {
        "certificate_file": "tls/chain.pem", "private_key_file": "/etc/corridor/key.pem",
        "min_version": "1.3", "handshake_timeout_ms": 2500}})"));
    CHECK(on.tls.enabled());
    CHECK(on.tls.certificate_file == (conf / "tls" / "chain.pem").string());
    CHECK(on.tls.private_key_file == "/etc/corridor/key.pem");
    CHECK(on.tls.min_version == "1.3");
    CHECK(on.tls.handshake_timeout_ms == 2500);
}

TEST_CASE("tls keys: bad values name the key", "[server][config]") {
    CHECK(load_error(R"({"tls": {"certificate_file": "cert.pem"}})") ==
          "configuration key \"tls.private_key_file\" must be set together with the other of "
          "tls.certificate_file and tls.private_key_file");
    CHECK(load_error(R"({"tls": {"certificate_file": "", "private_key_file": "key.pem"}})") ==
          "configuration key \"tls.certificate_file\" must be set together with the other of "
          "tls.certificate_file and tls.private_key_file");
    CHECK(load_error(R"({"tls": {"certificate_file": 3}})") ==
          "configuration key \"tls.certificate_file\" must be a string");
    CHECK(load_error(R"({"tls": {"private_key_file": null}})") ==
          "configuration key \"tls.private_key_file\" must be a string");
    for (const char* version : {"1.1", "1.0", "TLSv1.2", "1.4", "1.2 "}) {
        INFO(version);
        CHECK(load_error(std::string(R"({"tls": {"min_version": ")") + version + "\"}}") ==
              "configuration key \"tls.min_version\" must be \"1.2\" or \"1.3\"");
    }
    CHECK(load_error(R"({"tls": {"min_version": 1.3}})") ==
          "configuration key \"tls.min_version\" must be a non-empty string");
    CHECK(load_error(R"({"tls": {"handshake_timeout_ms": 50}})") ==
          "configuration key \"tls.handshake_timeout_ms\" must be between 100 and 600000");
    CHECK(load_error(R"({"tls": {"ca_file": "ca.pem"}})") ==
          "unknown configuration key \"tls.ca_file\"");
    CHECK(load_error(R"({"tls": true})") == "configuration key \"tls\" must be an object");
}

#ifdef CORRIDOR_SOURCE_DIR
TEST_CASE("the shipped configuration and currencies load", "[server][config]") {
    const fs::path conf = fs::path(CORRIDOR_SOURCE_DIR) / "conf";
    auto config = service_config::load_file((conf / "corridor.json").string());
    CHECK(config.listen == "127.0.0.1:8080");
    CHECK_FALSE(config.tls.enabled());  // the shipped file serves plain HTTP
    CHECK(fs::path(config.currencies_file) == conf / "currencies.json");
    auto currencies = currency_registry::load_file(config.currencies_file);
    for (const auto& code : config.platform_default_currencies) {
        INFO(code);
        CHECK(currencies.find(code) != nullptr);
    }
    REQUIRE(currencies.find("USD") != nullptr);
    CHECK(currencies.find("USD")->decimals == 2);
    REQUIRE(currencies.find("BTC") != nullptr);
    CHECK(currencies.find("BTC")->decimals == 8);
    CHECK(fs::path(config.uma_providers_file) == conf / "uma-providers.json");
    auto providers = uma_provider_catalog::load_file(config.uma_providers_file, currencies);
    CHECK(providers.all().size() >= 5);
}
#endif

TEST_CASE("defaults put what the process makes in the state folder", "[server][config]") {
    auto defaults = service_config::defaults("/var/lib/corridor");
    CHECK(defaults.state_dir == "/var/lib/corridor");
    CHECK(defaults.database == "sqlite:/var/lib/corridor/corridor.db");
    CHECK(defaults.rails_data_dir == "/var/lib/corridor/rail-data");
    CHECK(defaults.bulk_import.dir == "/var/lib/corridor/bulk-imports");
    CHECK(defaults.uma_providers_file.empty());
}

TEST_CASE("the key-encryption key defaults into the state folder; the UMA name is an alias",
          "[server][config]") {
    temp_folder folder;
    fs::path conf = fs::absolute(folder.path() / "conf");
    ::unsetenv("STATE_DIRECTORY");
    auto plain = service_config::load_file(folder.write("{}"));
    CHECK(fs::path(plain.state_dir) == conf);
    CHECK(fs::path(plain.key_encryption_key_file) == conf / "key-encryption.key");

    auto moved = service_config::load_file(folder.write(R"({"state_dir": "../state"})"));
    CHECK(fs::path(moved.state_dir) == fs::absolute(folder.path() / "state"));
    CHECK(fs::path(moved.key_encryption_key_file) ==
          fs::absolute(folder.path() / "state" / "key-encryption.key"));

    auto named = service_config::load_file(folder.write(R"({"key_encryption_key_file": "k.hex"})"));
    CHECK(fs::path(named.key_encryption_key_file) == conf / "k.hex");
    auto alias = service_config::load_file(
        folder.write(R"({"uma": {"key_encryption_key_file": "/etc/corridor/kek"}})"));
    CHECK(alias.key_encryption_key_file == "/etc/corridor/kek");
    auto both = service_config::load_file(folder.write(
        R"({"key_encryption_key_file": "k", "uma": {"key_encryption_key_file": "k"}})"));
    CHECK(fs::path(both.key_encryption_key_file) == conf / "k");
    CHECK_THAT(
        load_error(R"({"key_encryption_key_file": "a", "uma": {"key_encryption_key_file": "b"}})"),
        Catch::Contains("uma.key_encryption_key_file") &&
            Catch::Contains("key_encryption_key_file"));

    ::setenv("STATE_DIRECTORY", (folder.path() / "systemd").c_str(), 1);
    auto from_systemd = service_config::load_file(folder.write("{}"));
    ::unsetenv("STATE_DIRECTORY");
    CHECK(fs::path(from_systemd.state_dir) == folder.path() / "systemd");
    CHECK(fs::path(from_systemd.key_encryption_key_file) ==
          folder.path() / "systemd" / "key-encryption.key");
}

TEST_CASE("JSON errors name the line and column where the file goes wrong", "[server][config]") {
    temp_folder folder;
    std::string path =
        folder.write("{\n  \"listen\": \"127.0.0.1:0\",\n  \"database\" \"sqlite:x\"\n}\n");
    CHECK_THAT(error_of(path), Catch::Contains("is not valid JSON: line 3, column 14: "));
    path = folder.write("{\"listen\": ");
    CHECK_THAT(error_of(path), Catch::Contains("is not valid JSON: line 1, column 12: "));
    path = folder.write("{}\n}");
    CHECK_THAT(error_of(path), Catch::Contains("is not valid JSON: line 2, column 1: "));
}

TEST_CASE("admin_listen and log.file", "[server][config]") {
    temp_folder folder;
    auto defaults = service_config::load_file(folder.write("{}"));
    CHECK(defaults.admin_listen == "127.0.0.1:9464");
    CHECK(defaults.log_file.empty());
    auto set = service_config::load_file(
        folder.write(R"({"admin_listen": "0.0.0.0:0", "log": {"file": "logs/corridor.log"}})"));
    CHECK(set.admin_listen == "0.0.0.0:0");
    CHECK(set.log_file == (folder.path() / "conf/logs/corridor.log").string());
    auto off = service_config::load_file(folder.write(R"({"admin_listen": ""})"));
    CHECK(off.admin_listen.empty());
    CHECK(load_error(R"({"admin_listen": "9464"})") ==
          "configuration key \"admin_listen\" must be HOST:PORT, or \"\" for no admin listener");
    CHECK(load_error(R"({"log": {"file": 3}})") ==
          "configuration key \"log.file\" must be a string");
}

TEST_CASE("a configuration named by a relative path still gives absolute paths", "[server][config]") {
    temp_folder folder;
    folder.write(R"({"database": "sqlite:../var/corridor.db", "rails": {"data_dir": "rails"}})");
    auto previous = fs::current_path();
    fs::current_path(folder.path());
    auto config = service_config::load_file("conf/corridor.json");
    fs::current_path(previous);
    const fs::path root = fs::canonical(folder.path());
    CHECK(config.database == "sqlite:" + (root / "var" / "corridor.db").string());
    CHECK(config.rails_data_dir == (root / "conf" / "rails").string());
    CHECK(config.state_dir == (root / "conf").string());
}
