#pragma once
// Dashboard users as the CLI and the users page create them: checked input, the user, and the
// single-use setup link that lets them choose a password.
#include <soci/soci.h>

#include <optional>
#include <string>
#include <string_view>

#include "ledger/base/clock.hpp"
#include "ledger/platforms/dashboard_store.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/base/random.hpp"

namespace corridor {

struct service_config;
class router;

// The address lower-cased when it looks like one (local@domain, no spaces, at most 254
// characters); nullopt otherwise.
std::optional<std::string> normalize_email(std::string_view text);

// Makes a setup link for the user (expires after dashboard.setup_link_ttl_ms) and returns its
// address: {public_base_url}/dashboard/setup/{token}. Only the token's hash is stored.
std::string issue_setup_link(soci::session& session, random_source& random, const clock& time,
                             const service_config& config, const std::string& user_id);

}  // namespace corridor
