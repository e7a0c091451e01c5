// Webhooks: POST /webhooks/test sends a TEST event at once and reports the endpoint's answer;
// GET /webhooks/deliveries lists every delivery attempt (an extension of the interface).
#include <boost/json.hpp>
#include <future>

#include "ledger/base/utf8.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/outbox.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/base/time_format.hpp"
#include "ledger/webhooks/webhook_deliveries.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"
#include "server/api/webhook_test.hpp"
#include "server/workers/delivery_worker.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

constexpr std::size_t test_response_body_chars_max = 4096;

// The answer's body as the client sees it: printable text, at most test_response_body_chars_max.
std::string printable(std::string_view body) {
    return printable_excerpt(body, test_response_body_chars_max);
}

http_response test_webhook(request_context& context) {
    auto sent = send_test_webhook(context.session(), context.services, context.owner());
    if (sent.report.response_status == 0) {
        json::object details{
            {"url", sent.url}, {"webhookId", sent.webhook_id}, {"reason", sent.report.error}};
        fail(error_code::webhook_delivery_error,
             "the webhook endpoint could not be reached: " + sent.report.error, std::move(details));
    }
    return json_response(200,
                         json::object{{"url", sent.url},
                                      {"response_status", sent.report.response_status},
                                      {"response_body", printable(sent.report.response_excerpt)}});
}

json::object render_attempt(const delivery_attempt& attempt) {
    json::object body{{"id", attempt.id},
                      {"webhookId", attempt.event_id},
                      {"type", attempt.event_type},
                      {"attempt", attempt.attempt},
                      {"url", attempt.url},
                      {"attemptedAt", format_timestamp_ms(attempt.attempted_at_ms)},
                      {"latencyMs", attempt.latency_ms},
                      {"outcome", attempt.outcome},
                      {"responseExcerpt", attempt.response_excerpt}};
    body["responseStatus"] =
        attempt.response_status == 0 ? json::value(nullptr) : json::value(attempt.response_status);
    if (!attempt.error.empty()) body["error"] = attempt.error;
    if (attempt.next_attempt_at_ms > 0)
        body["nextAttemptAt"] = format_timestamp_ms(attempt.next_attempt_at_ms);
    return body;
}

const std::vector<std::string_view> event_types = {
    "INCOMING_PAYMENT",   "OUTGOING_PAYMENT", "TEST",          "BULK_UPLOAD",
    "INVITATION_CLAIMED", "KYC_STATUS",       "ACCOUNT_STATUS"};

http_response list_deliveries(request_context& context) {
    const auto& query = context.query;
    delivery_attempt_filter filter;
    filter.event_id = query.get("webhookId");
    if (filter.event_id && !is_typed_id("Webhook", *filter.event_id)) {
        fail_field("webhookId", "must be a webhook id (Webhook:<uuid>)");
    }
    filter.event_type = query.one_of("type", event_types);
    filter.outcome = query.one_of("outcome", {"SUCCEEDED", "RETRY_SCHEDULED", "GAVE_UP"});
    auto found = list_delivery_attempts(context.session(), context.owner(), filter,
                                        query.page("WebhookAttempt", true));
    return page_response(found, render_attempt);
}

}  // namespace

test_webhook_result send_test_webhook(soci::session& session, app_services& services,
                                      const tenant& owner) {
    auto config = load_platform_config(session, owner);
    if (!config || !config->webhook_endpoint || config->webhook_endpoint->empty()) {
        fail(error_code::webhook_endpoint_not_set,
             "no webhook endpoint is configured; set webhookEndpoint with PATCH /config");
    }
    if (!services.webhooks)
        fail(error_code::service_unavailable, "webhook delivery is not running");
    auto policy = webhook_retry_policy(services.config);
    std::optional<claimed_delivery> claimed;
    {
        // The event is committed, and claimed by this request, before it is sent: a crash while
        // sending leaves it recorded as interrupted, never sent again (TEST is sent once).
        write_transaction transaction(session);
        std::string id = record_event(session, services.ids, services.time, owner, "TEST",
                                      R"({"test":true})", event_purpose::test);
        claimed = claim_delivery(session, services.time, services.random, policy, id);
        transaction.commit();
    }
    if (!claimed) fail(error_code::internal_error, "the test event could not be claimed");
    std::promise<attempt_report> answered;
    auto answer = answered.get_future();
    services.webhooks->send(*claimed, services.time.now_ms(), [&answered](attempt_report report) {
        answered.set_value(std::move(report));
    });
    attempt_report report = answer.get();
    {
        write_transaction transaction(session);
        finish_delivery(session, services.ids, services.time, policy, *claimed, report);
        transaction.commit();
    }
    return test_webhook_result{claimed->url, claimed->id, std::move(report)};
}

void register_webhook_routes(router& routes) {
    routes.add({.method = http_method::post,
                .pattern = versioned("/webhooks/test"),
                .permission = permission_manage,
                .handler = test_webhook});
    routes.add({.method = http_method::get,
                .pattern = versioned("/webhooks/deliveries"),
                .permission = permission_view,
                .handler = list_deliveries});
}

}  // namespace corridor
