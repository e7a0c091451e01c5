#pragma once
// The HTTP transport: one io_context per thread, one SO_REUSEPORT listener each, a connection
// living on the thread that accepted it. No Asio or Beast in this header.
#include <cstdint>
#include <functional>
#include <memory>

namespace corridor {

class api;
class db_pool;
class session_executor;
class tls_context;
struct service_config;

// The public listener (config.listen: the API, one listener per io thread, access log, request
// metrics, the process's signals) or the admin listener (config.admin_listen: one thread, no
// access log, not counted in the request metrics, its port not shared with another process).
enum class listener_role { public_api, admin };

class http_server {
public:
    // Ordinary requests run on `database`; money-moving ones on `writer` (the ledger writer).
    // With `tls` (load_tls_context) the listener speaks only TLS; without it, only plain HTTP.
    http_server(const api& api, db_pool& database, session_executor& writer,
                const service_config& config, std::shared_ptr<tls_context> tls = nullptr,
                listener_role role = listener_role::public_api);
    ~http_server();

    // Binds the listeners and starts the io threads; returns the bound port (useful with port 0).
    // Throws std::runtime_error when the address cannot be bound.
    std::uint16_t start();
    // Blocks until SIGTERM or SIGINT; returns the signal's number. SIGHUP calls `on_hangup` and
    // goes on waiting (public listener only: the admin one does not handle signals).
    int wait_for_signal(const std::function<void()>& on_hangup = {});
    // Stops accepting, lets in-flight requests finish within limits.shutdown_timeout_ms, and
    // stops the io threads.
    void drain();

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace corridor
