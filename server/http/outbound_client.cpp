#include "server/http/outbound_client.hpp"

#include <array>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <future>
#include <map>
#include <optional>
#include <string_view>
#include <thread>

#include "ledger/base/thread_name.hpp"
#include "server/http/address_policy.hpp"
#include "server/http/http_target.hpp"

namespace corridor {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

outbound_response outbound_transport::post_and_wait(outbound_request request) {
    auto promise = std::make_shared<std::promise<outbound_response>>();
    auto answer = promise->get_future();
    post(std::move(request),
         [promise](outbound_response response) { promise->set_value(std::move(response)); });
    return answer.get();
}

void outbound_transport::post_all(std::vector<outbound_call> calls) {
    for (auto& call : calls) post(std::move(call.request), std::move(call.done));
}

namespace {

std::string timeout_or(const beast::error_code& error, std::string_view step) {
    if (error == beast::error::timeout) return std::string(step) + " timed out";
    return std::string(step) + " failed: " + error.message();
}

bool header_safe(std::string_view text) {
    return text.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

// The request line and headers in one buffer, written beside the body: Beast's serializer walked
// its field list and a sequence of buffer views for each webhook, a few microseconds of the
// outbound thread per delivery in the drain's profile. None when a header is empty or could split
// the head.
std::optional<std::string> request_head(const http_target& to, const outbound_request& request) {
    std::string head;
    head.reserve(160 + to.path.size() + to.host.size());
    head.append("POST ").append(to.path).append(" HTTP/1.1\r\nHost: ").append(host_header(to));
    head.append("\r\nUser-Agent: Corridor-Webhooks/1\r\nContent-Type: application/json\r\n");
    for (const auto& [name, value] : request.headers) {
        if (name.empty() || !header_safe(name) || !header_safe(value)) return std::nullopt;
        head.append(name).append(": ").append(value).append("\r\n");
    }
    head.append("Content-Length: ").append(std::to_string(request.body.size())).append("\r\n\r\n");
    return head;
}

}  // namespace

// An open connection to one origin, kept between requests (HTTP/1.1 keep-alive): a new TCP (and
// TLS) connection per webhook costs more than the webhook. Its address was checked when it was
// opened. Only the io thread touches connections and the pool.
struct pooled_connection {
    std::unique_ptr<beast::tcp_stream> plain;
    std::unique_ptr<beast::ssl_stream<beast::tcp_stream>> secure;
    beast::flat_buffer buffer;
    std::chrono::steady_clock::time_point idle_since;
    beast::tcp_stream& tcp() { return secure ? beast::get_lowest_layer(*secure) : *plain; }
};

// What one exchange on a connection came to.
enum class exchange_result {
    answered,  // an HTTP answer (out.status set)
    failed,    // no usable answer (out.error set)
    stale,     // a reused connection that the peer had closed before answering: try a new one
};

struct outbound_client::impl {
    static constexpr auto idle_time_max = std::chrono::seconds(30);

    explicit impl(outbound_options options)
        : options(options), tls(ssl::context::tls_client), guard(net::make_work_guard(context)) {
        tls.set_default_verify_paths();
        tls.set_verify_mode(ssl::verify_peer);
        thread = std::thread([this] {
            name_this_thread("outbound");
            context.run();
        });
    }

    template <class Stream>
    net::awaitable<exchange_result> exchange(Stream& stream, pooled_connection& connection,
                                             const http_target& to, const outbound_request& request,
                                             bool reused, outbound_response& out,
                                             bool& keep_alive) {
        auto head = request_head(to, request);
        if (!head) {
            out.error = "a request header is empty or holds a line break or a NUL";
            co_return exchange_result::failed;
        }
        std::array<net::const_buffer, 2> message{net::buffer(*head), net::buffer(request.body)};
        auto [write_error, written] =
            co_await net::async_write(stream, message, net::as_tuple(net::use_awaitable));
        if (write_error) {
            if (reused) co_return exchange_result::stale;
            out.error = timeout_or(write_error, "sending the request");
            co_return exchange_result::failed;
        }
        http::response_parser<http::string_body> parser;
        parser.body_limit(options.response_body_bytes_max);
        auto [read_error, read] = co_await http::async_read(stream, connection.buffer, parser,
                                                            net::as_tuple(net::use_awaitable));
        if (read_error && read_error != http::error::body_limit) {
            if (reused && !parser.got_some() && read_error != beast::error::timeout)
                co_return exchange_result::stale;
            out.error = timeout_or(read_error, "reading the answer");
            co_return exchange_result::failed;  // a half-read answer is no answer
        }
        out.status = static_cast<int>(parser.get().result_int());
        out.body = parser.get().body();
        keep_alive = !read_error && parser.get().keep_alive();
        if (out.status >= 300 && out.status < 400) out.error = "redirect not followed";
        co_return exchange_result::answered;
    }

