#pragma once
// Every row belongs to a platform and one of its two environments. Store functions take the caller's
// tenant and filter by it, so another tenant's id reads as not found.
#include <optional>
#include <string>
#include <string_view>

#include "ledger/base/assert.hpp"

namespace corridor {

enum class environment { sandbox, production };

constexpr std::string_view to_string(environment env) {
    return env == environment::sandbox ? "sandbox" : "production";
}

inline std::optional<environment> parse_environment(std::string_view text) {
    if (text == "sandbox") return environment::sandbox;
    if (text == "production") return environment::production;
    return std::nullopt;
}

struct tenant {
    std::string platform_id;
    environment env = environment::sandbox;

    std::string_view env_name() const { return to_string(env); }
    bool operator==(const tenant&) const = default;
};

// The tenant of a stored row. Rows are written only with a valid environment name, so anything
// else means the database holds what this code never wrote.
inline tenant tenant_of_row(const std::string& platform_id, std::string_view environment_name) {
    auto env = parse_environment(environment_name);
    CORRIDOR_ASSERT(env.has_value());
    return tenant{platform_id, *env};
}

}  // namespace corridor
