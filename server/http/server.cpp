#include "server/http/server.hpp"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/http/file_body.hpp>
#include <boost/json.hpp>
#include <openssl/ssl.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <array>
#include <list>
#include <thread>
#include <type_traits>

#include "ledger/base/assert.hpp"
#include "ledger/base/random.hpp"
#include "ledger/base/thread_name.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"
#include "server/process/config.hpp"
#include "server/process/access_log.hpp"
#include "server/http/db_pool.hpp"
#include "server/http/tls_context.hpp"
#include "server/http/tls_context_detail.hpp"

namespace corridor {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using reuse_port = net::detail::socket_option::boolean<SOL_SOCKET, SO_REUSEPORT>;
// A session runs on either stream; the plaintext one is the bare socket, as before TLS existed.
using tls_stream = net::ssl::stream<tcp::socket>;
template <class Stream>
constexpr bool is_tls = std::is_same_v<Stream, tls_stream>;

namespace {

http_method method_of(http::verb verb) {
    switch (verb) {
        case http::verb::get: return http_method::get;
        case http::verb::post: return http_method::post;
        case http::verb::patch: return http_method::patch;
        case http::verb::put: return http_method::put;
        case http::verb::delete_: return http_method::delete_;
        case http::verb::head: return http_method::head;
        case http::verb::options: return http_method::options;
        default: return http_method::other;
    }
}

bool valid_request_id(std::string_view id) {
    if (id.empty() || id.size() > 128) return false;
    for (char c : id) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.' &&
            c != ':') {
            return false;
        }
    }
    return true;
}

// The status line and header fields of `message`, byte for byte as Beast's serializer writes them,
// for the responses that still go through a Beast message (see append_plain_response_head).
// Writing the head and the body as two plain buffers spares the serializer's nested buffer
// sequences, which cost about a quarter of the instructions of a GET /config.
void append_response_head(std::string& out, const http::response<http::string_body>& message) {
    unsigned code = message.result_int();
    unsigned version = message.version();
    char status_line[13] = {'H', 'T', 'T', 'P', '/', static_cast<char>('0' + version / 10), '.',
                            static_cast<char>('0' + version % 10), ' ',
                            static_cast<char>('0' + code / 100),
                            static_cast<char>('0' + (code / 10) % 10),
                            static_cast<char>('0' + code % 10), ' '};
    out.append(status_line, sizeof status_line);
    std::string_view reason = message.reason();
    if (reason.empty()) reason = http::obsolete_reason(static_cast<http::status>(code));
    out.append(reason);
    out.append("\r\n");
    for (const auto& field : message) {
        out.append(field.name_string());
        out.append(": ");
        out.append(field.value());
        out.append("\r\n");
    }
    out.append("\r\n");
}

std::string_view trim_ows(std::string_view value) {
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    return value;
}

// The response head without building a Beast message: the fields a response carries, in the order
// and with the rules of the Beast message this replaces (set() drops earlier fields of the same
// name, case-insensitively, and appends; values are trimmed of spaces and tabs; keep_alive(false)
// adds "Connection: close", prepare_payload() "Content-Length"). Returns false, writing nothing,
// for the responses where Beast would do more than that (a handler header that keep_alive() or
// prepare_payload() rewrite, a body on a status that forbids one, an out-of-range status or value),
// which then go through the Beast message as before.
using head_fields = std::vector<std::pair<std::string_view, std::string_view>>;

