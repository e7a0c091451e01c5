#include "server/api/router.hpp"

#include "ledger/assert.hpp"
#include "server/api/input.hpp"

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
        // No resource has a name that is not clean text; such a segment matches nothing.
        if (!is_clean_text(decoded)) return std::nullopt;
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
    // Score: a literal match at position i is worth more than any later ones.
    std::vector<std::string> best_params;
    std::uint64_t best_score = 0;
    for (std::size_t index = 0; index < routes_.size(); ++index) {
        const auto& pattern = compiled_[index].segments;
        if (pattern.size() != segments->size()) continue;
        std::uint64_t score = 1;
        std::vector<std::string> params;
        bool matched = true;
        for (std::size_t i = 0; i < pattern.size() && matched; ++i) {
            if (is_parameter(pattern[i])) {
                if ((*segments)[i].empty()) matched = false;
                params.push_back((*segments)[i]);
            } else if (pattern[i] == (*segments)[i]) {
                score |= std::uint64_t{1} << (62 - i);
            } else {
                matched = false;
            }
        }
        if (!matched) continue;
        if (routes_[index].method != method) {
            result.allowed.push_back(routes_[index].method);
            continue;
        }
        if (score > best_score) {
            best_score = score;
            result.route = &routes_[index];
            result.index = static_cast<int>(index);
            best_params = std::move(params);
        }
    }
    result.params = std::move(best_params);
    return result;
}

}  // namespace corridor
