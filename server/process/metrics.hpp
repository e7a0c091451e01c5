#pragma once
// Prometheus metrics: requests by route and status, latency histograms per route, and gauges fed
// by other parts (ledger batches, webhook queue depth, rail calls as they arrive). Counters are
// relaxed atomics so io threads never contend on a lock to count.
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace corridor {

class metrics {
public:
    explicit metrics(std::vector<std::string> route_labels);

    // route_index -1 for requests that matched no route.
    void observe_request(int route_index, int status, std::int64_t duration_us);
    void connection_opened() { connections_open_.fetch_add(1, std::memory_order_relaxed); }
    void connection_closed() { connections_open_.fetch_sub(1, std::memory_order_relaxed); }
    std::int64_t connections_open() const { return connections_open_.load(); }

    std::string render() const;
    // Another part's metrics, rendered in Prometheus text after the HTTP ones (set up at start).
    void add_source(std::function<std::string()> render_source);

    static constexpr std::array<std::int64_t, 12> latency_buckets_us = {
        250, 500, 1000, 2000, 5000, 10000, 25000, 50000, 100000, 250000, 1000000, 5000000};

private:
    static constexpr std::array<int, 20> statuses = {200, 201, 202, 204, 400, 401, 403, 404, 405, 409,
                                                     410, 412, 413, 415, 422, 424, 431, 500, 503, 0};
    struct route_counters {
        std::array<std::atomic<std::uint64_t>, statuses.size()> by_status{};
        std::array<std::atomic<std::uint64_t>, latency_buckets_us.size() + 1> latency{};
        std::atomic<std::uint64_t> latency_sum_us{0};
    };
    std::vector<std::string> labels_;
    std::unique_ptr<route_counters[]> routes_;
    std::atomic<std::int64_t> connections_open_{0};
    std::vector<std::function<std::string()>> sources_;
};

}  // namespace corridor