bool append_plain_response_head(std::string& out, head_fields& fields, const http_response& response,
                                std::string_view request_id, bool keep_alive) {
    int status = response.status;
    if (status < 100 || status > 999) return false;
    bool bodiless = status < 200 || status == 204 || status == 304;
    if (bodiless && !response.body.empty()) return false;
    for (const auto& [name, value] : response.headers) {
        if (beast::iequals(name, "Connection") || beast::iequals(name, "Content-Length") ||
            beast::iequals(name, "Transfer-Encoding") || name.size() > 60000 || value.size() > 60000) {
            return false;
        }
    }
    if (response.content_type.size() > 60000 || request_id.size() > 60000) return false;
    fields.clear();
    auto set = [&fields](std::string_view name, std::string_view value) {
        std::erase_if(fields, [name](const auto& field) { return beast::iequals(field.first, name); });
        fields.emplace_back(name, trim_ows(value));
    };
    if (!response.content_type.empty()) set("Content-Type", response.content_type);
    set("Cache-Control", "no-store");
    set("X-Request-Id", request_id);
    for (const auto& [name, value] : response.headers) set(name, value);
    if (!keep_alive) set("Connection", "close");
    char length[24];
    auto [length_end, ignored] = std::to_chars(length, length + sizeof length, response.body.size());
    set("Content-Length", std::string_view(length, static_cast<std::size_t>(length_end - length)));

    auto code = static_cast<unsigned>(status);
    char status_line[13] = {'H', 'T', 'T', 'P', '/', '1', '.', '1', ' ',
                            static_cast<char>('0' + code / 100),
                            static_cast<char>('0' + (code / 10) % 10),
                            static_cast<char>('0' + code % 10), ' '};
    out.append(status_line, sizeof status_line);
    out.append(http::obsolete_reason(static_cast<http::status>(code)));
    out.append("\r\n");
    for (const auto& [name, value] : fields) {
        out.append(name);
        out.append(": ");
        out.append(value);
        out.append("\r\n");
    }
    out.append("\r\n");
    return true;
}

// The body that arrived with the head (the usual case for API requests) parsed straight from the
// read buffer, so reading the head first costs no second asynchronous step; the caller reads
// whatever is still missing from the socket.
beast::error_code parse_buffered_body(http::request_parser<http::string_body>& parser,
                                      beast::flat_buffer& buffer) {
    parser.eager(true);
    while (!parser.is_done() && buffer.size() > 0) {
        beast::error_code error;
        auto used = parser.put(buffer.data(), error);
        buffer.consume(used);
        if (error == http::error::need_more) return {};
        if (error) return error;
        if (used == 0) return {};
    }
    return {};
}

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

// The read and write timeouts of one connection, without arming and cancelling a timer around
// every socket operation as beast::tcp_stream does. The session moves a deadline; a watchdog
// coroutine sleeping on one timer per connection closes the socket when the deadline passes, which
// fails the pending read or write. The timer is touched only when a deadline moves earlier than
// its expiry, or when the watchdog wakes (about once per timeout period per connection).
struct connection_deadline {
    using clock = std::chrono::steady_clock;

    connection_deadline(net::io_context& context, tcp::socket& socket)
        : timer(context, clock::time_point::max()), socket(socket) {}

    void expires_after(std::chrono::milliseconds timeout) {
        deadline = clock::now() + timeout;
        if (deadline < timer.expiry()) timer.expires_at(deadline);  // wakes the watchdog to re-wait
    }
    // No timeout while the request is being handled, as with tcp_stream between operations.
    void clear() { deadline = clock::time_point::max(); }

    net::steady_timer timer;
    clock::time_point deadline = clock::time_point::max();
    tcp::socket& socket;
    bool finished = false;  // the session has ended; the socket is no longer there
};

net::awaitable<void> watch_deadline(std::shared_ptr<connection_deadline> state) {
    while (!state->finished) {
        auto [error] = co_await state->timer.async_wait(net::as_tuple(net::use_awaitable));
        if (state->finished) break;
        if (error == net::error::operation_aborted) continue;  // moved earlier: wait again
        if (state->deadline <= connection_deadline::clock::now()) {
            beast::error_code ignored;
            state->socket.close(ignored);
            break;
        }
        state->timer.expires_at(state->deadline);
    }
}

struct session_slot {
    tcp::socket* socket = nullptr;
    bool idle = true;  // waiting for the next request, nothing of it read yet
    bool tls = false;  // at shutdown its session is woken to send close_notify, not cut off
};

struct core {
    net::io_context context{1};
    std::optional<tcp::acceptor> acceptor;
    std::list<session_slot> sessions;  // touched only on this core's thread
    // Access-log lines of this core not yet handed to the logger; touched only on this core's thread
    // (and by the main thread once the io threads have stopped).
    std::string access_lines;
    bool access_flush_posted = false;
    std::thread thread;
};

// Past this many buffered bytes a core hands its access-log lines over at once.
constexpr std::size_t access_lines_bytes_max = 64 * 1024;

}  // namespace

struct http_server::impl {
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

