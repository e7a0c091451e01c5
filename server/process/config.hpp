#pragma once
// The operator's configuration (conf/corridor.json). Every key has a default; an unknown key or a bad
// value stops start-up with a message naming it. Relative paths in the file are relative to the
// file's own folder; paths given on the command line are relative to the working directory.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace corridor {

struct limits_config {
    std::int64_t request_body_bytes_max = 1024 * 1024;
    std::int64_t request_header_bytes_max = 16 * 1024;
    std::int64_t request_timeout_ms = 30000;       // reading one request, idle keep-alive included
    std::int64_t response_write_timeout_ms = 30000;
    std::int64_t shutdown_timeout_ms = 10000;      // in-flight requests get this long at SIGTERM
    std::int64_t connections_per_core_max = 10000;
    // The bulk CSV upload streams to disk and is the one route allowed past request_body_bytes_max.
    std::int64_t bulk_upload_bytes_max = 100 * 1024 * 1024;
};

struct bulk_import_config {
    std::string dir = "bulk-imports";  // uploads and their CSV files while jobs run
    std::int64_t batch_rows = 500;     // rows per transaction
    std::int64_t lease_ms = 30000;     // a job whose worker stopped is taken over after this
    std::int64_t poll_interval_ms = 1000;
};

struct kyc_config {
    std::int64_t link_ttl_seconds = 3600;
    std::int64_t sandbox_review_delay_ms = 2000;  // the sandbox decides a submission after this
};

// The platform dashboard's sessions and setup links.
struct dashboard_config {
    std::int64_t session_idle_ms = 30 * 60000;          // signed out after this long unused
    std::int64_t session_absolute_ms = 12 * 3600000;    // and this long after signing in, whatever
    std::int64_t setup_link_ttl_ms = 72 * 3600000;      // a setup link's lifetime
};

// TLS on the listener. Without a certificate the listener speaks plain HTTP; with one, only TLS.
struct tls_config {
    std::string certificate_file;     // PEM chain, leaf first; empty = plaintext
    std::string private_key_file;     // PEM, unencrypted
    std::string min_version = "1.2";  // "1.2" or "1.3"
    std::int64_t handshake_timeout_ms = 10000;
    bool enabled() const { return !certificate_file.empty(); }
};

struct webhooks_config {
    std::int64_t connect_timeout_ms = 5000;
    std::int64_t response_timeout_ms = 10000;  // from the request's first byte to the whole answer
    std::int64_t retry_initial_interval_ms = 5000;     // doubles per failed attempt...
    std::int64_t retry_interval_max_ms = 30 * 60000;   // ...up to this
    std::int64_t retry_max_age_hours = 7 * 24;         // no attempt later than this after the event
    std::int64_t poll_interval_ms = 50;  // how often the outbox is checked for due events
    std::int64_t in_flight_max = 256;    // deliveries under way at once in this process
    // Finished events (delivered, given up, TEST, no endpoint) and their attempts are deleted this
    // long after they finished.
    std::int64_t retention_days = 30;
    // For tests only: a retention in milliseconds that replaces retention_days when set (> 0), so a
    // test can watch an event pruned without waiting a day.
    std::int64_t retention_ms = 0;
    std::int64_t retention_effective_ms() const {
        return retention_ms > 0 ? retention_ms : retention_days * 86400000;
    }
};

