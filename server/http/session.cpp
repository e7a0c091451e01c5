// One connection of the HTTP server: its TLS handshake, then request after request (read the head,
// the body where its route wants it, answer, write the response), then its close.
#include <spdlog/spdlog.h>

#include <array>
#include <boost/beast/http/file_body.hpp>
#include <cstdio>
#include <filesystem>

#include "server/api/errors.hpp"
#include "server/http/response_head.hpp"
#include "server/http/server_impl.hpp"
#include "server/process/config.hpp"

namespace corridor {

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

std::string remote_address_of(tcp::socket& socket) {
    beast::error_code ec;
    auto endpoint = socket.remote_endpoint(ec);
    return ec ? std::string() : endpoint.address().to_string();
}

// Bounded like a request head, so a client that connects and says nothing is let go.
net::awaitable<bool> tls_handshake(tls_stream& stream, connection_deadline& timeouts,
                                   std::int64_t timeout_ms, const std::string& remote) {
    timeouts.expires_after(std::chrono::milliseconds(timeout_ms));
    auto [handshake_error] = co_await stream.async_handshake(net::ssl::stream_base::server,
                                                             net::as_tuple(net::use_awaitable));
    timeouts.clear();
    if (handshake_error) {
        // Scanners and plaintext clients end up here: worth a debug line, not a warning.
        spdlog::debug("TLS handshake with {} failed: {}", remote, handshake_error.message());
        co_return false;
    }
    co_return true;
}

// Whether the read ended the session without a response: the client left or went quiet, or the
// server is shutting down; on TLS also a cut connection or a broken record. `peer_listening` says
// whether the peer can still take our close_notify (TLS only).
template <class Stream>
bool ends_session(const beast::error_code& read_error, bool& peer_listening) {
    if (read_error == http::error::end_of_stream || read_error == beast::error::timeout ||
        read_error == net::error::operation_aborted || read_error == net::error::connection_reset ||
        read_error == net::error::eof || read_error == net::error::bad_descriptor) {
        if constexpr (is_tls<Stream>) {
            // A clean end (the client's close_notify) or our own shutdown still gets ours.
            peer_listening = read_error == http::error::end_of_stream ||
                             read_error == net::error::eof ||
                             read_error == net::error::operation_aborted;
        }
        return true;
    }
    if constexpr (is_tls<Stream>) {
        // A cut connection or a broken TLS record: nothing more can be said on this stream.
        if (read_error == net::ssl::error::stream_truncated ||
            read_error.category() == net::error::get_ssl_category()) {
            peer_listening = false;
            return true;
        }
    }
    return false;
}

// The answer to a request that could not be read; the connection closes after it.
http_response refusal_of(const beast::error_code& read_error, std::int64_t body_bytes_max) {
    if (read_error == http::error::body_limit) {
        return error_response(error_code::payload_too_large,
                              "request body exceeds " + std::to_string(body_bytes_max) + " bytes");
    }
    if (read_error == http::error::header_limit) {
        return error_response(error_code::header_too_large, "request headers are too large");
    }
    return error_response(error_code::invalid_input, "malformed HTTP request");
}

template <class Stream>
net::awaitable<beast::error_code> write_response(Stream& stream, http_response& response,
                                                 std::string_view request_id, bool keep_alive,
                                                 std::string& head, head_fields& fields,
                                                 connection_deadline& timeouts,
                                                 std::int64_t write_timeout_ms) {
    write_response_head(head, fields, response, request_id, keep_alive);
    std::array<net::const_buffer, 2> response_bytes{net::buffer(head), net::buffer(response.body)};
    if constexpr (is_tls<Stream>) {
        // An SSL stream writes one buffer per record: head and body together make one record
        // (or the fewest) and one send instead of two.
        head.append(response.body);
        response_bytes = {net::buffer(head), net::const_buffer()};
    }
    timeouts.expires_after(std::chrono::milliseconds(write_timeout_ms));
    auto [write_error, written] =
        co_await net::async_write(stream, response_bytes, net::as_tuple(net::use_awaitable));
    timeouts.clear();
    co_return write_error;
}

struct remove_file {
    std::string& path;
    ~remove_file() {
        if (!path.empty()) std::remove(path.c_str());
    }
};

}  // namespace

http_server::impl::session_registration::session_registration(impl& self, core& owner,
                                                              tcp::socket& socket, bool tls)
    : self(self),
      owner(owner),
      slot(owner.sessions.insert(owner.sessions.end(), session_slot{&socket, true, tls})) {
    self.sessions_open.fetch_add(1);
    if (self.is_public()) self.app.services().stats->connection_opened();
    timeouts = std::make_shared<connection_deadline>(owner.context, socket);
    net::co_spawn(owner.context, watch_deadline(timeouts), [](std::exception_ptr failure) {
        if (failure) spdlog::error("connection deadline watchdog ended with an error");
    });
}

http_server::impl::session_registration::~session_registration() {
    timeouts->finished = true;
    timeouts->timer.cancel();
    owner.sessions.erase(slot);
    self.sessions_open.fetch_sub(1);
    if (self.is_public()) self.app.services().stats->connection_closed();
}