    net::awaitable<http_response> run_job(core& owner, session_executor& executor,
                                          std::function<http_response(soci::session&)> work);
    net::awaitable<std::optional<http_response>> run_prepare(
        core& owner, std::function<std::optional<http_response>(soci::session&)> prepare);
    net::awaitable<void> accept_loop(core& owner);
    template <class Stream>
    net::awaitable<void> run_session(core& owner, Stream stream);
    std::shared_ptr<http_request> to_request(http::request_header<>& head, std::string body,
                                             const std::string& remote);
    // Reads the body of a route that streams it to disk; the file is removed when `cleanup` goes.
    template <class Stream>
    net::awaitable<beast::error_code> read_body_to_file(
        Stream& stream, beast::flat_buffer& buffer, http::request_parser<http::string_body>& parser,
        std::string& path);
    void log_access(core& owner, const http_request* request, const http_response& response,
                    http::verb verb, std::string_view target, std::int64_t duration_us,
                    std::size_t bytes_out);
    void flush_access(core& owner);
};

namespace {

// A database job that resumes the waiting coroutine on its own io thread.
template <class Handler>
class resume_job final : public session_job {
public:
    resume_job(Handler handler, net::io_context& context,
               std::function<http_response(soci::session&)> work)
        : handler_(std::move(handler)),
          work_guard_(net::make_work_guard(context)),
          work_(std::move(work)) {}

    bool run(soci::session& session) noexcept override {
        http_response response;
        try {
            response = work_(session);
        } catch (...) {
            response = error_response(error_code::internal_error, "internal error; retry later");
            response.database_failed = true;
        }
        bool healthy = !response.database_failed;
        response_ = std::move(response);
        return healthy;
    }

    bool retryable() const noexcept override { return response_ && response_->contention; }

    void finish(job_outcome outcome) noexcept override {
        // The work (and what it holds, such as an idempotency key's in-flight guard) is released
        // before the client can see the response, so an immediate retry finds the key free.
        work_ = nullptr;
        if (outcome == job_outcome::committed && response_) {
            complete(std::move(*response_));
            return;
        }
        // The rest are 503 with Retry-After (error_response adds it). rolled_back and not_committed
        // are known not to have happened, so a retry is safe; unknown may have, so its retry must
        // carry the same Idempotency-Key (the stored answer is then replayed) or look first.
        boost::json::object details;
        std::string message;
        if (outcome == job_outcome::unknown) {
            details["outcome"] = "UNKNOWN";
            message = "the database connection was lost while this request was committing and its "
                      "outcome could not be confirmed; retry with the same Idempotency-Key";
        } else {
            details["outcome"] = "NOT_COMMITTED";
            message = outcome == job_outcome::rolled_back || response_
                          ? "the request was not carried out (its database transaction did not "
                            "commit); retry later"
                          : "the request was not carried out (the service is busy, shutting down "
                            "or cannot reach its database); retry later";
        }
        complete(error_response(api_error{error_code::service_unavailable, std::move(message),
                                          std::move(details)}));
    }

private:
    void complete(http_response response) noexcept {
        auto executor = work_guard_.get_executor();
        net::post(executor, [handler = std::move(handler_), response = std::move(response),
                             guard = std::move(work_guard_)]() mutable {
            std::move(handler)(std::move(response));
        });
    }

    Handler handler_;
    net::executor_work_guard<net::io_context::executor_type> work_guard_;
    std::function<http_response(soci::session&)> work_;
    std::optional<http_response> response_;
};

}  // namespace

net::awaitable<void> linger(tcp::socket& socket, connection_deadline& timeouts);
net::awaitable<void> send_close_notify(tls_stream& stream, connection_deadline& timeouts);

net::awaitable<http_response> http_server::impl::run_job(
    core& owner, session_executor& executor, std::function<http_response(soci::session&)> work) {
    auto initiate = [&owner, &executor](auto handler, std::function<http_response(soci::session&)> job) {
        using handler_type = decltype(handler);
        executor.submit(
            std::make_unique<resume_job<handler_type>>(std::move(handler), owner.context, std::move(job)));
    };
    co_return co_await net::async_initiate<decltype(net::use_awaitable), void(http_response)>(
        initiate, net::use_awaitable, std::move(work));
}

// A plan's prepare step, on the pool; status 0 carries "go on" back through run_job.
net::awaitable<std::optional<http_response>> http_server::impl::run_prepare(
    core& owner, std::function<std::optional<http_response>(soci::session&)> prepare) {
    auto answer = co_await run_job(owner, database, [&prepare](soci::session& session) {
        auto early = prepare(session);
        if (early) return std::move(*early);
        http_response go_on;
        go_on.status = 0;
        return go_on;
    });
    if (answer.status == 0) co_return std::nullopt;
    co_return answer;
}

