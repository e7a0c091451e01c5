#pragma once
// What the files of the HTTP server share: the server's state (its cores, sessions, counters and
// access log) and which file defines each of its functions. Private to server/http (Asio, Beast).
#include <spdlog/logger.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <csignal>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ledger/base/random.hpp"
#include "server/api/app.hpp"
#include "server/http/connection_timeouts.hpp"
#include "server/http/db_pool.hpp"
#include "server/http/server.hpp"
#include "server/http/tls_context.hpp"

namespace corridor {
namespace beast = boost::beast;
namespace http = beast::http;

// Request ids: a random per-process prefix and a counter; unique without a syscall per request.
class request_id_source {
public:
    request_id_source() {
        os_random random;
        prefix_ = "req_" + random_hex(random, 6) + "_";
    }
    std::string next() { return prefix_ + std::to_string(counter_.fetch_add(1) + 1); }

private:
    std::string prefix_;
    std::atomic<std::uint64_t> counter_{0};
};

// Past this many buffered bytes a core hands its access-log lines over at once.
constexpr std::size_t access_lines_bytes_max = 64 * 1024;

// Completions of database jobs waiting for a core's thread. A ledger batch finishes its
// commands one after another; a post each cost the writer a system call per command (waking
// the io thread, or meeting it on its queue's lock), about 5% of its time under load. They
// gather here instead and run in order, handed over by one post while none is pending, which
// the writer sends once its whole batch is finished (finish_scope, session_job.hpp).
struct pending_completion {
    virtual ~pending_completion() = default;
    virtual void run() noexcept = 0;
};
struct completion_mailbox {
    std::mutex mutex;
    std::vector<std::unique_ptr<pending_completion>> pending;
    bool drain_posted = false;
};

struct http_server::impl {
    struct session_slot {
        tcp::socket* socket = nullptr;
        bool idle = true;  // waiting for the next request, nothing of it read yet
        bool tls = false;  // at shutdown its session is woken to send close_notify, not cut off
    };

    struct core {
        net::io_context context{1};
        completion_mailbox completions;  // destroyed before the context its entries keep alive
        std::optional<tcp::acceptor> acceptor;
        std::list<session_slot> sessions;  // touched only on this core's thread
        // Access-log lines of this core not yet handed to the logger; touched only on this core's
        // thread (and by the main thread once the io threads have stopped).
        std::string access_lines;
        bool access_flush_posted = false;
        std::thread thread;
    };

    const api& app;
    db_pool& database;
    session_executor& writer;
    const service_config& config;
    std::vector<std::unique_ptr<core>> cores;
    std::atomic<bool> draining{false};
    std::atomic<std::int64_t> sessions_open{0};
    request_id_source request_ids;
    std::shared_ptr<spdlog::logger> access_log;
    bool access_log_batched = false;  // the "access" logger takes JSON objects, one per line
    // Installed before any io thread starts, so an early SIGTERM still drains gracefully; SIGHUP
    // (logrotate's reopen) is taken here too so that it never ends the process.
    net::io_context signals_context{1};
    std::optional<net::signal_set> signals;
    std::shared_ptr<tls_context> tls;  // set: the listener speaks only TLS
    listener_role role;
    bool is_public() const { return role == listener_role::public_api; }

    impl(const api& app, db_pool& database, session_executor& writer, const service_config& config,
         std::shared_ptr<tls_context> tls, listener_role role)
        : app(app),
          database(database),
          writer(writer),
          config(config),
          tls(std::move(tls)),
          role(role) {
        if (is_public()) signals.emplace(signals_context, SIGTERM, SIGINT, SIGHUP);
    }

    // database_jobs.cpp: work for a database thread, awaited on this core's io thread.
    net::awaitable<http_response> run_job(core& owner, session_executor& executor,
                                          std::function<http_response(soci::session&)> work);
    net::awaitable<std::optional<http_response>> run_prepare(
        core& owner, std::function<std::optional<http_response>(soci::session&)> prepare);

    // server.cpp: the listener and its access log.
    net::awaitable<void> accept_loop(core& owner);
    void log_access(core& owner, const http_request* request, const http_response& response,
                    http::verb verb, std::string_view target, std::int64_t duration_us,
                    std::size_t bytes_out);
    void flush_access(core& owner);

    // session.cpp: one connection, from its TLS handshake to its close (instantiated there for
    // tcp::socket and tls_stream).
    template <class Stream>
    net::awaitable<void> run_session(core& owner, Stream stream);
    // A session's entry in its core's list and in the connection counts, and its deadline
    // watchdog, for as long as the session runs.
    struct session_registration {
        session_registration(impl& self, core& owner, tcp::socket& socket, bool tls);
        ~session_registration();
        impl& self;
        core& owner;
        std::list<session_slot>::iterator slot;
        std::shared_ptr<connection_deadline> timeouts;
    };
    // Reads a request's head, then its body where its route wants it, within the route's limit
    // (set into `body_bytes_max`); `body_file` is set when the body went to disk.
    template <class Stream>
    net::awaitable<beast::error_code> read_request(Stream& stream, beast::flat_buffer& buffer,
                                                   http::request_parser<http::string_body>& parser,
                                                   connection_deadline& timeouts,
                                                   std::string& body_file,
                                                   std::int64_t& body_bytes_max);
    // Reads the body of a route that streams it to disk into `path`.
    template <class Stream>
    net::awaitable<beast::error_code> read_body_to_file(
        Stream& stream, beast::flat_buffer& buffer, http::request_parser<http::string_body>& parser,
        std::string& path);
    std::shared_ptr<http_request> to_request(http::request_header<>& head, std::string body,
                                             const std::string& remote);
    // The response of a request that was read whole: the route's plan, carried out.
    net::awaitable<http_response> answer(core& owner, std::shared_ptr<const http_request> request);
    // The request's metrics and access-log line; `head` is null when no request could be read.
    void record_request(core& owner, const http_request* request, const http_response& response,
                        const http::request<http::string_body>* head,
                        std::chrono::steady_clock::time_point started);
};

}  // namespace corridor
