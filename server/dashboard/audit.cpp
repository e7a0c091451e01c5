// The dashboard's audit log page (admins): every action of the platform's users, newest first.
#include "ledger/platforms/dashboard_store.hpp"
#include "ledger/base/time_format.hpp"
#include "server/api/app.hpp"
#include "server/api/html.hpp"
#include "server/dashboard/auth.hpp"
#include "server/dashboard/layout.hpp"

namespace corridor {
namespace {

constexpr std::size_t audit_entries_shown = 200;

http_response audit_page(request_context& context) {
    auto resolved = require_dashboard(context, dashboard_role::admin);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    auto& who = std::get<dashboard_session>(resolved);
    auto entries = list_dashboard_audit(context.session(), who.platform_id, audit_entries_shown);
    std::string body =
        "<p>Every sign-in and every change made in the dashboard, both environments, "
        "newest first (the last " +
        std::to_string(audit_entries_shown) + ").</p>";
    if (entries.empty()) {
        body += "<p>Nothing recorded yet.</p>";
    } else {
        body +=
            "<div class=\"table-wrap\" tabindex=\"0\" role=\"region\" aria-label=\"Audit "
            "log\"><table><thead><tr><th scope=\"col\">When</th><th "
            "scope=\"col\">Who</th><th scope=\"col\">Action</th><th scope=\"col\">Detail</th>"
            "<th scope=\"col\">From</th></tr></thead><tbody>";
        for (const auto& entry : entries) {
            body += "<tr><td>" + format_timestamp_ms(entry.at_ms) + "</td><td>" +
                    html_escape(entry.email) + "</td><td>" + html_escape(entry.action) +
                    "</td><td>" + html_escape(entry.detail) + "</td><td>" +
                    html_escape(entry.remote_address) + "</td></tr>";
        }
        body += "</tbody></table></div>";
    }
    return render_page(who, "Audit log", body);
}

}  // namespace

void register_dashboard_audit_routes(router& routes) {
    routes.add({.method = http_method::get,
                .pattern = "/dashboard/audit",
                .who = access::public_route,
                .handler = audit_page});
}

}  // namespace corridor