struct service_config {
    std::string listen = "127.0.0.1:8080";
    // The admin listener (/metrics, /healthz, /readyz), loopback by default: metrics and health
    // are for the operator's tools, not for the public listener. Empty = no admin listener.
    std::string admin_listen = "127.0.0.1:9464";
    std::string database = "sqlite:corridor.db";
    int threads = 0;           // io threads; 0 = one per core
    int database_threads = 4;  // threads that own a database session each
    // serve applies pending migrations at start; false (fleets that migrate as a step of their
    // own) makes it refuse a database that needs them, as `serve --no-migrate` does.
    bool migrate_on_start = true;
    std::string public_base_url = "http://127.0.0.1:8080";
    // Where this process keeps what it makes (the SQLite database, rail data, bulk imports, key
    // files) unless a key names another place: `state_dir`, else systemd's STATE_DIRECTORY, else
    // the configuration file's folder. Always absolute once loaded.
    std::string state_dir;
    std::string config_file;  // the file this was loaded from, absolute; empty for defaults
    // Reference data. Empty = built in: the currencies and the UMA provider list ship with the
    // binary. Rates and bank details for funding are the operator's: empty leaves production
    // without them (quotes and funding instructions are refused, start-up warns), while the
    // sandbox always has prices and details, its own (sandbox.*) or the built-in samples.
    std::string currencies_file;
    std::string rates_file;
    std::int64_t rates_cache_seconds = 300;   // operator edits to the rates file show within this
    std::string funding_file;
    std::string sandbox_rates_file;
    std::string sandbox_funding_file;
    std::string uma_providers_file;  // the UMA provider catalogue
    // 64 hex digits sealing every private key in the database (key_encryption_key_file, alias
    // uma.key_encryption_key_file); default <state_dir>/key-encryption.key, made on first start.
    std::string key_encryption_key_file;
    std::int64_t ledger_batch_commands_max = 512;  // 1 turns group commit off
    std::int64_t ledger_queue_commands_max = 65536;
    // PostgreSQL: how long the writer keeps reconnecting to learn whether a batch whose COMMIT lost
    // its connection committed, before answering its commands 503 with an unknown outcome.
    std::int64_t ledger_outcome_lookup_timeout_ms = 30000;
    std::int64_t quotes_sweep_interval_ms = 1000;
    std::int64_t idempotency_retention_hours = 72;
    std::string uma_proxy_host = "uma.corridor.localhost";
    std::int64_t uma_lookup_ttl_seconds = 600;  // a receiver lookup serves quotes this long
    // After an UMA key switch (`uma-key rotate`), how long travel-rule data encrypted to the
    // replaced encryption key still decrypts: senders that fetched the keys before the switch.
    std::int64_t uma_previous_key_overlap_seconds = 7 * 24 * 3600;
    // Post-transaction callbacks to the providers of UMA receivers we paid: how often the worker
    // looks for due ones, the wait after a failed attempt (doubling per attempt, at most an hour),
    // and how many attempts before giving up.
    std::int64_t uma_post_transaction_poll_interval_ms = 500;
    std::int64_t uma_post_transaction_retry_initial_interval_ms = 5000;
    std::int64_t uma_post_transaction_attempts_max = 8;
    std::int64_t quotes_ttl_seconds = 300;
    std::int64_t sandbox_timeout_seconds = 30;
    // How long a new external account stays PENDING before the upkeep loop screens it ACTIVE.
    std::int64_t external_accounts_screening_delay_ms = 1000;
    std::int64_t bank_link_token_ttl_seconds = 4 * 3600;  // link tokens expire unused after this
    bool outbound_allow_private_addresses = false;
    std::int64_t outbound_timeout_ms = 5000;  // one outbound UMA exchange, connect to last byte
    std::int64_t webhooks_approval_timeout_ms = 5000;
    webhooks_config webhooks;
    // plugins.dir, searched in order. The binary's own rails until loaded: PREFIX/lib/corridor/rails
    // beside PREFIX/bin/corridor, or build/plugins in a build tree.
    std::vector<std::string> plugins_dirs;
    std::vector<std::string> plugins_rails = {"sandbox"};  // no key: the sandbox rail alone
    std::map<std::string, std::string> plugins_sha256;    // rail name -> pinned SHA-256 (hex)
    std::map<std::string, std::string> plugins_settings;  // rail name -> its settings, JSON object
    std::int64_t rails_call_timeout_ms = 10000;        // lease of one initiation to one process
    std::int64_t rails_settlement_timeout_ms = 259200000;  // no final outcome by then: TIMEOUT
    std::int64_t rails_drive_interval_ms = 100;        // how often the payment engine runs
    // This process's rail state: its node identity, and one folder per rail (its plugin's files).
    std::string rails_data_dir = "rail-data";
    limits_config limits;
    bulk_import_config bulk_import;
    kyc_config kyc;
    dashboard_config dashboard;
    tls_config tls;
    std::int64_t cache_ttl_ms = 1000;  // how stale another process's token or config change may be
    bool log_access = true;
    std::string log_level = "info";
    std::string
        log_file;  // every log line goes here (opened 0600, reopened on SIGHUP); empty = stderr
    std::vector<std::string> platform_default_currencies = {"USD", "EUR", "GBP", "MXN",
                                                            "BRL", "INR", "BTC"};

    // Loads the file; throws config_error naming the key on any problem.
    static service_config load_file(const std::string& path);
    // Defaults only, with the state folder `state_dir` (made absolute).
    static service_config defaults(const std::string& state_dir);
};

struct config_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The configuration file to use when none is given: ./conf/corridor.json, then
// /etc/corridor/corridor.json; nullopt when neither exists.
std::optional<std::string> find_default_config_file();

// The rails installed with this binary: PREFIX/lib/corridor/rails beside PREFIX/bin/corridor, or
// the plugins folder of a build tree.
std::string default_plugins_dir();

// "HOST:PORT" with a numeric port 0..65535 (IPv6 hosts in brackets).
bool split_host_port(const std::string& text, std::string& host, std::uint16_t& port);

}  // namespace corridor
