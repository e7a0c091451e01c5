#pragma once
// The tables a payment writes name their tenant by platform_configs.tenant_key (migration 43), a
// number, where a caller names it by platform id and environment.
#include <string>
#include <string_view>

namespace corridor {

// The tenant key of the platform id and environment bound at the two placeholders given: a scalar
// subquery, evaluated once per statement.
inline std::string tenant_key_of(std::string_view platform_placeholder,
                                 std::string_view environment_placeholder) {
    return "(SELECT tenant_key FROM platform_configs WHERE platform_id = " +
           std::string(platform_placeholder) +
           " AND environment = " + std::string(environment_placeholder) + ")";
}

}  // namespace corridor