std::shared_ptr<http_request> http_server::impl::to_request(http::request_header<>& head,
                                                          std::string body,
                                                          const std::string& remote) {
    auto request = std::make_shared<http_request>();
    request->method = method_of(head.method());
    request->target = std::string(head.target());
    request->body = std::move(body);
    request->remote_address = remote;
    for (const auto& field : head) {
        std::string name(field.name_string());
        for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        request->headers.emplace_back(std::move(name), std::string(field.value()));
    }
    auto given = request->header("x-request-id");
    request->request_id = given && valid_request_id(*given) ? std::string(*given) : request_ids.next();
    return request;
}

// One JSON line per request. Lines are gathered per core and handed to the logger together once the
// core has run the handlers that were ready (a posted flush), so a busy core writes its log in one
// call per round instead of taking the logger's lock and flushing stdout for every request, while
// an idle server still prints each line as soon as its response is written.
void http_server::impl::log_access(core& owner, const http_request* request,
                                   const http_response& response, http::verb verb,
                                   std::string_view target, std::int64_t duration_us,
                                   std::size_t bytes_out) {
    if (!config.log_access || !is_public()) return;
    // The path only: query strings can carry personal data (UMA addresses, names).
    std::string redacted;
    std::string_view path = loggable_path(target.substr(0, target.find('?')), redacted);
    access_entry entry{request ? std::string_view(request->request_id) : std::string_view(),
                       http::to_string(verb),
                       path,
                       response.status,
                       duration_us,
                       request ? request->body.size() : 0,
                       bytes_out,
                       response.client_id,
                       request ? &request->remote_address : nullptr};
    append_access_line(owner.access_lines, entry);
    if (!access_log_batched || owner.access_lines.size() >= access_lines_bytes_max) {
        flush_access(owner);
    } else if (!owner.access_flush_posted) {
        owner.access_flush_posted = true;
        net::post(owner.context, [this, &owner] {
            owner.access_flush_posted = false;
            flush_access(owner);
        });
    }
}

void http_server::impl::flush_access(core& owner) {
    std::string_view lines = owner.access_lines;
    if (lines.empty()) return;
    if (access_log_batched) {
        lines.remove_suffix(1);  // the logger ends the message with its own newline
        access_log->log(spdlog::level::info, spdlog::string_view_t(lines.data(), lines.size()));
    } else {
        // Another logger's pattern decorates each message: one message per line.
        while (!lines.empty()) {
            auto end = lines.find('\n');
            access_log->log(spdlog::level::info, spdlog::string_view_t(lines.data(), end));
            lines.remove_prefix(end + 1);
        }
    }
    owner.access_lines.clear();
}

