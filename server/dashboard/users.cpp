// Dashboard users: the shared creation helpers, and the users page where an admin invites users
// of the platform (a setup link to hand over) and disables them.
#include "server/dashboard/users.hpp"

#include <algorithm>
#include <cctype>

#include "ledger/base/time_format.hpp"
#include "ledger/platforms/token_store.hpp"
#include "server/api/app.hpp"
#include "server/api/html.hpp"
#include "server/process/config.hpp"
#include "server/dashboard/auth.hpp"
#include "server/dashboard/layout.hpp"

namespace corridor {
namespace {

constexpr std::size_t email_chars_max = 254;
constexpr std::size_t setup_token_bytes = 32;

std::string users_table(request_context& context, const dashboard_session& who) {
    auto users = list_dashboard_users(context.session(), who.platform_id);
    std::string out =
        "<div class=\"table-wrap\" tabindex=\"0\" role=\"region\" "
        "aria-label=\"Users\"><table><thead><tr><th scope=\"col\">E-mail</th>"
        "<th scope=\"col\">Role</th><th scope=\"col\">State</th><th "
        "scope=\"col\">Two-step</th><th scope=\"col\">Created</th><th "
        "scope=\"col\"><span class=\"skip\">Actions</span></th></tr></thead><tbody>";
    for (const auto& user : users) {
        std::string state = user.disabled                ? "disabled"
                            : user.password_hash.empty() ? "invited"
                                                         : "active";
        out += "<tr><td>" + html_escape(user.email) + "</td><td>" + html_escape(user.role) +
               "</td><td>" + state + "</td><td>" + (user.totp_secret.empty() ? "off" : "on") +
               "</td><td>" + format_timestamp_ms(user.created_at_ms) + "</td><td>";
        if (!user.disabled && user.password_hash.empty()) {
            out += "<form class=\"inline\" method=\"post\" action=\"/dashboard/users/" +
                   html_escape(user.id) + "/setup-link\">" + csrf_input(who) +
                   "<button class=\"secondary\" type=\"submit\" aria-label=\"New setup link for " +
                   html_escape(user.email) + "\">New setup link</button></form> ";
        }
        if (!user.disabled && user.id != who.user_id) {
            out += "<form class=\"inline\" method=\"post\" action=\"/dashboard/users/" +
                   html_escape(user.id) + "/disable\">" + csrf_input(who) +
                   "<button class=\"danger\" type=\"submit\" aria-label=\"Disable " +
                   html_escape(user.email) + "\">Disable</button></form>";
        }
        out += "</td></tr>";
    }
    out += "</tbody></table></div>";
    return out;
}

std::string invite_form(const dashboard_session& who, std::string_view email) {
    std::string out = "<h2>Invite a user</h2><form method=\"post\" action=\"/dashboard/users\">" +
                      csrf_input(who);
    out +=
        "<label for=\"email\">E-mail</label><input id=\"email\" name=\"email\" type=\"email\" "
        "required maxlength=\"254\" value=\"" +
        html_escape(email) + "\">";
    out +=
        "<label for=\"role\">Role</label><select id=\"role\" name=\"role\">"
        "<option value=\"viewer\">viewer: reads everything</option>"
        "<option value=\"developer\" selected>developer: also tokens, webhooks, sandbox "
        "tools</option>"
        "<option value=\"admin\">admin: also users and configuration</option></select>";
    out += "<p><button type=\"submit\">Invite</button></p></form>";
    return out;
}

http_response users_page_with(request_context& context, const dashboard_session& who,
                              std::string_view top, std::string_view email, unsigned status) {
    std::string body(top);
    body += users_table(context, who);
    body += invite_form(who, email);
    return render_page(who, "Users", body, status);
}

http_response users_page(request_context& context) {
    auto resolved = require_dashboard(context, dashboard_role::admin);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    auto& who = std::get<dashboard_session>(resolved);
    std::string top = context.query.get("disabled") ? notice_html("The user is disabled.") : "";
    return users_page_with(context, who, top, "", 200);
}

http_response invite_user(request_context& context) {
    auto form = read_form(context.request);
    if (!form) return unreadable_form();
    auto resolved = require_dashboard_post(context, dashboard_role::admin, *form);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    auto& who = std::get<dashboard_session>(resolved);
    std::string given = form_value(*form, "email");
    auto email = normalize_email(given);
    auto role = parse_dashboard_role(form_value(*form, "role"));
    if (!email)
        return users_page_with(context, who, notice_html("The e-mail address is not valid.", true),
                               given, 400);
    if (!role)
        return users_page_with(context, who,
                               notice_html("The role must be viewer, developer or admin.", true),
                               given, 400);
    auto& services = context.services;
    auto& db = context.session();
    dashboard_user_error error{};
    auto user =
        create_dashboard_user(db, services.ids, services.time,
                              {who.platform_id, *email, std::string(to_string(*role)), ""}, error);
    if (!user) {
        return users_page_with(
            context, who, notice_html("A dashboard user with this e-mail already exists.", true),
            given, 409);
    }
    std::string link =
        issue_setup_link(db, services.random, services.time, services.config, user->id);
    record_dashboard_action(context, who, "user invited", *email + " as " + user->role);
    std::string top = notice_html("Invited " + *email +
                                  ". Give them this setup link (single use, it "
                                  "expires); it lets them choose a password.");
    top += "<p><code id=\"setup-link\" class=\"secret\">" + html_escape(link) +
           "</code> <button type=\"button\" class=\"secondary\" data-copy=\"setup-link\" "
           "hidden>Copy link</button></p>";
    return users_page_with(context, who, top, "", 201);
}

std::string setup_link_notice(std::string_view text, std::string_view link) {
    std::string out = notice_html(text);
    out += "<p><code id=\"setup-link\" class=\"secret\">" + html_escape(link) +
           "</code> <button type=\"button\" class=\"secondary\" data-copy=\"setup-link\" "
           "hidden>Copy link</button></p>";
    return out;
}

// A new setup link for a user who has not chosen a password yet (the first one expired or was
// lost). Links issued before stay valid until they expire or one is used.
http_response renew_setup_link(request_context& context) {
    auto form = read_form(context.request);
    if (!form) return unreadable_form();
    auto resolved = require_dashboard_post(context, dashboard_role::admin, *form);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    auto& who = std::get<dashboard_session>(resolved);
    const std::string& id = context.param(0);
    auto& db = context.session();
    auto user = find_dashboard_user(db, id, who.platform_id);
    if (!user) {
        return render_page(who, "Not found",
                           notice_html("No user " + id + " on this platform.", true), 404);
    }
    if (user->disabled || !user->password_hash.empty()) {
        return users_page_with(
            context, who,
            notice_html(
                user->email + (user->disabled ? " is disabled." : " has already set a password."),
                true),
            "", 409);
    }
    auto& services = context.services;
    std::string link = issue_setup_link(db, services.random, services.time, services.config, id);
    record_dashboard_action(context, who, "setup link issued", user->email);
    return users_page_with(
        context, who,
        setup_link_notice("A new setup link for " + user->email + " (single use, it expires):",
                          link),
        "", 201);
}

http_response disable_user(request_context& context) {
    auto form = read_form(context.request);
    if (!form) return unreadable_form();
    auto resolved = require_dashboard_post(context, dashboard_role::admin, *form);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    auto& who = std::get<dashboard_session>(resolved);
    const std::string& id = context.param(0);
    if (id == who.user_id) {
        return users_page_with(context, who, notice_html("You cannot disable yourself.", true), "",
                               400);
    }
    // Another platform's user reads as not found.
    if (!disable_dashboard_user(context.session(), context.services.time, id, who.platform_id)) {
        return render_page(who, "Not found",
                           notice_html("No user " + id + " on this platform.", true), 404);
    }
    record_dashboard_action(context, who, "user disabled", id);
    return redirect_after_post("/dashboard/users?disabled=1");
}

}  // namespace

std::optional<std::string> normalize_email(std::string_view text) {
    if (text.empty() || text.size() > email_chars_max) return std::nullopt;
    auto at = text.find('@');
    if (at == 0 || at == std::string_view::npos || at + 1 >= text.size() ||
        text.find('@', at + 1) != std::string_view::npos) {
        return std::nullopt;
    }
    std::string out;
    for (char c : text) {
        unsigned char u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u >= 0x7f || c == '<' || c == '>' || c == '"' || c == ',' || c == ';') {
            return std::nullopt;
        }
        out.push_back(static_cast<char>(std::tolower(u)));
    }
    if (out.find('.', at) == std::string::npos) return std::nullopt;  // a domain has a dot
    return out;
}

std::string issue_setup_link(soci::session& session, random_source& random, const clock& time,
                             const service_config& config, const std::string& user_id) {
    // The prefix lets the access log recognise the token in the path and leave it out.
    std::string token = "setup-" + random_hex(random, setup_token_bytes);
    create_setup_link(session, time, user_id, hash_secret(token),
                      config.dashboard.setup_link_ttl_ms);
    std::string base = config.public_base_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    return base + "/dashboard/setup/" + token;
}

void register_dashboard_user_routes(router& routes) {
    routes.add({.method = http_method::get,
                .pattern = "/dashboard/users",
                .who = access::public_route,
                .handler = users_page});
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/users",
                .who = access::public_route,
                .handler = invite_user});
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/users/{userId}/setup-link",
                .who = access::public_route,
                .handler = renew_setup_link});
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/users/{userId}/disable",
                .who = access::public_route,
                .handler = disable_user});
}

}  // namespace corridor
