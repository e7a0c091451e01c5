#pragma once
// What PATCH /config checks of its input, shared with the dashboard's pages that set the same.
#include <string>

#include "ledger/base/tenant.hpp"
#include "server/process/config.hpp"

namespace corridor {

// The webhook endpoint as given when it is an absolute http(s) URL without credentials or
// fragment, https in production (unless the operator allows private addresses); otherwise a 400
// naming webhookEndpoint (api_error).
std::string checked_webhook_endpoint(const std::string& text, environment env,
                                     const service_config& config);

}  // namespace corridor
