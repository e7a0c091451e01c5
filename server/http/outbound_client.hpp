#pragma once
// Outbound HTTP(S) POSTs (webhook deliveries), asynchronous on a thread of their own. Each request
// resolves its host, refuses private, loopback and link-local addresses unless the operator allows
// them, connects to the addresses it checked (no second resolution to rebind), and never follows a
// redirect. Connect and response time-outs bound every attempt. No Beast or Asio in this header.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace corridor {

struct outbound_options {
    std::int64_t connect_timeout_ms = 5000;
    std::int64_t response_timeout_ms =
        10000;  // TLS handshake, writing the request, reading the answer
    bool allow_private_addresses = false;
    std::size_t response_body_bytes_max = 64 * 1024;  // a longer answer is cut here
    // Kept-alive connections held per origin between requests. Below the number of requests under
    // way at once, every burst above it opens connections that are closed right after.
    std::size_t idle_per_origin_max = 256;
};

struct outbound_request {
    std::string url;  // http:// or https://
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
};

struct outbound_response {
    int status = 0;     // 0 when there was no HTTP answer
    std::string body;   // at most response_body_bytes_max
    std::string error;  // why there was no (usable) answer: refused address, time-out, redirect...
    std::int64_t latency_ms = 0;
};

// One request and what to do with its answer.
struct outbound_call {
    outbound_request request;
    std::function<void(outbound_response)> done;
};

class outbound_transport {
public:
    virtual ~outbound_transport() = default;
    // `done` runs exactly once, on a thread of the transport: keep it short.
    virtual void post(outbound_request request, std::function<void(outbound_response)> done) = 0;
    // Several requests at once, each as post() would send it. A transport with a thread of its own
    // wakes it once for all of them rather than once each.
    virtual void post_all(std::vector<outbound_call> calls);
    // Blocks the calling thread until the answer (or the time-outs) come.
    outbound_response post_and_wait(outbound_request request);
};

class outbound_client final : public outbound_transport {
public:
    explicit outbound_client(outbound_options options);
    ~outbound_client() override;
    outbound_client(const outbound_client&) = delete;
    outbound_client& operator=(const outbound_client&) = delete;

    void post(outbound_request request, std::function<void(outbound_response)> done) override;
    void post_all(std::vector<outbound_call> calls) override;
    // Abandons requests under way (their callbacks still run, with an error) and joins the thread.
    void stop();

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace corridor