template <class Stream>
net::awaitable<void> http_server::impl::run_session(core& owner, Stream stream) {
    tcp::socket& socket = beast::get_lowest_layer(stream);
    std::string remote;
    {
        beast::error_code ec;
        auto endpoint = socket.remote_endpoint(ec);
        if (!ec) remote = endpoint.address().to_string();
    }
    auto slot =
        owner.sessions.insert(owner.sessions.end(), session_slot{&socket, true, is_tls<Stream>});
    sessions_open.fetch_add(1);
    if (is_public()) app.services().stats->connection_opened();
    auto timeouts = std::make_shared<connection_deadline>(owner.context, socket);
    net::co_spawn(owner.context, watch_deadline(timeouts), [](std::exception_ptr failure) {
        if (failure) spdlog::error("connection deadline watchdog ended with an error");
    });
    struct cleanup {
        impl& self;
        core& owner;
        std::list<session_slot>::iterator slot;
        connection_deadline& timeouts;
        ~cleanup() {
            timeouts.finished = true;
            timeouts.timer.cancel();
            owner.sessions.erase(slot);
            self.sessions_open.fetch_sub(1);
            if (self.is_public()) self.app.services().stats->connection_closed();
        }
    } on_exit{*this, owner, slot, *timeouts};

    if constexpr (is_tls<Stream>) {
        // Bounded like a request head, so a client that connects and says nothing is let go.
        timeouts->expires_after(std::chrono::milliseconds(config.tls.handshake_timeout_ms));
        auto [handshake_error] = co_await stream.async_handshake(net::ssl::stream_base::server,
                                                                 net::as_tuple(net::use_awaitable));
        timeouts->clear();
        if (handshake_error) {
            // Scanners and plaintext clients end up here: worth a debug line, not a warning.
            spdlog::debug("TLS handshake with {} failed: {}", remote, handshake_error.message());
            co_return;
        }
    }
    // Whether the peer can still take our close_notify when the session ends (TLS only).
    [[maybe_unused]] bool peer_listening = true;
    const auto& limits = config.limits;
    beast::flat_buffer buffer;
    std::string response_head;
    head_fields response_fields;
    while (!draining.load(std::memory_order_relaxed)) {
        http::request_parser<http::string_body> parser;
        parser.header_limit(static_cast<std::uint32_t>(limits.request_header_bytes_max));
        // The head is read first: which body limit applies, and whether the body goes to memory or
        // to disk, depends on the route. A declared length above the route's limit is refused
        // before any of the body is read.
        parser.body_limit(boost::none);
        slot->idle = buffer.size() == 0;
        timeouts->expires_after(std::chrono::milliseconds(limits.request_timeout_ms));
        auto [read_error, head_bytes] = co_await http::async_read_header(
            stream, buffer, parser, net::as_tuple(net::use_awaitable));
        (void)head_bytes;
        std::string body_file;  // set when the body went to disk
        std::int64_t body_bytes_max = limits.request_body_bytes_max;
        if (!read_error) {
            const auto& head = parser.get();
            bool to_file = app.body_to_file(method_of(head.method()), head.target());
            if (to_file) body_bytes_max = limits.bulk_upload_bytes_max;
            auto declared = parser.content_length();
            if (declared && *declared > static_cast<std::uint64_t>(body_bytes_max)) {
                read_error = http::error::body_limit;
            } else if (to_file) {
                read_error = co_await read_body_to_file(stream, buffer, parser, body_file);
            } else {
                parser.body_limit(static_cast<std::uint64_t>(body_bytes_max));
                read_error = parse_buffered_body(parser, buffer);
                if (!read_error && !parser.is_done()) {
                    auto [body_error, body_bytes] = co_await http::async_read(
                        stream, buffer, parser, net::as_tuple(net::use_awaitable));
                    read_error = body_error;
                }
            }
        }
        struct remove_file {
            std::string& path;
            ~remove_file() {
                if (!path.empty()) std::remove(path.c_str());
            }
        } body_file_cleanup{body_file};
        timeouts->clear();
        slot->idle = false;
        auto started = std::chrono::steady_clock::now();
        if (read_error == http::error::end_of_stream || read_error == beast::error::timeout ||
            read_error == net::error::operation_aborted || read_error == net::error::connection_reset ||
            read_error == net::error::eof || read_error == net::error::bad_descriptor) {
            if constexpr (is_tls<Stream>) {
                // A clean end (the client's close_notify) or our own shutdown still gets ours.
                peer_listening = read_error == http::error::end_of_stream ||
                                 read_error == net::error::eof ||
                                 read_error == net::error::operation_aborted;
            }
            break;
        }
        if constexpr (is_tls<Stream>) {
            // A cut connection or a broken TLS record: nothing more can be said on this stream.
            if (read_error == net::ssl::error::stream_truncated ||
                read_error.category() == net::error::get_ssl_category()) {
                peer_listening = false;
                break;
            }
        }
        http_response response;
        std::shared_ptr<const http_request> request;
        bool close_after = false;
        if (read_error == http::error::body_limit) {
            response = error_response(error_code::payload_too_large,
                                      "request body exceeds " + std::to_string(body_bytes_max) +
                                          " bytes");
            close_after = true;
        } else if (read_error == http::error::header_limit) {
            response = error_response(error_code::header_too_large, "request headers are too large");
            close_after = true;
        } else if (read_error) {
            response = error_response(error_code::invalid_input, "malformed HTTP request");
            close_after = true;
        } else {
            auto built = to_request(parser.get(), std::move(parser.get().body()), remote);
            built->body_file = body_file;
            request = std::move(built);
            auto plan = app.plan(request);
            if (plan.immediate) {
                response = std::move(*plan.immediate);
            } else {
                std::optional<http_response> early;
                if (plan.prepare) early = co_await run_prepare(owner, std::move(plan.prepare));
                if (early) {
                    response = std::move(*early);
                } else {
                    session_executor& executor = plan.on_ledger_writer ? writer : database;
                    response = co_await run_job(owner, executor, std::move(plan.job));
                }
            }
        }

        std::string generated_id;
        if (!request) generated_id = request_ids.next();
        std::string_view request_id = request ? std::string_view(request->request_id) : generated_id;
        bool keep_alive = !close_after && !read_error && parser.get().keep_alive() &&
                          !draining.load(std::memory_order_relaxed);
        response_head.clear();
        if (!append_plain_response_head(response_head, response_fields, response, request_id,
                                        keep_alive)) {
            http::response<http::string_body> out{static_cast<http::status>(response.status), 11};
            if (!response.content_type.empty()) {
                out.set(http::field::content_type, response.content_type);
            }
            out.set(http::field::cache_control, "no-store");
            out.set("X-Request-Id", request_id);
            for (auto& [name, value] : response.headers) out.set(name, value);
            out.body() = std::move(response.body);
            out.keep_alive(keep_alive);
            out.prepare_payload();
            append_response_head(response_head, out);
            response.body = std::move(out.body());
        }
        std::size_t bytes_out = response.body.size();
        std::array<net::const_buffer, 2> response_bytes{net::buffer(response_head),
                                                        net::buffer(response.body)};
        if constexpr (is_tls<Stream>) {
            // An SSL stream writes one buffer per record: head and body together make one record
            // (or the fewest) and one send instead of two.
            response_head.append(response.body);
            response_bytes = {net::buffer(response_head), net::const_buffer()};
        }

        timeouts->expires_after(std::chrono::milliseconds(limits.response_write_timeout_ms));
        auto [write_error, written] =
            co_await net::async_write(stream, response_bytes, net::as_tuple(net::use_awaitable));
        timeouts->clear();
        auto duration_us = std::chrono::duration_cast<std::chrono::microseconds>(
                               std::chrono::steady_clock::now() - started)
                               .count();
        // The admin routes are not in the public route table the metrics are labelled by.
        if (is_public())
            app.services().stats->observe_request(response.route_index, response.status,
                                                  duration_us);
        http::verb verb = read_error ? http::verb::unknown : parser.get().method();
        std::string_view target =
            read_error ? std::string_view() : std::string_view(parser.get().target());
        log_access(owner, request.get(), response, verb, target, duration_us, bytes_out);
        if (!write_error && close_after) {
            if constexpr (is_tls<Stream>) {
                co_await send_close_notify(stream, *timeouts);
                peer_listening = false;  // said already
            }
            co_await linger(socket, *timeouts);
        }
        if (write_error) peer_listening = false;
        if (write_error || !keep_alive) break;
    }
    if constexpr (is_tls<Stream>) {
        if (peer_listening) co_await send_close_notify(stream, *timeouts);
    }
    beast::error_code ignored;
    socket.shutdown(tcp::socket::shutdown_send, ignored);
    co_return;
}