    // A new connection to the origin, to an address that passed the policy; null with out.error
    // set.
    net::awaitable<std::unique_ptr<pooled_connection>> open(const http_target& to,
                                                            outbound_response& out) {
        auto executor = co_await net::this_coro::executor;
        // Resolution counts against the connect time-out too: a resolver that hangs is cancelled.
        auto resolver = std::make_shared<tcp::resolver>(executor);
        net::steady_timer resolve_deadline(executor,
                                           std::chrono::milliseconds(options.connect_timeout_ms));
        resolve_deadline.async_wait([resolver](const beast::error_code& error) {
            if (!error) resolver->cancel();
        });
        auto [resolve_error, results] =
            co_await resolver->async_resolve(to.host, to.port, net::as_tuple(net::use_awaitable));
        resolve_deadline.cancel();
        if (resolve_error || results.empty()) {
            out.error = "cannot resolve the webhook endpoint's host";
            co_return nullptr;
        }
        if (!options.allow_private_addresses) {
            for (const auto& entry : results) {
                if (!is_public_address(entry.endpoint().address())) {
                    out.error =
                        "the webhook endpoint resolves to a private, loopback or link-local "
                        "address; refused";
                    co_return nullptr;
                }
            }
        }
        auto connection = std::make_unique<pooled_connection>();
        auto stream = std::make_unique<beast::tcp_stream>(executor);
        stream->expires_after(std::chrono::milliseconds(options.connect_timeout_ms));
        auto [connect_error, connected] =
            co_await stream->async_connect(results, net::as_tuple(net::use_awaitable));
        if (connect_error) {
            out.error = timeout_or(connect_error, "connecting");
            co_return nullptr;
        }
        stream->socket().set_option(tcp::no_delay(true));
        if (!to.tls) {
            connection->plain = std::move(stream);
            co_return connection;
        }
        connection->secure =
            std::make_unique<beast::ssl_stream<beast::tcp_stream>>(std::move(*stream), tls);
        auto& secure = *connection->secure;
        if (!SSL_set_tlsext_host_name(secure.native_handle(), to.host.c_str())) {
            out.error = "cannot set the TLS server name";
            co_return nullptr;
        }
        secure.set_verify_callback(ssl::host_name_verification(to.host));
        beast::get_lowest_layer(secure).expires_after(
            std::chrono::milliseconds(options.response_timeout_ms));
        auto [handshake_error] = co_await secure.async_handshake(ssl::stream_base::client,
                                                                 net::as_tuple(net::use_awaitable));
        if (handshake_error) {
            out.error = timeout_or(handshake_error, "the TLS handshake");
            co_return nullptr;
        }
        co_return connection;
    }

    std::unique_ptr<pooled_connection> take_idle(const std::string& origin) {
        auto found = idle.find(origin);
        auto now = std::chrono::steady_clock::now();
        while (found != idle.end() && !found->second.empty()) {
            auto connection = std::move(found->second.back());
            found->second.pop_back();
            if (now - connection->idle_since < idle_time_max) return connection;
        }
        return nullptr;
    }

    void put_idle(const std::string& origin, std::unique_ptr<pooled_connection> connection) {
        auto& slot = idle[origin];
        if (slot.size() >= options.idle_per_origin_max) return;  // closed by its destructor
        connection->tcp().expires_never();
        connection->idle_since = std::chrono::steady_clock::now();
        slot.push_back(std::move(connection));
    }

    net::awaitable<outbound_response> perform(outbound_request request) {
        outbound_response out;
        std::string problem;
        auto to = parse_http_target(request.url, problem);
        if (!to) {
            out.error = "the webhook endpoint " + problem;
            co_return out;
        }
        std::string origin = (to->tls ? "https://" : "http://") + to->host + ":" + to->port;
        for (int round = 0; round < 2; ++round) {
            // First a kept connection, if any; a stale one is dropped and a new one opened.
            auto connection = round == 0 ? take_idle(origin) : nullptr;
            bool reused = connection != nullptr;
            if (!connection) connection = co_await open(*to, out);
            if (!connection) co_return out;
            connection->tcp().expires_after(std::chrono::milliseconds(options.response_timeout_ms));
            bool keep_alive = false;
            exchange_result result = connection->secure
                                         ? co_await exchange(*connection->secure, *connection, *to,
                                                             request, reused, out, keep_alive)
                                         : co_await exchange(*connection->plain, *connection, *to,
                                                             request, reused, out, keep_alive);
            if (result == exchange_result::stale) continue;
            if (result == exchange_result::answered && keep_alive)
                put_idle(origin, std::move(connection));
            co_return out;
        }
        out.error = "the connection was closed before an answer";
        co_return out;
    }

    // Starts one request; `done` gets its answer with the latency counted from `started`.
    void spawn(outbound_request request, std::function<void(outbound_response)> done,
               std::chrono::steady_clock::time_point started) {
        net::co_spawn(context, perform(std::move(request)),
                      [done = std::move(done), started](std::exception_ptr failure,
                                                        outbound_response response) {
                          if (failure) {
                              response = outbound_response{};
                              response.error = "internal error while sending";
                          }
                          response.latency_ms =
                              std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::steady_clock::now() - started)
                                  .count();
                          done(std::move(response));
                      });
    }

    outbound_options options;
    net::io_context context;
    ssl::context tls;
    net::executor_work_guard<net::io_context::executor_type> guard;
    std::thread thread;
    std::map<std::string, std::vector<std::unique_ptr<pooled_connection>>> idle;  // by origin
};

outbound_client::outbound_client(outbound_options options)
    : impl_(std::make_unique<impl>(options)) {}

outbound_client::~outbound_client() {
    stop();
}

void outbound_client::post(outbound_request request, std::function<void(outbound_response)> done) {
    impl_->spawn(std::move(request), std::move(done), std::chrono::steady_clock::now());
}

// One hand-over to the io thread for the whole batch: posting each request on its own woke the
// thread (a system call on each side) once per webhook.
void outbound_client::post_all(std::vector<outbound_call> calls) {
    if (calls.empty()) return;
    net::post(impl_->context, [impl = impl_.get(), calls = std::move(calls),
                               started = std::chrono::steady_clock::now()]() mutable {
        for (auto& call : calls)
            impl->spawn(std::move(call.request), std::move(call.done), started);
    });
}

void outbound_client::stop() {
    if (!impl_ || !impl_->thread.joinable()) return;
    impl_->guard.reset();
    impl_->context.stop();
    impl_->thread.join();
}

}  // namespace corridor
