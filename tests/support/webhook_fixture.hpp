#pragma once
// A store with one sandbox platform whose webhook endpoint is set, for the tests of delivery's
// bookkeeping: its events, and an attempt's answer recorded as a round records it.
#include <catch2/catch.hpp>
#include <optional>
#include <string>

#include "ledger/store/outbox.hpp"
#include "ledger/webhooks/webhook_deliveries.hpp"
#include "tests/support/store_fixture.hpp"

namespace corridor::testing {

struct webhook_fixture : store_fixture {
    static constexpr const char* endpoint = "https://receiver.example/hooks";

    explicit webhook_fixture(const std::string& domain) {
        owner = tenant{make_platform(domain), environment::sandbox};
        set_endpoint(owner, endpoint);
    }
    void set_endpoint(const tenant& who, const std::string& url) {
        config_patch patch;
        patch.webhook_endpoint = std::optional<std::string>(url);
        REQUIRE(update_platform_config(session(), platforms(), who, patch).ok());
    }
    std::string event(event_purpose purpose = event_purpose::notify,
                      const std::string& type = "OUTGOING_PAYMENT") {
        return record_event(session(), ids, clock, owner, type,
                            R"({"transaction":{"id":"Transaction:x"}})", purpose);
    }
    // The attempt answered `status` now (0: no answer, the connection failed).
    delivery_verdict answer(const claimed_delivery& delivery, int status) {
        attempt_report report;
        report.attempted_at_ms = clock.now_ms();
        report.response_status = status;
        report.response_excerpt = status == 0 ? "" : "answer " + std::to_string(status);
        if (status == 0) report.error = "connecting failed";
        return finish_delivery(session(), ids, clock, policy, delivery, report);
    }

    tenant owner;
    retry_policy policy;
};

}  // namespace corridor::testing