// The body of a route that takes large uploads goes straight to a file under the upload folder,
// within limits.bulk_upload_bytes_max, so an upload of any allowed size costs no more memory than
// one read buffer. limits.request_timeout_ms bounds the whole upload, as it bounds any request.
template <class Stream>
net::awaitable<beast::error_code> http_server::impl::read_body_to_file(
    Stream& stream, beast::flat_buffer& buffer, http::request_parser<http::string_body>& parser,
    std::string& path) {
    std::filesystem::path dir = std::filesystem::path(config.bulk_import.dir) / "incoming";
    std::error_code made;
    std::filesystem::create_directories(dir, made);
    path = (dir / (request_ids.next() + ".part")).string();
    // A client that asks first (curl does for large bodies) is told to go on rather than left to
    // wait for its own timeout.
    if (beast::iequals(parser.get()[http::field::expect], "100-continue")) {
        static constexpr std::string_view go_on = "HTTP/1.1 100 Continue\r\n\r\n";
        auto [write_error, written] = co_await net::async_write(
            stream, net::buffer(go_on.data(), go_on.size()), net::as_tuple(net::use_awaitable));
        if (write_error) co_return write_error;
    }
    http::request_parser<http::file_body> file_parser(std::move(parser));
    file_parser.body_limit(static_cast<std::uint64_t>(config.limits.bulk_upload_bytes_max));
    beast::error_code error;
    file_parser.get().body().open(path.c_str(), beast::file_mode::write, error);
    if (error) {
        spdlog::error("cannot open upload file {}: {}", path, error.message());
        path.clear();
        co_return http::error::bad_target;  // answered as a malformed request; nothing was read
    }
    while (!file_parser.is_done()) {
        auto [read_error, bytes] = co_await http::async_read_some(
            stream, buffer, file_parser, net::as_tuple(net::use_awaitable));
        if (read_error) co_return read_error;
    }
    file_parser.get().body().close();
    // What the rest of the session reads of the request: its head, with an empty body.
    parser.get().base() = file_parser.get().base();
    co_return beast::error_code{};
}

