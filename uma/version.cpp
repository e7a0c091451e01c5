#include "uma/version.hpp"

#include <boost/json/array.hpp>
#include <charconv>

namespace corridor::uma {
namespace {

std::optional<int> parse_part(std::string_view text) {
    if (text.empty() || text.size() > 6) return std::nullopt;
    for (char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
    }
    int value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

std::optional<uma_version> highest_in_major(int major) {
    if (major == current_version.major) return current_version;
    if (major == back_compatible_version.major) return back_compatible_version;
    return std::nullopt;
}

}  // namespace

std::string uma_version::text() const {
    return std::to_string(major) + "." + std::to_string(minor);
}

std::optional<uma_version> parse_version(std::string_view text) {
    auto dot = text.find('.');
    if (dot == std::string_view::npos) return std::nullopt;
    auto major = parse_part(text.substr(0, dot));
    auto minor = parse_part(text.substr(dot + 1));
    if (!major || !minor) return std::nullopt;
    return uma_version{*major, *minor};
}

std::vector<int> supported_major_versions() {
    return {current_version.major, back_compatible_version.major};
}

result<uma_version, uma_error> negotiate_version(std::string_view requested) {
    auto version = parse_version(requested);
    if (!version) {
        return uma_error{
            error_kind::invalid_input,
            "umaVersion must be <major>.<minor>, got \"" + std::string(requested) + "\"",
            {}};
    }
    auto ours = highest_in_major(version->major);
    if (!ours) {
        boost::json::array majors;
        for (int major : supported_major_versions()) majors.push_back(major);
        boost::json::object extra;
        extra["supportedMajorVersions"] = std::move(majors);
        extra["unsupportedVersion"] = std::string(requested);
        return uma_error{error_kind::unsupported_uma_version,
                         "unsupported version: " + std::string(requested), std::move(extra)};
    }
    return std::min(*version, *ours);
}

result<uma_version, uma_error> select_highest_supported(const std::vector<int>& their_majors) {
    std::optional<uma_version> best;
    for (int major : their_majors) {
        auto ours = highest_in_major(major);
        if (ours && (!best || *ours > *best)) best = ours;
    }
    if (!best) {
        return uma_error{error_kind::no_compatible_uma_version, "no UMA version in common", {}};
    }
    return *best;
}

}  // namespace corridor::uma
