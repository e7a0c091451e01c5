// The Prometheus text that GET /metrics serves: families announced by HELP and TYPE before their
// samples, counters by route and status, histograms with cumulative buckets that end in +Inf equal
// to _count, and every sample line in the exposition format.
#include "server/process/metrics.hpp"

#include <catch2/catch.hpp>
#include <algorithm>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace corridor;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// Sample name (with labels) to value text.
std::map<std::string, std::string> samples_of(const std::string& text) {
    std::map<std::string, std::string> samples;
    for (const auto& line : lines_of(text)) {
        if (line.empty() || line.front() == '#') continue;
        auto space = line.rfind(' ');
        samples[line.substr(0, space)] = line.substr(space + 1);
    }
    return samples;
}

}  // namespace

TEST_CASE("an idle server renders the families and the connection gauge only",
          "[server][metrics]") {
    metrics stats({"GET /a"});
    std::string text = stats.render();
    CHECK(text.find("# TYPE corridor_http_requests_total counter\n") != std::string::npos);
    CHECK(text.find("# TYPE corridor_http_request_duration_seconds histogram\n") !=
          std::string::npos);
    CHECK(text.find("# TYPE corridor_http_connections_open gauge\n") != std::string::npos);
    auto samples = samples_of(text);
    CHECK(samples.size() == 1);
    CHECK(samples["corridor_http_connections_open"] == "0");
    CHECK(text.back() == '\n');
}

TEST_CASE("requests are counted by route and status", "[server][metrics]") {
    metrics stats({"GET /2025-10-13/customers/{customerId}", "POST /2025-10-13/customers"});
    stats.observe_request(0, 200, 100);
    stats.observe_request(0, 200, 100);
    stats.observe_request(0, 404, 100);
    stats.observe_request(1, 201, 100);
    stats.observe_request(-1, 404, 100);  // matched no route
    stats.observe_request(7, 404, 100);   // an index beyond the table counts as unmatched
    stats.observe_request(1, 418, 100);   // a status without its own series
    auto samples = samples_of(stats.render());
    auto requests = [&](const std::string& route, const std::string& status) {
        std::string name =
            R"(corridor_http_requests_total{route=")" + route + R"(",status=")" + status + R"("})";
        return samples.count(name) ? samples[name] : std::string("(absent)");
    };
    const std::string get_customer = "GET /2025-10-13/customers/{customerId}";
    const std::string post_customers = "POST /2025-10-13/customers";
    CHECK(requests(get_customer, "200") == "2");
    CHECK(requests(get_customer, "404") == "1");
    CHECK(requests(post_customers, "201") == "1");
    CHECK(requests(post_customers, "other") == "1");
    CHECK(requests("unmatched", "404") == "2");
    // Series with no requests are not rendered.
    CHECK(requests(post_customers, "200") == "(absent)");
    CHECK(requests("unmatched", "200") == "(absent)");
}

TEST_CASE("latency histograms are cumulative and end in +Inf equal to the count",
          "[server][metrics]") {
    metrics stats({"GET /a", "GET /b"});
    // 250 us lands in the 0.00025 bucket (le is inclusive), 251 in the next, 10 s beyond the last.
    for (std::int64_t duration_us : {100, 250, 251, 4000, 10000000}) {
        stats.observe_request(0, 200, duration_us);
    }
    std::string text = stats.render();
    auto samples = samples_of(text);
    auto bucket = [&](const std::string& le) {
        return samples[R"(corridor_http_request_duration_seconds_bucket{route="GET /a",le=")" + le +
                       "\"}"];
    };
    CHECK(bucket("0.00025") == "2");
    CHECK(bucket("0.0005") == "3");
    CHECK(bucket("0.001") == "3");
    CHECK(bucket("0.002") == "3");
    CHECK(bucket("0.005") == "4");
    CHECK(bucket("5") == "4");
    CHECK(bucket("+Inf") == "5");
    CHECK(samples[R"(corridor_http_request_duration_seconds_count{route="GET /a"})"] == "5");
    CHECK(std::stod(samples[R"(corridor_http_request_duration_seconds_sum{route="GET /a"})"]) ==
          Approx(10.004601));
    // A route without requests has no histogram.
    CHECK(text.find(R"(route="GET /b")") == std::string::npos);

    // Buckets never decrease, in the order they are written, and there is one per bound.
    std::vector<long> counts;
    for (const auto& line : lines_of(text)) {
        if (line.starts_with(R"(corridor_http_request_duration_seconds_bucket{route="GET /a")")) {
            counts.push_back(std::stol(line.substr(line.rfind(' ') + 1)));
        }
    }
    CHECK(counts.size() == metrics::latency_buckets_us.size() + 1);
    CHECK(std::is_sorted(counts.begin(), counts.end()));
}

TEST_CASE("open connections are a gauge", "[server][metrics]") {
    metrics stats({});
    stats.connection_opened();
    stats.connection_opened();
    stats.connection_opened();
    stats.connection_closed();
    CHECK(stats.connections_open() == 2);
    CHECK(samples_of(stats.render())["corridor_http_connections_open"] == "2");
}

TEST_CASE("every line is a comment or a sample in the text exposition format",
          "[server][metrics]") {
    metrics stats({"GET /2025-10-13/customers/{customerId}", "GET /healthz"});
    for (int status : {200, 201, 400, 404, 500, 999}) {
        stats.observe_request(0, status, status * 37);
        stats.observe_request(-1, status, 1);
    }
    stats.connection_opened();
    const std::regex comment(R"(# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+)");
    // name{label="value",...} value, per the Prometheus text exposition format.
    const std::string metric_name = "[a-zA-Z_:][a-zA-Z0-9_:]*";
    const std::string label = R"([a-zA-Z_][a-zA-Z0-9_]*="[^"\\\n]*")";
    const std::string number = R"((\+Inf|-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?))";
    const std::regex sample(metric_name + "(\\{" + label + "(," + label + ")*\\})? " + number);
    std::map<std::string, std::string> types;
    for (const auto& line : lines_of(stats.render())) {
        INFO(line);
        if (line.starts_with("#")) {
            REQUIRE(std::regex_match(line, comment));
            if (line.starts_with("# TYPE ")) {
                std::istringstream in(line.substr(7));
                std::string name, type;
                in >> name >> type;
                types[name] = type;
            }
            continue;
        }
        REQUIRE(std::regex_match(line, sample));
        // The family was announced before its first sample.
        std::string name = line.substr(0, line.find_first_of("{ "));
        for (const char* suffix : {"_bucket", "_sum", "_count"}) {
            if (name.ends_with(suffix) &&
                types.count(name.substr(0, name.size() - std::string(suffix).size()))) {
                name = name.substr(0, name.size() - std::string(suffix).size());
            }
        }
        CHECK(types.count(name) == 1);
    }
    CHECK(types.size() == 3);
}
