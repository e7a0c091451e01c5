// Webhooks in the dashboard: the endpoint (as PATCH /config sets it), the public key that verifies
// the signatures (and the next key during a rotation), the delivery log, resending one delivery
// and sending a test event (as POST /webhooks/test).
#include "ledger/platforms/platform_store.hpp"
#include "ledger/base/time_format.hpp"
#include "ledger/webhooks/webhook_deliveries.hpp"
#include "ledger/platforms/webhook_keys.hpp"
#include "server/api/app.hpp"
#include "server/api/config_input.hpp"
#include "server/api/errors.hpp"
#include "server/api/html.hpp"
#include "server/api/webhook_test.hpp"
#include "server/dashboard/auth.hpp"
#include "server/dashboard/layout.hpp"

namespace corridor {
namespace {

constexpr int attempts_listed_max = 50;
constexpr std::size_t endpoint_chars_max = 2048;  // as PATCH /config
constexpr std::size_t excerpt_chars_shown = 200;

std::string printable(std::string_view text, std::size_t chars_max) {
    std::string out;
    for (char c : text.substr(0, chars_max)) {
        unsigned char u = static_cast<unsigned char>(c);
        out += (u >= 0x20 && u < 0x7f) ? c : ' ';
    }
    return out;
}

std::string endpoint_section(request_context& context, const dashboard_session& who) {
    auto config = load_platform_config(context.session(), who.owner());
    std::string current = config && config->webhook_endpoint ? *config->webhook_endpoint : "";
    std::string out = "<h2>Endpoint</h2>";
    out += current.empty() ? "<p>No endpoint is set: events are not delivered.</p>"
                           : "<p>Events are sent to <code>" + html_escape(current) + "</code>.</p>";
    if (who.can(dashboard_role::developer)) {
        out += "<form method=\"post\" action=\"/dashboard/webhooks/endpoint\">" + csrf_input(who);
        out +=
            "<label for=\"endpoint\">Endpoint URL</label><input id=\"endpoint\" name=\"endpoint\" "
            "type=\"url\" maxlength=\"2048\" placeholder=\"https://example.com/webhooks\" "
            "value=\"" +
            html_escape(current) + "\">";
        out += "<p class=\"muted\">Leave empty to stop delivering.</p>";
        out += "<p><button type=\"submit\">Save endpoint</button></p></form>";
        out +=
            "<form method=\"post\" action=\"/dashboard/webhooks/test\">" + csrf_input(who) +
            "<p><button class=\"secondary\" type=\"submit\">Send a test event</button></p></form>";
    }
    return out;
}

std::string key_section(request_context& context, const dashboard_session& who) {
    auto& db = context.session();
    std::string pem = ensure_webhook_key(db, context.services.time, who.owner()).public_key_pem;
    std::string out =
        "<h2>Verification key</h2><p>Every webhook carries "
        "<code>X-Service-Signature: {\"v\":\"1\",\"s\":\"…\"}</code>: an ECDSA P-256 "
        "signature over SHA-256 of the exact body, base64 DER. Verify it with this "
        "public key.</p>";
    out += "<pre id=\"webhook-key\">" + html_escape(pem) + "</pre>";
    out +=
        "<p><button type=\"button\" class=\"secondary\" data-copy=\"webhook-key\" hidden>Copy "
        "public key</button></p>";
    if (auto next = find_next_webhook_key(db, context.services.time, who.owner())) {
        out += "<h3>Next key</h3><p>A rotation is under way: install this key too. It signs from ";
        out += next->activate_at_ms ? format_timestamp_ms(*next->activate_at_ms)
                                    : std::string("when the operator activates it");
        out += ".</p><pre id=\"webhook-next-key\">" + html_escape(next->public_key_pem) + "</pre>";
        out +=
            "<p><button type=\"button\" class=\"secondary\" data-copy=\"webhook-next-key\" "
            "hidden>Copy next key</button></p>";
    }
    return out;
}

std::string deliveries_section(request_context& context, const dashboard_session& who) {
    auto found = list_delivery_attempts(context.session(), who.owner(), {},
                                        page_request{attempts_listed_max, std::nullopt, true});
    std::string out = "<h2>Delivery log</h2>";
    if (found.items.empty()) return out + "<p>No deliveries yet.</p>";
    bool can_resend = who.can(dashboard_role::developer);
    out +=
        "<div class=\"table-wrap\" tabindex=\"0\" role=\"region\" aria-label=\"Delivery "
        "log\"><table><thead><tr><th scope=\"col\">When</th><th "
        "scope=\"col\">Event</th><th scope=\"col\">Attempt</th><th scope=\"col\">Status</th><th "
        "scope=\"col\">Outcome</th><th scope=\"col\">Response</th>";
    if (can_resend) out += "<th scope=\"col\"><span class=\"skip\">Actions</span></th>";
    out += "</tr></thead><tbody>";
    for (const auto& attempt : found.items) {
        out += "<tr><td>" + format_timestamp_ms(attempt.attempted_at_ms) + "</td><td>" +
               html_escape(attempt.event_type) + "<br><code class=\"muted\">" +
               html_escape(attempt.event_id) + "</code></td><td>" +
               std::to_string(attempt.attempt) + "</td><td>" +
               (attempt.response_status == 0 ? std::string("no answer")
                                             : std::to_string(attempt.response_status)) +
               "</td><td>" + html_escape(attempt.outcome) + "</td><td>";
        if (!attempt.error.empty())
            out += html_escape(printable(attempt.error, excerpt_chars_shown)) + " ";
        out += "<code>" + html_escape(printable(attempt.response_excerpt, excerpt_chars_shown)) +
               "</code></td>";
        if (can_resend) {
            out += "<td>";
            if (attempt.event_type != "TEST") {
                out += "<form class=\"inline\" method=\"post\" action=\"/dashboard/webhooks/" +
                       html_escape(attempt.event_id) + "/resend\">" + csrf_input(who) +
                       "<button class=\"secondary\" type=\"submit\" aria-label=\"Resend " +
                       html_escape(attempt.event_type) + " " + html_escape(attempt.event_id) +
                       "\">Resend</button></form>";
            }
            out += "</td>";
        }
        out += "</tr>";
    }
    out += "</tbody></table></div>";
    return out;
}

http_response webhooks_page_with(request_context& context, const dashboard_session& who,
                                 std::string_view top, unsigned status) {
    std::string body(top);
    body += endpoint_section(context, who);
    body += key_section(context, who);
    body += deliveries_section(context, who);
    return render_page(who, "Webhooks", body, status);
}

http_response webhooks_page(request_context& context) {
    auto resolved = require_dashboard(context, dashboard_role::viewer);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    auto& who = std::get<dashboard_session>(resolved);
    std::string top;
    if (context.query.get("saved")) top = notice_html("The endpoint is saved.");
    if (context.query.get("resent")) top = notice_html("The event is queued to be sent again.");
    return webhooks_page_with(context, who, top, 200);
}

http_response save_endpoint(request_context& context) {
    auto form = read_form(context.request);
    if (!form) return unreadable_form();
    auto resolved = require_dashboard_post(context, dashboard_role::developer, *form);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    auto& who = std::get<dashboard_session>(resolved);
    std::string endpoint = form_value(*form, "endpoint");
    config_patch patch;
    if (endpoint.empty()) {
        patch.webhook_endpoint = std::optional<std::string>{};
    } else {
        try {
            if (endpoint.size() > endpoint_chars_max) fail_field("webhookEndpoint", "is too long");
            patch.webhook_endpoint =
                checked_webhook_endpoint(endpoint, who.env, context.services.config);
        } catch (const api_error& error) {
            return webhooks_page_with(context, who, notice_html(error.message, true), 400);
        }
    }
    auto& services = context.services;
    auto updated = update_platform_config(
        context.session(), platform_services{services.ids, services.random, services.time},
        who.owner(), patch);
    services.configs.invalidate(tenant_key(who.owner()));
    if (!updated)
        return webhooks_page_with(context, who,
                                  notice_html("The configuration was not found.", true), 404);
    record_dashboard_action(context, who, "webhook endpoint set",
                            endpoint.empty() ? "(none)" : endpoint);
    return redirect_after_post("/dashboard/webhooks?saved=1");
}

http_response send_test(request_context& context) {
    auto form = read_form(context.request);
    if (!form) return unreadable_form();
    auto resolved = require_dashboard_post(context, dashboard_role::developer, *form);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    auto& who = std::get<dashboard_session>(resolved);
    std::string top;
    unsigned status = 200;
    try {
        auto sent = send_test_webhook(context.session(), context.services, who.owner());
        if (sent.report.response_status == 0) {
            top = notice_html("The test event could not be delivered: " + sent.report.error, true);
            status = 502;
        } else {
            top = notice_html("Test event " + sent.webhook_id + " sent to " + sent.url +
                                  ": the endpoint answered " +
                                  std::to_string(sent.report.response_status) + ".",
                              sent.report.response_status >= 300);
        }
        record_dashboard_action(context, who, "test webhook sent", sent.webhook_id);
    } catch (const api_error& error) {
        top = notice_html(error.message, true);
        status = 409;
    }
    return webhooks_page_with(context, who, top, status);
}

http_response resend(request_context& context) {
    auto form = read_form(context.request);
    if (!form) return unreadable_form();
    auto resolved = require_dashboard_post(context, dashboard_role::developer, *form);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    auto& who = std::get<dashboard_session>(resolved);
    const std::string& id = context.param(0);
    if (!resend_webhook_event(context.session(), context.services.time, who.owner(), id)) {
        return webhooks_page_with(
            context, who,
            notice_html("No finished event " + id + " to resend in this environment.", true), 404);
    }
    record_dashboard_action(context, who, "webhook resent", id);
    return redirect_after_post("/dashboard/webhooks?resent=1");
}

}  // namespace

void register_dashboard_webhook_routes(router& routes) {
    routes.add({.method = http_method::get,
                .pattern = "/dashboard/webhooks",
                .who = access::public_route,
                .handler = webhooks_page});
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/webhooks/endpoint",
                .who = access::public_route,
                .handler = save_endpoint});
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/webhooks/test",
                .who = access::public_route,
                .handler = send_test});
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/webhooks/{webhookId}/resend",
                .who = access::public_route,
                .handler = resend});
}

}  // namespace corridor
