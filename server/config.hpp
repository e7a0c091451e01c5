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
    std::int64_t batch_rows = 200;     // rows per transaction
    std::int64_t lease_ms = 30000;     // a job whose worker stopped is taken over after this
    std::int64_t poll_interval_ms = 1000;
};

struct kyc_config {
    std::int64_t link_ttl_seconds = 3600;
    std::int64_t sandbox_review_delay_ms = 2000;  // the sandbox decides a submission after this
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
};

struct service_config {
    std::string listen = "127.0.0.1:8080";
    std::string database = "sqlite:corridor.db";
    int threads = 0;           // io threads; 0 = one per core
    int database_threads = 4;  // threads that own a database session each
    std::string public_base_url = "http://127.0.0.1:8080";
    std::string currencies_file = "currencies.json";
    std::string rates_file = "rates.json";
    std::int64_t rates_cache_seconds = 300;   // operator edits to the rates file show within this
    std::string funding_file = "funding.json";
    std::string uma_providers_file = "uma-providers.json";  // the UMA provider catalogue
    std::int64_t ledger_batch_commands_max = 512;  // 1 turns group commit off
    std::int64_t ledger_queue_commands_max = 65536;
    std::int64_t quotes_sweep_interval_ms = 1000;
    std::int64_t idempotency_retention_hours = 72;
    std::string uma_proxy_host = "uma.corridor.localhost";
    // 64 hex digits sealing the UMA private keys in the database; empty = stored unsealed.
    std::string uma_key_encryption_key_file;
    std::int64_t uma_lookup_ttl_seconds = 600;  // a receiver lookup serves quotes this long
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
    std::vector<std::string> plugins_dirs = {"plugins"};  // plugins.dir, searched in order
    std::vector<std::string> plugins_rails;
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
    tls_config tls;
    std::int64_t cache_ttl_ms = 1000;  // how stale another process's token or config change may be
    bool log_access = true;
    std::string log_level = "info";
    std::vector<std::string> platform_default_currencies = {"USD", "EUR", "GBP", "MXN",
                                                            "BRL", "INR", "BTC"};

    // Loads the file; throws config_error naming the key on any problem.
    static service_config load_file(const std::string& path);
    // Defaults only, with file paths relative to `base_dir`.
    static service_config defaults(const std::string& base_dir);
};

struct config_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// "HOST:PORT" with a numeric port 0..65535 (IPv6 hosts in brackets).
bool split_host_port(const std::string& text, std::string& host, std::uint16_t& port);

}  // namespace corridor
