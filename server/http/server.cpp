#include "server/http/server.hpp"

#include <spdlog/spdlog.h>

#include <thread>

#include "ledger/base/assert.hpp"
#include "ledger/base/thread_name.hpp"
#include "server/http/server_impl.hpp"
#include "server/http/tls_context_detail.hpp"
#include "server/process/access_log.hpp"
#include "server/process/config.hpp"

namespace corridor {
using reuse_port = net::detail::socket_option::boolean<SOL_SOCKET, SO_REUSEPORT>;

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

net::awaitable<void> http_server::impl::accept_loop(core& owner) {
    while (true) {
        auto [error, socket] =
            co_await owner.acceptor->async_accept(net::as_tuple(net::use_awaitable));
        if (error == net::error::operation_aborted || !owner.acceptor->is_open()) co_return;
        if (error) {
            // Out of descriptors or a transient network error: pause rather than spin.
            spdlog::warn("accept failed: {}", error.message());
            net::steady_timer pause(owner.context, std::chrono::milliseconds(50));
            co_await pause.async_wait(net::as_tuple(net::use_awaitable));
            continue;
        }
        if (owner.sessions.size() >=
            static_cast<std::size_t>(config.limits.connections_per_core_max)) {
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
    int threads = self.config.threads > 0
                      ? self.config.threads
                      : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (!self.is_public()) threads = 1;  // a scrape now and then
    beast::error_code ec;
    auto address = net::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
    if (ec)
        throw std::runtime_error(std::string(setting) + " host " + host + " is not an IP address");
    for (int i = 0; i < threads; ++i) {
        auto owner = std::make_unique<impl::core>();
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
        impl::core& ref = *self.cores[index];
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
        impl::core& ref = *owner;
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
        spdlog::warn("{} connections still open after the shutdown timeout",
                     self.sessions_open.load());
    }
    for (auto& owner : self.cores) owner->context.stop();
    for (auto& owner : self.cores) {
        if (owner->thread.joinable()) owner->thread.join();
    }
    // Lines whose posted flush did not run before the stop.
    for (auto& owner : self.cores) self.flush_access(*owner);
}

}  // namespace corridor
