#include "server/api/router.hpp"

#include <algorithm>

#include "ledger/base/assert.hpp"
#include "ledger/base/utf8.hpp"

namespace corridor {
namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool is_parameter(const std::string& segment) {
    return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

// Decoded segments become ids and names that reach the store: control characters have no place
// in them, and bytes that are not UTF-8 make PostgreSQL fail the query.
bool is_acceptable_segment(const std::string& decoded) {
    for (char c : decoded) {
        auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f) return false;
    }
    return is_valid_utf8(decoded);
}

// Whether the path fits the pattern and how well: a literal match at position i is worth more than
// any later ones. 0 when it does not fit; the parameters are appended to `params` when it does.
std::uint64_t path_score(const std::vector<std::string>& pattern,
                         const std::vector<std::string>& segments,
                         std::vector<std::string>* params) {
    if (pattern.size() != segments.size()) return 0;
    std::uint64_t score = 1;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (is_parameter(pattern[i])) {
            if (segments[i].empty()) return 0;
            if (params) params->push_back(segments[i]);
        } else if (pattern[i] == segments[i]) {
            score |= std::uint64_t{1} << (62 - i);
        } else {
            return 0;
        }
    }
    return score;
}

}  // namespace

std::optional<std::vector<std::string>> split_path(std::string_view path) {
    std::vector<std::string> segments;
    if (path.empty() || path.front() != '/') return std::nullopt;
    std::size_t start = 1;
    while (start <= path.size()) {
        auto end = path.find('/', start);
        if (end == std::string_view::npos) end = path.size();
        std::string_view raw = path.substr(start, end - start);
        std::string decoded;
        for (std::size_t i = 0; i < raw.size(); ++i) {
            if (raw[i] == '%') {
                if (i + 2 >= raw.size()) return std::nullopt;
                int high = hex_value(raw[i + 1]);
                int low = hex_value(raw[i + 2]);
                if (high < 0 || low < 0) return std::nullopt;
                decoded.push_back(static_cast<char>(high * 16 + low));
                i += 2;
            } else {
                decoded.push_back(raw[i]);
            }
        }
        if (!is_acceptable_segment(decoded)) return std::nullopt;
        if (!(end == path.size() && raw.empty() && !segments.empty())) {
            segments.push_back(std::move(decoded));
        }
        if (end == path.size()) break;
        start = end + 1;
    }
    return segments;
}

void router::add(route_spec spec) {
    auto segments = split_path(spec.pattern);
    CORRIDOR_ASSERT(segments.has_value());
    CORRIDOR_ASSERT(segments->size() <= 62);  // path_score gives each position one bit
    for (std::size_t i = 0; i < routes_.size(); ++i) {
        CORRIDOR_ASSERT(!(routes_[i].method == spec.method && routes_[i].pattern == spec.pattern));
    }
    CORRIDOR_ASSERT(spec.handler != nullptr);
    CORRIDOR_ASSERT(!spec.idempotent || spec.on_ledger_writer);  // savepoints need the batch
    routes_.push_back(std::move(spec));
    compiled_.push_back({std::move(*segments)});
}

route_match router::match(http_method method, std::string_view path) const {
    route_match result;
    auto segments = split_path(path);
    if (!segments) return result;
    // The path decides first: the best-fitting pattern wins whatever its method, so a literal
    // route never falls through to a parameter route when only the method differs. Then the
    // method picks among the routes of that pattern, or they make the 405's Allow list.
    std::uint64_t best_score = 0;
    for (const auto& route : compiled_) {
        best_score = std::max(best_score, path_score(route.segments, *segments, nullptr));
    }
    if (best_score == 0) return result;
    for (std::size_t index = 0; index < routes_.size(); ++index) {
        if (path_score(compiled_[index].segments, *segments, nullptr) != best_score) continue;
        http_method route_method = routes_[index].method;
        if (route_method == method && !result.route) {
            result.route = &routes_[index];
            result.index = static_cast<int>(index);
            path_score(compiled_[index].segments, *segments, &result.params);
        } else if (route_method != method &&
                   std::find(result.allowed.begin(), result.allowed.end(), route_method) ==
                       result.allowed.end()) {
            result.allowed.push_back(route_method);
        }
    }
    return result;
}

}  // namespace corridor
