#pragma once
// UMA protocol versions "<major>.<minor>". Corridor speaks 1.0 and, for older counterparties, 0.3.
// A request in a supported major gets the lower of its version and ours; an unsupported major gets
// HTTP 412 with the majors we support (UMAD-08).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/base/result.hpp"
#include "uma/uma_error.hpp"

namespace corridor::uma {

struct uma_version {
    int major = 0;
    int minor = 0;
    std::string text() const;
    auto operator<=>(const uma_version&) const = default;
};

inline constexpr uma_version current_version{1, 0};
inline constexpr uma_version back_compatible_version{0, 3};

// Nullopt unless the text is two non-negative decimal integers joined by a dot.
std::optional<uma_version> parse_version(std::string_view text);
// Majors we speak, highest first: [1, 0].
std::vector<int> supported_major_versions();
// The version to answer a request of `requested` with; invalid_input for a malformed version,
// unsupported_uma_version (412, with supportedMajorVersions and unsupportedVersion) otherwise.
result<uma_version, uma_error> negotiate_version(std::string_view requested);
// For a sender told 412: the highest version of ours in the receiver's majors.
result<uma_version, uma_error> select_highest_supported(const std::vector<int>& their_majors);

}  // namespace corridor::uma
