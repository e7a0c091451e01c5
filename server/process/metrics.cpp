#include "server/process/metrics.hpp"

#include <fmt/format.h>

namespace corridor {

metrics::metrics(std::vector<std::string> route_labels)
    : labels_(std::move(route_labels)), routes_(new route_counters[labels_.size() + 1]) {
    labels_.push_back("unmatched");
}

void metrics::observe_request(int route_index, int status, std::int64_t duration_us) {
    std::size_t route = route_index < 0 ? labels_.size() - 1 : static_cast<std::size_t>(route_index);
    if (route >= labels_.size()) route = labels_.size() - 1;
    auto& counters = routes_[route];
    std::size_t status_slot = statuses.size() - 1;
    for (std::size_t i = 0; i + 1 < statuses.size(); ++i) {
        if (statuses[i] == status) status_slot = i;
    }
    counters.by_status[status_slot].fetch_add(1, std::memory_order_relaxed);
    std::size_t bucket = latency_buckets_us.size();
    for (std::size_t i = 0; i < latency_buckets_us.size(); ++i) {
        if (duration_us <= latency_buckets_us[i]) {
            bucket = i;
            break;
        }
    }
    counters.latency[bucket].fetch_add(1, std::memory_order_relaxed);
    counters.latency_sum_us.fetch_add(static_cast<std::uint64_t>(duration_us),
                                      std::memory_order_relaxed);
}

std::string metrics::render() const {
    std::string out;
    out += "# HELP corridor_http_requests_total HTTP requests by route and status.\n";
    out += "# TYPE corridor_http_requests_total counter\n";
    for (std::size_t route = 0; route < labels_.size(); ++route) {
        for (std::size_t i = 0; i < statuses.size(); ++i) {
            auto count = routes_[route].by_status[i].load(std::memory_order_relaxed);
            if (count == 0) continue;
            std::string status = statuses[i] == 0 ? "other" : std::to_string(statuses[i]);
            out += fmt::format("corridor_http_requests_total{{route=\"{}\",status=\"{}\"}} {}\n",
                               labels_[route], status, count);
        }
    }
    out += "# HELP corridor_http_request_duration_seconds Time from request read to response.\n";
    out += "# TYPE corridor_http_request_duration_seconds histogram\n";
    for (std::size_t route = 0; route < labels_.size(); ++route) {
        const auto& counters = routes_[route];
        std::uint64_t cumulative = 0;
        for (std::size_t i = 0; i <= latency_buckets_us.size(); ++i) {
            cumulative += counters.latency[i].load(std::memory_order_relaxed);
        }
        if (cumulative == 0) continue;
        cumulative = 0;
        for (std::size_t i = 0; i <= latency_buckets_us.size(); ++i) {
            cumulative += counters.latency[i].load(std::memory_order_relaxed);
            std::string bound = i == latency_buckets_us.size()
                                    ? "+Inf"
                                    : fmt::format("{}", latency_buckets_us[i] / 1e6);
            out += fmt::format(
                "corridor_http_request_duration_seconds_bucket{{route=\"{}\",le=\"{}\"}} {}\n",
                labels_[route], bound, cumulative);
        }
        out += fmt::format("corridor_http_request_duration_seconds_sum{{route=\"{}\"}} {}\n",
                           labels_[route], counters.latency_sum_us.load() / 1e6);
        out += fmt::format("corridor_http_request_duration_seconds_count{{route=\"{}\"}} {}\n",
                           labels_[route], cumulative);
    }
    out += "# HELP corridor_http_connections_open Open client connections.\n";
    out += "# TYPE corridor_http_connections_open gauge\n";
    out += fmt::format("corridor_http_connections_open {}\n", connections_open_.load());
    for (const auto& source : sources_) out += source();
    return out;
}

void metrics::add_source(std::function<std::string()> render_source) {
    sources_.push_back(std::move(render_source));
}

}  // namespace corridor
