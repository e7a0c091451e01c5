#pragma once
// How long a connection may take and how it ends: the deadline a watchdog enforces, the bounded
// read-and-discard after a refusal, and TLS close_notify. Private to server/http (Asio).
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <chrono>
#include <memory>
#include <type_traits>

namespace corridor {
namespace net = boost::asio;
using tcp = net::ip::tcp;
// A session runs on either stream; the plaintext one is the bare socket, as before TLS existed.
using tls_stream = net::ssl::stream<tcp::socket>;
template <class Stream>
constexpr bool is_tls = std::is_same_v<Stream, tls_stream>;

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

// The watchdog of `state`, spawned on the connection's io_context when the session starts.
net::awaitable<void> watch_deadline(std::shared_ptr<connection_deadline> state);

// After refusing a request mid-body (413, 431, malformed), the client may still be sending. Stops
// sending, then reads and discards for a bounded time and size (see connection_timeouts.cpp).
net::awaitable<void> linger(tcp::socket& socket, connection_deadline& timeouts);

// Ends a TLS session with close_notify, within a bounded time (see connection_timeouts.cpp).
net::awaitable<void> send_close_notify(tls_stream& stream, connection_deadline& timeouts);

}  // namespace corridor
