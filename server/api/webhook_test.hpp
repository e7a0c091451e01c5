#pragma once
// Sends a TEST event to the tenant's webhook endpoint at once and waits for the answer: what
// POST /webhooks/test and the dashboard's "send a test event" both do.
#include <soci/soci.h>

#include <string>

#include "ledger/base/tenant.hpp"
#include "ledger/webhooks/webhook_deliveries.hpp"

namespace corridor {

struct app_services;

struct test_webhook_result {
    std::string url;
    std::string webhook_id;
    attempt_report report;  // response_status 0: no HTTP answer (report.error says why)
};

// Throws api_error when no endpoint is configured or delivery is not running.
test_webhook_result send_test_webhook(soci::session& session, app_services& services,
                                      const tenant& owner);

}  // namespace corridor
