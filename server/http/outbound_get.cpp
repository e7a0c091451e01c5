#include "server/http/outbound_get.hpp"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <optional>

#include "server/http/address_policy.hpp"
#include "server/http/http_target.hpp"

namespace corridor {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;


// A GET without a body, or a POST of `body` as JSON.
template <class Stream>
net::awaitable<uma::http_reply> exchange(Stream& stream, const http_target& where,
                                         const std::string* body, std::size_t body_max) {
    http::request<http::string_body> request{body ? http::verb::post : http::verb::get, where.path,
                                             11};
    request.set(http::field::host, host_header(where));
    request.set(http::field::user_agent, "corridor");
    request.set(http::field::accept, "application/json");
    if (body) {
        request.set(http::field::content_type, "application/json");
        request.body() = *body;
        request.prepare_payload();
    }
    co_await http::async_write(stream, request, net::use_awaitable);
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(body_max);
    co_await http::async_read(stream, buffer, parser, net::use_awaitable);
    co_return uma::http_reply{static_cast<int>(parser.get().result_int()), parser.get().body()};
}

}  // namespace

result<uma::http_reply, std::string> outbound_get::get(const std::string& url) {
    return send(url, nullptr);
}

result<uma::http_reply, std::string> outbound_get::post_json(const std::string& url,
                                                             const std::string& body) {
    return send(url, &body);
}

result<uma::http_reply, std::string> outbound_get::send(const std::string& url,
                                                        const std::string* body) {
    std::string problem;
    auto where = parse_http_target(url, problem);
    if (!where) return std::string("not an http(s) URL");
    // Declared before the io_context: its handlers refer to them until it is destroyed.
    std::optional<uma::http_reply> reply;
    std::string failure = "timed out";
    net::io_context io;
    auto run = [&]() -> net::awaitable<void> {
        tcp::resolver resolver(io);
        auto found = co_await resolver.async_resolve(where->host, where->port, net::use_awaitable);
        std::vector<tcp::endpoint> allowed;
        for (const auto& entry : found) {
            if (limits_.allow_private_addresses || is_public_address(entry.endpoint().address())) {
                allowed.push_back(entry.endpoint());
            }
        }
        if (allowed.empty()) {
            failure = "the host resolves only to private addresses";
            co_return;
        }
        beast::tcp_stream tcp_stream(io);
        co_await tcp_stream.async_connect(allowed, net::use_awaitable);
        if (!where->tls) {
            reply = co_await exchange(tcp_stream, *where, body, limits_.body_bytes_max);
            co_return;
        }
        net::ssl::context tls(net::ssl::context::tls_client);
        tls.set_default_verify_paths();
        tls.set_verify_mode(net::ssl::verify_peer);
        beast::ssl_stream<beast::tcp_stream> secure(std::move(tcp_stream), tls);
        secure.set_verify_callback(net::ssl::host_name_verification(where->host));
        SSL_set_tlsext_host_name(secure.native_handle(), where->host.c_str());
        co_await secure.async_handshake(net::ssl::stream_base::client, net::use_awaitable);
        reply = co_await exchange(secure, *where, body, limits_.body_bytes_max);
    };
    net::co_spawn(io, run(), [&](std::exception_ptr error) {
        if (!error) return;
        // The error's own words ("Connection refused"), never an exception's text: that names
        // source files and travels to clients in error messages.
        try {
            std::rethrow_exception(error);
        } catch (const boost::system::system_error& caught) {
            failure = caught.code().message();
        } catch (const std::exception&) {
            failure = "the exchange failed";
        }
    });
    io.run_for(std::chrono::milliseconds(limits_.timeout_ms));
    if (!reply) return failure;
    return *reply;
}

}  // namespace corridor
