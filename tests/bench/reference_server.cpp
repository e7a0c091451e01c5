// The benchmark's reference: the smallest fast HTTP/1.1 server Boost.Beast and C++20 coroutines
// make straightforward, built with the same compiler and flags as corridor. One io_context per
// thread (concurrency hint 1, as in corridor), one SO_REUSEPORT listener each, keep-alive, and a
// fixed JSON body for every request. It does no routing, authentication, logging or metrics, and
// uses a plain socket without timeouts: what corridor adds on top is what the ratio measures.
//
// usage: corridor_bench_reference [--listen HOST:PORT] [--threads N]
//                                 [--body-file FILE | --body-bytes N]
// Prints "reference listening on http://HOST:PORT" once every listener is bound, then serves until
// SIGTERM or SIGINT.
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using reuse_port = net::detail::socket_option::boolean<SOL_SOCKET, SO_REUSEPORT>;

namespace {

struct options {
    std::string host = "127.0.0.1";
    unsigned short port = 0;
    int threads = 0;
    std::string body_file;
    std::size_t body_bytes = 1857;  // a default platform's GET /config
};

[[noreturn]] void usage(const std::string& problem) {
    std::cerr << "corridor_bench_reference: " << problem << "\n"
              << "usage: corridor_bench_reference [--listen HOST:PORT] [--threads N]"
                 " [--body-file FILE | --body-bytes N]\n";
    std::exit(2);
}

options parse_options(int argc, char** argv) {
    options parsed;
    for (int i = 1; i < argc; ++i) {
        std::string_view name = argv[i];
        if (i + 1 >= argc) usage(std::string(name) + " needs a value");
        std::string value = argv[++i];
        try {
            if (name == "--listen") {
                auto colon = value.rfind(':');
                if (colon == std::string::npos) usage("--listen takes HOST:PORT");
                parsed.host = value.substr(0, colon);
                parsed.port = static_cast<unsigned short>(std::stoul(value.substr(colon + 1)));
            } else if (name == "--threads") {
                parsed.threads = std::stoi(value);
            } else if (name == "--body-file") {
                parsed.body_file = value;
            } else if (name == "--body-bytes") {
                parsed.body_bytes = std::stoul(value);
            } else {
                usage("unknown option " + std::string(name));
            }
        } catch (const std::logic_error&) {
            usage("bad value for " + std::string(name));
        }
    }
    if (parsed.threads <= 0) parsed.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return parsed;
}

// A syntactically valid JSON object of exactly `bytes` bytes (at least 12).
std::string filler_json(std::size_t bytes) {
    std::string head = R"({"filler":")";
    std::string tail = R"("})";
    std::size_t fill = bytes > head.size() + tail.size() ? bytes - head.size() - tail.size() : 0;
    return head + std::string(fill, 'x') + tail;
}

std::string load_body(const options& parsed) {
    if (parsed.body_file.empty()) return filler_json(parsed.body_bytes);
    std::ifstream in(parsed.body_file, std::ios::binary);
    if (!in) usage("cannot read " + parsed.body_file);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

net::awaitable<void> serve(tcp::socket socket, std::string_view body) {
    beast::flat_buffer buffer;
    http::response<http::span_body<const char>> response{http::status::ok, 11};
    response.set(http::field::content_type, "application/json");
    response.body() = {body.data(), body.size()};
    response.prepare_payload();
    while (true) {
        http::request<http::string_body> request;
        auto [read_error, read] =
            co_await http::async_read(socket, buffer, request, net::as_tuple(net::use_awaitable));
        if (read_error) break;
        response.version(request.version());
        response.keep_alive(request.keep_alive());
        auto [write_error, written] =
            co_await http::async_write(socket, response, net::as_tuple(net::use_awaitable));
        if (write_error || !response.keep_alive()) break;
    }
    beast::error_code ignored;
    socket.shutdown(tcp::socket::shutdown_send, ignored);
}

net::awaitable<void> accept_loop(tcp::acceptor& acceptor, std::string_view body) {
    while (true) {
        auto [error, socket] = co_await acceptor.async_accept(net::as_tuple(net::use_awaitable));
        if (!acceptor.is_open()) co_return;
        if (error) continue;
        beast::error_code ignored;
        socket.set_option(tcp::no_delay(true), ignored);
        net::co_spawn(acceptor.get_executor(), serve(std::move(socket), body), net::detached);
    }
}

struct worker {
    net::io_context context{1};
    tcp::acceptor acceptor{context};
    std::thread thread;
};

}  // namespace

int main(int argc, char** argv) {
    options parsed = parse_options(argc, argv);
    const std::string body = load_body(parsed);

    beast::error_code ec;
    auto address = net::ip::make_address(parsed.host, ec);
    if (ec) usage("listen host " + parsed.host + " is not an IP address");
    unsigned short port = parsed.port;
    std::vector<std::unique_ptr<worker>> workers;
    for (int i = 0; i < parsed.threads; ++i) {
        auto& owner = *workers.emplace_back(std::make_unique<worker>());
        tcp::endpoint endpoint(address, port);
        owner.acceptor.open(endpoint.protocol());
        owner.acceptor.set_option(net::socket_base::reuse_address(true));
        owner.acceptor.set_option(reuse_port(true));
        owner.acceptor.bind(endpoint, ec);
        if (ec) {
            std::cerr << "corridor_bench_reference: cannot bind: " << ec.message() << "\n";
            return 1;
        }
        owner.acceptor.listen(net::socket_base::max_listen_connections);
        port = owner.acceptor.local_endpoint().port();  // later listeners share the bound port
    }

    net::io_context signals_context{1};
    net::signal_set signals(signals_context, SIGTERM, SIGINT);
    signals.async_wait([](const beast::error_code&, int) {});

    for (auto& owner : workers) {
        net::co_spawn(owner->context, accept_loop(owner->acceptor, body), net::detached);
        owner->thread = std::thread([&context = owner->context] { context.run(); });
    }
    std::cout << "reference listening on http://" << parsed.host << ":" << port << " with "
              << parsed.threads << " threads, " << body.size() << "-byte body" << std::endl;

    signals_context.run();
    for (auto& owner : workers) owner->context.stop();
    for (auto& owner : workers) owner->thread.join();
    return 0;
}
