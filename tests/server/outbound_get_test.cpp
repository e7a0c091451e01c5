#include "server/http/outbound_get.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <thread>

#include "server/http/address_policy.hpp"
#include "server/http/outbound_client.hpp"

using namespace corridor;

namespace {

// What the UMA client (and the webhook client) would decide for a resolved address.
bool refused(const char* text) {
    return !is_public_address(boost::asio::ip::make_address(text));
}

}  // namespace

TEST_CASE("outbound requests treat private, loopback and link-local addresses as private",
          "[outbound]") {
    for (const char* address :
         {"127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
          "100.64.0.1", "0.0.0.0", "::1", "::", "fe80::1", "fc00::1", "fd12::1", "::ffff:127.0.0.1",
          "::ffff:10.0.0.1", "224.0.0.1",
          // Refused by the webhook client but reachable by the UMA client while each had its own
          // rule: NAT64 and IPv4-compatible forms of private addresses, documentation ranges.
          "64:ff9b::10.0.0.1", "64:ff9b::169.254.169.254", "::10.0.0.1", "192.0.2.1",
          "198.51.100.7", "203.0.113.9", "198.18.0.1", "2001:db8::1"}) {
        INFO(address);
        CHECK(refused(address));
    }
    for (const char* address : {"8.8.8.8", "172.32.0.1", "192.169.0.1", "100.128.0.1",
                                "2001:4860:4860::8888", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8"}) {
        INFO(address);
        CHECK_FALSE(refused(address));
    }
}

TEST_CASE("an outbound GET to a loopback address is refused unless allowed", "[outbound]") {
    outbound_get refusing({false, 2000, 1024});
    auto refused = refusing.get("http://127.0.0.1:9/.well-known/lnurlpubkey");
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().find("private") != std::string::npos);
    CHECK_FALSE(refusing.get("ftp://example.com/").ok());
    CHECK_FALSE(refusing.get("not a url").ok());
    // Allowed, the connection itself fails (nothing listens on port 9): an error, not a hang.
    outbound_get allowing({true, 2000, 1024});
    auto unanswered = allowing.get("http://127.0.0.1:9/");
    REQUIRE_FALSE(unanswered.ok());
    // The failure in words a client may read: no exception text naming source files.
    CHECK(unanswered.error() == "Connection refused");
}

namespace {

// A one-shot HTTP server on a loopback port: reads one request (head and Content-Length body),
// keeps it, and answers 200 with a fixed body.
struct one_shot_server {
    int listener = -1;
    int port = 0;
    std::string received;
    std::thread worker;

    one_shot_server() {
        listener = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        socklen_t length = sizeof address;
        ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
        port = ntohs(address.sin_port);
        REQUIRE(::listen(listener, 1) == 0);
        worker = std::thread([this] { serve(); });
    }
    ~one_shot_server() {
        worker.join();
        ::close(listener);
    }
    void serve() {
        int connection = ::accept(listener, nullptr, nullptr);
        if (connection < 0) return;
        char buffer[4096];
        while (true) {
            auto head_end = received.find("\r\n\r\n");
            if (head_end != std::string::npos) {
                auto at = received.find("Content-Length: ");
                std::size_t length =
                    at == std::string::npos ? 0 : std::stoul(received.substr(at + 16));
                if (received.size() >= head_end + 4 + length) break;
            }
            auto got = ::recv(connection, buffer, sizeof buffer, 0);
            if (got <= 0) break;
            received.append(buffer, static_cast<std::size_t>(got));
        }
        std::string reply =
            "HTTP/1.1 200 OK\r\nContent-Length: 11\r\nConnection: close\r\n\r\n{\"ok\":true}";
        ::send(connection, reply.data(), reply.size(), 0);
        ::close(connection);
    }
};

}  // namespace

TEST_CASE("an outbound POST sends its JSON body with the host it was given", "[outbound]") {
    one_shot_server server;
    outbound_get allowing({true, 2000, 1024});
    auto reply =
        allowing.post_json("http://127.0.0.1:" + std::to_string(server.port) + "/payreq/bob?x=1",
                           R"({"amount":"100.EUR"})");
    REQUIRE(reply.ok());
    CHECK(reply->status == 200);
    CHECK(reply->body == R"({"ok":true})");
    // Read by the server thread, which has finished once the reply arrived.
    server.worker.join();
    server.worker = std::thread([] {});
    CHECK(server.received.rfind("POST /payreq/bob?x=1 HTTP/1.1\r\n", 0) == 0);
    CHECK(server.received.find("Host: 127.0.0.1:" + std::to_string(server.port) + "\r\n") !=
          std::string::npos);
    CHECK(server.received.find("Content-Type: application/json\r\n") != std::string::npos);
    CHECK(server.received.ends_with("\r\n\r\n{\"amount\":\"100.EUR\"}"));
}

TEST_CASE("the webhook client writes its request line, headers and body as given", "[outbound]") {
    one_shot_server server;
    outbound_client client(
        {.connect_timeout_ms = 2000, .response_timeout_ms = 2000, .allow_private_addresses = true});
    outbound_request request;
    std::string port = std::to_string(server.port);
    request.url = "http://127.0.0.1:" + port + "/hooks?x=1";
    request.body = R"({"a":1})";
    request.headers.emplace_back("X-Service-Signature", R"({"v":"1","s":"abc"})");
    auto reply = client.post_and_wait(request);
    CHECK(reply.error.empty());
    CHECK(reply.status == 200);
    CHECK(reply.body == R"({"ok":true})");
    server.worker.join();
    server.worker = std::thread([] {});
    CHECK(server.received ==
          "POST /hooks?x=1 HTTP/1.1\r\nHost: 127.0.0.1:" + port +
              "\r\nUser-Agent: Corridor-Webhooks/1\r\nContent-Type: application/json\r\n"
              "X-Service-Signature: {\"v\":\"1\",\"s\":\"abc\"}\r\nContent-Length: 7\r\n\r\n"
              "{\"a\":1}");
}

TEST_CASE("a header that could split the request is refused and nothing is sent", "[outbound]") {
    auto bad = GENERATE(std::pair<std::string, std::string>{"X-Service-Signature", "a\r\nHost: x"},
                        std::pair<std::string, std::string>{"X-A\nB", "1"},
                        std::pair<std::string, std::string>{"", "1"});
    one_shot_server server;
    outbound_client client(
        {.connect_timeout_ms = 2000, .response_timeout_ms = 2000, .allow_private_addresses = true});
    outbound_request request;
    request.url = "http://127.0.0.1:" + std::to_string(server.port) + "/hooks";
    request.body = "{}";
    request.headers.push_back(bad);
    auto reply = client.post_and_wait(request);
    CHECK(reply.status == 0);
    CHECK(reply.error == "a request header is empty or holds a line break or a NUL");
    client.stop();  // closes the connection it opened
    server.worker.join();
    server.worker = std::thread([] {});
    CHECK(server.received.empty());
}
