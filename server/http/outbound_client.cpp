#include "server/http/outbound_client.hpp"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/url/parse.hpp>

#include <chrono>
#include <future>
#include <thread>

#include "server/webhooks/address_policy.hpp"

namespace corridor {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

outbound_response outbound_transport::post_and_wait(outbound_request request) {
    auto promise = std::make_shared<std::promise<outbound_response>>();
    auto answer = promise->get_future();
    post(std::move(request), [promise](outbound_response response) { promise->set_value(std::move(response)); });
    return answer.get();
}

namespace {

struct target {
    bool tls = false;
    std::string host, port, path;
};

// nullopt with `error` set when the URL is not one we send to.
std::optional<target> parse_target(const std::string& url, std::string& error) {
    auto parsed = boost::urls::parse_absolute_uri(url);
    if (!parsed) {
        error = "the webhook endpoint is not an absolute URL";
        return std::nullopt;
    }
    target out;
    std::string scheme(parsed->scheme());
    if (scheme == "https") out.tls = true;
    else if (scheme != "http") {
        error = "the webhook endpoint must be http or https";
        return std::nullopt;
    }
    // Without the brackets of an IPv6 literal, percent-decoded.
    out.host = std::string(parsed->host_address());
    if (out.host.empty()) {
        error = "the webhook endpoint has no host";
        return std::nullopt;
    }
    out.port = parsed->has_port() ? std::string(parsed->port()) : (out.tls ? "443" : "80");
    out.path = std::string(parsed->encoded_path());
    if (out.path.empty()) out.path = "/";
    if (parsed->has_query()) out.path += "?" + std::string(parsed->encoded_query());
    return out;
}

bool address_allowed(const net::ip::address& address) {
    if (address.is_v4()) {
        auto bytes = address.to_v4().to_bytes();
        return is_public_address(bytes);
    }
    auto bytes = address.to_v6().to_bytes();
    return is_public_address(bytes);
}

std::string timeout_or(const beast::error_code& error, std::string_view step) {
    if (error == beast::error::timeout) return std::string(step) + " timed out";
    return std::string(step) + " failed: " + error.message();
}

}  // namespace

struct outbound_client::impl {
    explicit impl(outbound_options options)
        : options(options), tls(ssl::context::tls_client), guard(net::make_work_guard(context)) {
        tls.set_default_verify_paths();
        tls.set_verify_mode(ssl::verify_peer);
        thread = std::thread([this] { context.run(); });
    }

    template <class Stream>
    net::awaitable<void> exchange(Stream& stream, const target& to, const outbound_request& request,
                                  outbound_response& out) {
        http::request<http::string_body> message{http::verb::post, to.path, 11};
        message.set(http::field::host, to.host);
        message.set(http::field::user_agent, "Corridor-Webhooks/1");
        message.set(http::field::content_type, "application/json");
        message.set(http::field::connection, "close");
        for (const auto& [name, value] : request.headers) message.set(name, value);
        message.body() = request.body;
        message.prepare_payload();
        auto [write_error, written] = co_await http::async_write(stream, message, net::as_tuple(net::use_awaitable));
        if (write_error) {
            out.error = timeout_or(write_error, "sending the request");
            co_return;
        }
        beast::flat_buffer buffer;
        http::response_parser<http::string_body> parser;
        parser.body_limit(options.response_body_bytes_max);
        auto [read_error, read] = co_await http::async_read(stream, buffer, parser, net::as_tuple(net::use_awaitable));
        if (parser.is_header_done()) out.status = static_cast<int>(parser.get().result_int());
        out.body = parser.get().body();
        if (read_error && read_error != http::error::body_limit) {
            if (!parser.is_header_done()) out.status = 0;
            out.error = timeout_or(read_error, "reading the answer");
            if (out.status != 0) out.status = 0;  // a half-read answer is no answer
            co_return;
        }
        if (out.status >= 300 && out.status < 400) out.error = "redirect not followed";
    }

    net::awaitable<outbound_response> perform(outbound_request request) {
        outbound_response out;
        std::string error;
        auto to = parse_target(request.url, error);
        if (!to) {
            out.error = error;
            co_return out;
        }
        auto executor = co_await net::this_coro::executor;
        // Resolution counts against the connect time-out too: a resolver that hangs is cancelled.
        auto resolver = std::make_shared<tcp::resolver>(executor);
        net::steady_timer resolve_deadline(executor, std::chrono::milliseconds(options.connect_timeout_ms));
        resolve_deadline.async_wait([resolver](const beast::error_code& error) {
            if (!error) resolver->cancel();
        });
        auto [resolve_error, results] =
            co_await resolver->async_resolve(to->host, to->port, net::as_tuple(net::use_awaitable));
        resolve_deadline.cancel();
        if (resolve_error || results.empty()) {
            out.error = "cannot resolve the webhook endpoint's host";
            co_return out;
        }
        if (!options.allow_private_addresses) {
            for (const auto& entry : results) {
                if (!address_allowed(entry.endpoint().address())) {
                    out.error = "the webhook endpoint resolves to a private, loopback or link-local "
                                "address; refused";
                    co_return out;
                }
            }
        }
        beast::tcp_stream stream(executor);
        stream.expires_after(std::chrono::milliseconds(options.connect_timeout_ms));
        auto [connect_error, connected] = co_await stream.async_connect(results, net::as_tuple(net::use_awaitable));
        if (connect_error) {
            out.error = timeout_or(connect_error, "connecting");
            co_return out;
        }
        stream.expires_after(std::chrono::milliseconds(options.response_timeout_ms));
        if (!to->tls) {
            co_await exchange(stream, *to, request, out);
            beast::error_code ignored;
            stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
            co_return out;
        }
        beast::ssl_stream<beast::tcp_stream> secure(std::move(stream), tls);
        if (!SSL_set_tlsext_host_name(secure.native_handle(), to->host.c_str())) {
            out.error = "cannot set the TLS server name";
            co_return out;
        }
        secure.set_verify_callback(ssl::host_name_verification(to->host));
        auto [handshake_error] = co_await secure.async_handshake(ssl::stream_base::client, net::as_tuple(net::use_awaitable));
        if (handshake_error) {
            out.error = timeout_or(handshake_error, "the TLS handshake");
            co_return out;
        }
        co_await exchange(secure, *to, request, out);
        co_return out;
    }

    outbound_options options;
    net::io_context context;
    ssl::context tls;
    net::executor_work_guard<net::io_context::executor_type> guard;
    std::thread thread;
};

outbound_client::outbound_client(outbound_options options) : impl_(std::make_unique<impl>(options)) {}

outbound_client::~outbound_client() { stop(); }

void outbound_client::post(outbound_request request, std::function<void(outbound_response)> done) {
    auto started = std::chrono::steady_clock::now();
    net::co_spawn(impl_->context, impl_->perform(std::move(request)),
                  [done = std::move(done), started](std::exception_ptr failure, outbound_response response) {
                      if (failure) {
                          response = outbound_response{};
                          response.error = "internal error while sending";
                      }
                      response.latency_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                                std::chrono::steady_clock::now() - started)
                                                .count();
                      done(std::move(response));
                  });
}

void outbound_client::stop() {
    if (!impl_ || !impl_->thread.joinable()) return;
    impl_->guard.reset();
    impl_->context.stop();
    impl_->thread.join();
}

}  // namespace corridor
