// API tokens in the dashboard: the list (every role), creating one with its permissions and
// revoking one (developer and admin). The same ledger calls as POST /tokens and DELETE /tokens.
#include "ledger/base/time_format.hpp"
#include "ledger/platforms/token_store.hpp"
#include "server/api/app.hpp"
#include "server/api/html.hpp"
#include "server/dashboard/auth.hpp"
#include "server/dashboard/layout.hpp"

namespace corridor {
namespace {

constexpr std::size_t token_name_chars_max = 256;  // as POST /tokens
constexpr int tokens_listed_max = 100;

std::string permission_text(unsigned permissions) {
    std::string text = permission_names(permissions);
    for (auto& c : text) {
        if (c == ',') c = ' ';
    }
    return text;
}

std::string tokens_table(request_context& context, const dashboard_session& who) {
    auto found = list_tokens(context.session(), who.owner(), {},
                             page_request{tokens_listed_max, std::nullopt, true});
    if (found.items.empty()) return "<p>No API tokens in this environment.</p>";
    bool can_revoke = who.can(dashboard_role::developer);
    std::string out =
        "<div class=\"table-wrap\" tabindex=\"0\" role=\"region\" aria-label=\"API "
        "tokens\"><table><caption class=\"muted\">" +
        std::to_string(found.total_count) + " token" + (found.total_count == 1 ? "" : "s") +
        "</caption><thead><tr><th scope=\"col\">Name</th><th scope=\"col\">Client "
        "id</th><th scope=\"col\">Permissions</th><th scope=\"col\">Created</th>";
    if (can_revoke) out += "<th scope=\"col\"><span class=\"skip\">Actions</span></th>";
    out += "</tr></thead><tbody>";
    for (const auto& token : found.items) {
        out += "<tr><td>" + html_escape(token.name) + "</td><td><code>" +
               html_escape(token.client_id) + "</code></td><td>" +
               permission_text(token.permissions) + "</td><td>" +
               format_timestamp_ms(token.created_at_ms) + "</td>";
        if (can_revoke) {
            out += "<td><form class=\"inline\" method=\"post\" action=\"/dashboard/tokens/" +
                   html_escape(token.id) + "/revoke\">" + csrf_input(who) +
                   "<button class=\"danger\" type=\"submit\" aria-label=\"Revoke " +
                   html_escape(token.name) + "\">Revoke</button></form></td>";
        }
        out += "</tr>";
    }
    out += "</tbody></table></div>";
    if (found.has_more) {
        out += "<p class=\"muted\">Showing the newest " + std::to_string(tokens_listed_max) +
               "; GET /tokens lists them all.</p>";
    }
    return out;
}

std::string create_form(const dashboard_session& who, std::string_view name) {
    std::string out = "<h2>Create a token</h2><form method=\"post\" action=\"/dashboard/tokens\">" +
                      csrf_input(who);
    out +=
        "<label for=\"name\">Name</label><input id=\"name\" name=\"name\" type=\"text\" required "
        "maxlength=\"256\" value=\"" +
        html_escape(name) + "\">";
    out +=
        "<fieldset><legend>Permissions</legend>"
        "<input type=\"checkbox\" id=\"perm-view\" name=\"view\" value=\"1\" checked><label "
        "for=\"perm-view\">VIEW (read)</label>"
        "<input type=\"checkbox\" id=\"perm-transact\" name=\"transact\" value=\"1\"><label "
        "for=\"perm-transact\">TRANSACT (move money)</label>"
        "<input type=\"checkbox\" id=\"perm-manage\" name=\"manage\" value=\"1\"><label "
        "for=\"perm-manage\">MANAGE (configuration, tokens, customers)</label></fieldset>";
    out += "<p><button type=\"submit\">Create token</button></p></form>";
    return out;
}

std::string page_body(request_context& context, const dashboard_session& who, std::string_view top,
                      std::string_view name) {
    std::string body(top);
    body += "<p>Tokens authenticate API calls (HTTP Basic with the client id and secret) in the " +
            std::string(to_string(who.env)) + " environment.</p>";
    body += tokens_table(context, who);
    if (who.can(dashboard_role::developer)) body += create_form(who, name);
    return body;
}

http_response tokens_page(request_context& context) {
    auto resolved = require_dashboard(context, dashboard_role::viewer);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    auto& who = std::get<dashboard_session>(resolved);
    std::string top = context.query.get("revoked") ? notice_html("The token is revoked.") : "";
    return render_page(who, "API tokens", page_body(context, who, top, ""));
}

http_response create_token_submit(request_context& context) {
    auto form = read_form(context.request);
    if (!form) return unreadable_form();
    auto resolved = require_dashboard_post(context, dashboard_role::developer, *form);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    auto& who = std::get<dashboard_session>(resolved);
    std::string name = form_value(*form, "name");
    unsigned permissions = (form->contains("view") ? permission_view : 0u) |
                           (form->contains("transact") ? permission_transact : 0u) |
                           (form->contains("manage") ? permission_manage : 0u);
    std::string problem;
    if (name.empty() || name.size() > token_name_chars_max) {
        problem = "The name must be 1 to 256 characters.";
    } else if (permissions == 0) {
        problem = "Choose at least one permission.";
    }
    if (!problem.empty()) {
        return render_page(who, "API tokens",
                           page_body(context, who, notice_html(problem, true), name), 400);
    }
    auto& services = context.services;
    auto created = create_token(context.session(), services.ids, services.random, services.time,
                                who.owner(), name, permissions);
    record_dashboard_action(
        context, who, "token created",
        created.token.id + " \"" + name + "\" " + permission_names(permissions));
    // The secret is shown on this one response and never again (not stored, not cached).
    std::string top = notice_html("Token created. Copy the secret now: it is not shown again.");
    top += "<div class=\"secret-box\"><p>Client id: <code id=\"new-client-id\">" +
           html_escape(created.token.client_id) +
           "</code> <button type=\"button\" "
           "class=\"secondary\" data-copy=\"new-client-id\" hidden>Copy client id</button></p>";
    top +=
        "<p>Client secret: <code id=\"new-client-secret\" class=\"secret\">" +
        html_escape(created.client_secret) +
        "</code> <button type=\"button\" "
        "class=\"secondary\" data-copy=\"new-client-secret\" hidden>Copy secret</button></p></div>";
    return render_page(who, "API tokens", page_body(context, who, top, ""), 201);
}

http_response revoke_token_submit(request_context& context) {
    auto form = read_form(context.request);
    if (!form) return unreadable_form();
    auto resolved = require_dashboard_post(context, dashboard_role::developer, *form);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    auto& who = std::get<dashboard_session>(resolved);
    const std::string& id = context.param(0);
    if (!delete_token(context.session(), context.services.time, who.owner(), id)) {
        return render_page(who, "Not found",
                           notice_html("No token " + id + " in this environment.", true), 404);
    }
    // As DELETE /tokens/{id}: the shared cache drops it, so it stops working at once.
    context.services.tokens.invalidate_if(
        [&](const token_credentials& cached) { return cached.token.id == id; });
    record_dashboard_action(context, who, "token revoked", id);
    return redirect_after_post("/dashboard/tokens?revoked=1");
}

}  // namespace

void register_dashboard_token_routes(router& routes) {
    routes.add({.method = http_method::get,
                .pattern = "/dashboard/tokens",
                .who = access::public_route,
                .handler = tokens_page});
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/tokens",
                .who = access::public_route,
                .handler = create_token_submit});
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/tokens/{tokenId}/revoke",
                .who = access::public_route,
                .handler = revoke_token_submit});
}

}  // namespace corridor