// After refusing a request mid-body (413, 431, malformed), the client may still be sending. Closing
// at once would make the kernel answer its data with a reset, which can destroy the response before
// the client reads it. So stop sending, then read and discard for a bounded time and size.
net::awaitable<void> linger(tcp::socket& socket, connection_deadline& timeouts) {
    constexpr std::size_t drain_bytes_max = 16 * 1024 * 1024;
    beast::error_code ignored;
    socket.shutdown(tcp::socket::shutdown_send, ignored);
    timeouts.expires_after(std::chrono::seconds(2));
    std::array<char, 16384> sink{};
    std::size_t drained = 0;
    while (drained < drain_bytes_max) {
        auto [error, bytes] =
            co_await socket.async_read_some(net::buffer(sink), net::as_tuple(net::use_awaitable));
        if (error) break;
        drained += bytes;
    }
    timeouts.clear();
}

// Ends a TLS session with close_notify, so the client can tell a complete response from a cut
// connection. The client's own close_notify is not awaited (RFC 8446 section 6.1 allows that):
// marking it as received lets SSL_shutdown finish at once, so Asio only writes ours, and a client
// that does not read gets at most tls_close_timeout. A session whose handshake never finished, or
// whose socket the deadline closed, fails here at once without writing.
constexpr std::chrono::milliseconds tls_close_timeout{1000};

net::awaitable<void> send_close_notify(tls_stream& stream, connection_deadline& timeouts) {
    SSL* ssl = stream.native_handle();
    SSL_set_shutdown(ssl, SSL_get_shutdown(ssl) | SSL_RECEIVED_SHUTDOWN);
    timeouts.expires_after(tls_close_timeout);
    auto [error] = co_await stream.async_shutdown(net::as_tuple(net::use_awaitable));
    (void)error;  // nothing more to do on this connection either way
    timeouts.clear();
}

net::awaitable<void> http_server::impl::accept_loop(core& owner) {
    while (true) {
        auto [error, socket] = co_await owner.acceptor->async_accept(net::as_tuple(net::use_awaitable));
        if (error == net::error::operation_aborted || !owner.acceptor->is_open()) co_return;
        if (error) {
            // Out of descriptors or a transient network error: pause rather than spin.
            spdlog::warn("accept failed: {}", error.message());
            net::steady_timer pause(owner.context, std::chrono::milliseconds(50));
            co_await pause.async_wait(net::as_tuple(net::use_awaitable));
            continue;
        }
        if (owner.sessions.size() >= static_cast<std::size_t>(config.limits.connections_per_core_max)) {
            beast::error_code ignored;
            socket.close(ignored);
            continue;
        }
        beast::error_code ignored;
        socket.set_option(tcp::no_delay(true), ignored);
        auto report = [](std::exception_ptr failure) {
            if (!failure) return;
            try {
                std::rethrow_exception(failure);
            } catch (const std::exception& error) {
                spdlog::error("session ended with an error: {}", error.what());
            }
        };
        if (tls) {
            net::co_spawn(owner.context,
                          run_session(owner, tls_stream(std::move(socket), tls->asio())), report);
        } else {
            net::co_spawn(owner.context, run_session(owner, std::move(socket)), report);
        }
    }
}

http_server::http_server(const api& api, db_pool& database, session_executor& writer,
                         const service_config& config, std::shared_ptr<tls_context> tls,
                         listener_role role)
    : impl_(std::make_unique<impl>(api, database, writer, config, std::move(tls), role)) {}