template <class Stream>
net::awaitable<void> http_server::impl::run_session(core& owner, Stream stream) {
    tcp::socket& socket = beast::get_lowest_layer(stream);
    std::string remote = remote_address_of(socket);
    session_registration registered(*this, owner, socket, is_tls<Stream>);
    session_slot& slot = *registered.slot;
    connection_deadline& timeouts = *registered.timeouts;
    if constexpr (is_tls<Stream>) {
        if (!co_await tls_handshake(stream, timeouts, config.tls.handshake_timeout_ms, remote))
            co_return;
    }
    // Whether the peer can still take our close_notify when the session ends (TLS only).
    [[maybe_unused]] bool peer_listening = true;
    beast::flat_buffer buffer;
    std::string response_head;
    head_fields response_fields;
    while (!draining.load(std::memory_order_relaxed)) {
        http::request_parser<http::string_body> parser;
        std::string body_file;  // set when the body went to disk
        std::int64_t body_bytes_max = config.limits.request_body_bytes_max;
        slot.idle = buffer.size() == 0;
        auto read_error =
            co_await read_request(stream, buffer, parser, timeouts, body_file, body_bytes_max);
        remove_file body_file_cleanup{body_file};
        timeouts.clear();
        slot.idle = false;
        auto started = std::chrono::steady_clock::now();
        if (ends_session<Stream>(read_error, peer_listening)) break;
        http_response response;
        std::shared_ptr<const http_request> request;
        bool close_after = static_cast<bool>(read_error);
        if (read_error) {
            response = refusal_of(read_error, body_bytes_max);
        } else {
            auto built = to_request(parser.get(), std::move(parser.get().body()), remote);
            built->body_file = body_file;
            request = std::move(built);
            response = co_await answer(owner, request);
        }

        std::string generated_id;
        if (!request) generated_id = request_ids.next();
        std::string_view request_id =
            request ? std::string_view(request->request_id) : generated_id;
        bool keep_alive = !close_after && !read_error && parser.get().keep_alive() &&
                          !draining.load(std::memory_order_relaxed);
        auto write_error = co_await write_response(stream, response, request_id, keep_alive,
                                                   response_head, response_fields, timeouts,
                                                   config.limits.response_write_timeout_ms);
        record_request(owner, request.get(), response, read_error ? nullptr : &parser.get(),
                       started);
        if (!write_error && close_after) {
            if constexpr (is_tls<Stream>) {
                co_await send_close_notify(stream, timeouts);
                peer_listening = false;  // said already
            }
            co_await linger(socket, timeouts);
        }
        if (write_error) peer_listening = false;
        if (write_error || !keep_alive) break;
    }
    if constexpr (is_tls<Stream>) {
        if (peer_listening) co_await send_close_notify(stream, timeouts);
    }
    beast::error_code ignored;
    socket.shutdown(tcp::socket::shutdown_send, ignored);
    co_return;
}

// The head is read first: which body limit applies, and whether the body goes to memory or to
// disk, depends on the route. A declared length above the route's limit is refused before any of
// the body is read.
template <class Stream>
net::awaitable<beast::error_code> http_server::impl::read_request(
    Stream& stream, beast::flat_buffer& buffer, http::request_parser<http::string_body>& parser,
    connection_deadline& timeouts, std::string& body_file, std::int64_t& body_bytes_max) {
    const auto& limits = config.limits;
    parser.header_limit(static_cast<std::uint32_t>(limits.request_header_bytes_max));
    parser.body_limit(boost::none);
    timeouts.expires_after(std::chrono::milliseconds(limits.request_timeout_ms));
    auto [read_error, head_bytes] =
        co_await http::async_read_header(stream, buffer, parser, net::as_tuple(net::use_awaitable));
    (void)head_bytes;
    if (read_error) co_return read_error;
    const auto& head = parser.get();
    bool to_file = app.body_to_file(method_of(head.method()), head.target());
    if (to_file) body_bytes_max = limits.bulk_upload_bytes_max;
    auto declared = parser.content_length();
    if (declared && *declared > static_cast<std::uint64_t>(body_bytes_max)) {
        co_return beast::error_code(http::error::body_limit);
    }
    if (to_file) co_return co_await read_body_to_file(stream, buffer, parser, body_file);
    parser.body_limit(static_cast<std::uint64_t>(body_bytes_max));
    beast::error_code error = parse_buffered_body(parser, buffer);
    if (!error && !parser.is_done()) {
        auto [body_error, body_bytes] =
            co_await http::async_read(stream, buffer, parser, net::as_tuple(net::use_awaitable));
        error = body_error;
    }
    co_return error;
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
    request->request_id =
        given && valid_request_id(*given) ? std::string(*given) : request_ids.next();
    return request;
}

net::awaitable<http_response> http_server::impl::answer(
    core& owner, std::shared_ptr<const http_request> request) {
    auto plan = app.plan(request);
    if (plan.immediate) co_return std::move(*plan.immediate);
    std::optional<http_response> early;
    if (plan.prepare) early = co_await run_prepare(owner, std::move(plan.prepare));
    if (early) co_return std::move(*early);
    session_executor& executor = plan.on_ledger_writer ? writer : database;
    co_return co_await run_job(owner, executor, std::move(plan.job));
}

void http_server::impl::record_request(core& owner, const http_request* request,
                                       const http_response& response,
                                       const http::request<http::string_body>* head,
                                       std::chrono::steady_clock::time_point started) {
    auto duration_us = std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::steady_clock::now() - started)
                           .count();
    // The admin routes are not in the public route table the metrics are labelled by.
    if (is_public())
        app.services().stats->observe_request(response.route_index, response.status, duration_us);
    http::verb verb = head ? head->method() : http::verb::unknown;
    std::string_view target = head ? std::string_view(head->target()) : std::string_view();
    log_access(owner, request, response, verb, target, duration_us, response.body.size());
}

// The two streams accept_loop runs sessions on.
template net::awaitable<void> http_server::impl::run_session(core& owner, tcp::socket stream);
template net::awaitable<void> http_server::impl::run_session(core& owner, tls_stream stream);

}  // namespace corridor
