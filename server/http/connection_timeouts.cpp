#include "server/http/connection_timeouts.hpp"

#include <openssl/ssl.h>

#include <array>
#include <boost/beast/core/error.hpp>

namespace corridor {
namespace beast = boost::beast;

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

}  // namespace corridor