http_server::~http_server() {
    for (auto& owner : impl_->cores) {
        owner->context.stop();
        if (owner->thread.joinable()) owner->thread.join();
    }
    for (auto& owner : impl_->cores) impl_->flush_access(*owner);
}

std::uint16_t http_server::start() {
    auto& self = *impl_;
    self.access_log = spdlog::get("access");
    self.access_log_batched = self.access_log != nullptr;
    if (!self.access_log) self.access_log = spdlog::default_logger();
    const std::string& listen = self.is_public() ? self.config.listen : self.config.admin_listen;
    const char* setting = self.is_public() ? "listen" : "admin_listen";
    std::string host;
    std::uint16_t port = 0;
    if (!split_host_port(listen, host, port)) {
        throw std::runtime_error(std::string(setting) + " address " + listen + " is not HOST:PORT");
    }
    int threads = self.config.threads > 0 ? self.config.threads
                                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (!self.is_public()) threads = 1;  // a scrape now and then
    beast::error_code ec;
    auto address = net::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
    if (ec)
        throw std::runtime_error(std::string(setting) + " host " + host + " is not an IP address");
    for (int i = 0; i < threads; ++i) {
        auto owner = std::make_unique<core>();
        tcp::endpoint endpoint(address, port);
        owner->acceptor.emplace(owner->context);
        owner->acceptor->open(endpoint.protocol());
        owner->acceptor->set_option(net::socket_base::reuse_address(true));
        // The public port is shared by this process's io threads. The admin port is not shared,
        // so a second process configured with the same admin_listen fails here instead of
        // splitting the scrapes between two processes.
        if (self.is_public()) owner->acceptor->set_option(reuse_port(true));
        owner->acceptor->bind(endpoint, ec);
        if (ec) {
            throw std::runtime_error("cannot listen on " + listen + " (" + setting +
                                     "): " + ec.message());
        }
        owner->acceptor->listen(net::socket_base::max_listen_connections);
        port = owner->acceptor->local_endpoint().port();  // later listeners share the bound port
        self.cores.push_back(std::move(owner));
    }
    for (std::size_t index = 0; index < self.cores.size(); ++index) {
        core& ref = *self.cores[index];
        net::co_spawn(ref.context, self.accept_loop(ref), [](std::exception_ptr failure) {
            if (failure) spdlog::critical("listener stopped with an error");
        });
        std::string thread_name =
            self.is_public() ? "io-" + std::to_string(index) : std::string("admin");
        ref.thread = std::thread([&ref, thread_name] {
            name_this_thread(thread_name);
            ref.context.run();
        });
    }
    CORRIDOR_ASSERT(port != 0);
    return port;
}

int http_server::wait_for_signal(const std::function<void()>& on_hangup) {
    auto& self = *impl_;
    CORRIDOR_ASSERT(self.signals.has_value());
    int received = 0;
    std::function<void(const beast::error_code&, int)> handler;
    handler = [&](const beast::error_code& error, int number) {
        if (!error && number == SIGHUP) {
            if (on_hangup) on_hangup();
            self.signals->async_wait(handler);
            return;
        }
        received = number;
    };
    self.signals->async_wait(handler);
    self.signals_context.run();
    return received;
}

void http_server::drain() {
    auto& self = *impl_;
    self.draining.store(true);
    for (auto& owner : self.cores) {
        core& ref = *owner;
        net::post(ref.context, [&ref] {
            beast::error_code ignored;
            ref.acceptor->close(ignored);
            // Idle keep-alive connections are closed now; busy ones close after their response.
            // An idle TLS session is woken instead (its read fails as aborted) to send its
            // close_notify first, within tls_close_timeout.
            for (auto& slot : ref.sessions) {
                if (!slot.idle) continue;
                if (slot.tls) {
                    slot.socket->cancel(ignored);
                } else {
                    slot.socket->close(ignored);
                }
            }
        });
    }
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::milliseconds(self.config.limits.shutdown_timeout_ms);
    while (self.sessions_open.load() > 0 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (self.sessions_open.load() > 0) {
        spdlog::warn("{} connections still open after the shutdown timeout", self.sessions_open.load());
    }
    for (auto& owner : self.cores) owner->context.stop();
    for (auto& owner : self.cores) {
        if (owner->thread.joinable()) owner->thread.join();
    }
    // Lines whose posted flush did not run before the stop.
    for (auto& owner : self.cores) self.flush_access(*owner);
}

}  // namespace corridor
