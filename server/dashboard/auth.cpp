// Sign-in (password, then the second factor when the user has one), sign-out, the setup link that
// sets a password, the environment switch, the second-factor enrolment and the static assets.
#include "server/dashboard/auth.hpp"

#include <cctype>

#include "ledger/platforms/dashboard_store.hpp"
#include "ledger/platforms/token_store.hpp"
#include "server/api/app.hpp"
#include "server/api/html.hpp"
#include "server/dashboard/layout.hpp"
#include "server/dashboard/passwords.hpp"
#include "server/dashboard/throttle.hpp"
#include "server/dashboard/totp.hpp"

namespace corridor {
namespace {

constexpr std::size_t sign_in_token_bytes = 16;
constexpr std::size_t email_chars_max = 254;

std::string lower(std::string text) {
    for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

// A path of our own to go to after signing in; the home page for anything else.
std::string safe_next(const std::optional<std::string>& next) {
    if (!next || next->rfind("/dashboard/", 0) != 0 || next->rfind("/dashboard/sign-", 0) == 0 ||
        next->find_first_of("?#\\\"'<> ") != std::string::npos ||
        next->find("//") != std::string::npos) {
        return std::string(dashboard_home);
    }
    return *next;
}

http_response static_asset(std::string_view body, std::string_view type) {
    http_response response;
    response.body = std::string(body);
    response.content_type = std::string(type);
    add_dashboard_headers(response);
    return response;
}

http_response stylesheet_handler(request_context&) {
    return static_asset(dashboard_stylesheet(), "text/css; charset=utf-8");
}
http_response script_handler(request_context&) {
    return static_asset(dashboard_script(), "text/javascript; charset=utf-8");
}

http_response cross_site_refused() {
    return render_public_page(
        "Request refused",
        notice_html("This form was posted from another site and was refused.", true), 403);
}

// The sign-in form. A fresh token ties the form to this browser (a cookie and a hidden field that
// must match), so that another site cannot sign a visitor in to an account of its choosing.
http_response sign_in_form(request_context& context, std::string_view next, std::string_view email,
                           std::string_view message, bool is_error, unsigned status) {
    std::string token = random_hex(context.services.random, sign_in_token_bytes);
    std::string body;
    if (!message.empty()) body += notice_html(message, is_error);
    body += "<form method=\"post\" action=\"/dashboard/sign-in\">";
    body += "<input type=\"hidden\" name=\"sign_in_token\" value=\"" + token + "\">";
    body += "<input type=\"hidden\" name=\"next\" value=\"" + html_escape(next) + "\">";
    body +=
        "<label for=\"email\">E-mail</label><input id=\"email\" name=\"email\" type=\"email\" "
        "autocomplete=\"username\" required value=\"" +
        html_escape(email) + "\">";
    body +=
        "<label for=\"password\">Password</label><input id=\"password\" name=\"password\" "
        "type=\"password\" autocomplete=\"current-password\" required>";
    body += "<p><button type=\"submit\">Sign in</button></p></form>";
    auto response = render_public_page("Sign in", body, status);
    response.headers.emplace_back("Set-Cookie",
                                  dashboard_cookie(context, sign_in_cookie_name, token));
    return response;
}

http_response sign_in_page(request_context& context) {
    std::string next = safe_next(context.query.get("next"));
    std::string message;
    if (context.query.get("password_set")) message = "Your password is set. Sign in with it.";
    if (context.query.get("signed_out")) message = "You are signed out.";
    return sign_in_form(context, next, "", message, false, 200);
}

// Refused sign-ins all read the same, whatever was wrong, so the form does not tell which
// e-mail addresses have accounts.
constexpr std::string_view sign_in_refused = "The e-mail or password is not right.";

// A hash to verify against when the e-mail has no account, so that both cases take as long.
const std::string& decoy_hash(random_source& random) {
    static const std::string hash = hash_password(random, random_hex(random, 16));
    return hash;
}

std::string wait_message(std::int64_t wait_ms) {
    std::int64_t seconds = (wait_ms + 999) / 1000;
    return "Too many failed attempts. Try again in " + std::to_string(seconds) +
           (seconds == 1 ? " second." : " seconds.");
}

http_response sign_in_submit(request_context& context) {
    if (!same_origin_request(context)) return cross_site_refused();
    auto form = read_form(context.request);
    if (!form) return unreadable_form();
    std::string next = safe_next(form_value(*form, "next"));
    std::string email = lower(form_value(*form, "email"));
    auto cookie = request_cookie(context.request, sign_in_cookie_name);
    if (!cookie || !tokens_equal(*cookie, form_value(*form, "sign_in_token"))) {
        return sign_in_form(context, next, email,
                            "The sign-in form expired; enter your e-mail and password again.", true,
                            403);
    }
    auto& services = context.services;
    auto& throttle = dashboard_sign_in_throttle();
    auto& by_address = dashboard_address_throttle();
    std::int64_t now_ms = services.time.now_ms();
    std::string account_key = "account:" + email;
    const std::string& address_key = context.request.remote_address;
    std::int64_t wait =
        std::max(throttle.wait_ms(account_key, now_ms), by_address.wait_ms(address_key, now_ms));
    if (wait > 0) {
        auto response = sign_in_form(context, next, email, wait_message(wait), true, 429);
        response.headers.emplace_back("Retry-After", std::to_string((wait + 999) / 1000));
        return response;
    }
    std::string password = form_value(*form, "password");
    auto& db = context.session();
    std::optional<dashboard_user> user;
    if (!email.empty() && email.size() <= email_chars_max)
        user = find_dashboard_user_by_email(db, email);
    bool password_ok = false;
    if (user && !user->password_hash.empty()) {
        password_ok = verify_password(password, user->password_hash);
    } else {
        verify_password(password, decoy_hash(services.random));
    }
    if (!password_ok || user->disabled) {
        throttle.record_failure(account_key, now_ms);
        by_address.record_failure(address_key, now_ms);
        if (user) {
            dashboard_audit_entry entry{{},
                                        user->platform_id,
                                        user->id,
                                        user->email,
                                        "sign-in refused",
                                        user->disabled ? "disabled user" : "wrong password",
                                        context.request.remote_address,
                                        now_ms};
            record_dashboard_audit(db, services.ids, entry);
        }
        return sign_in_form(context, next, email, sign_in_refused, true, 401);
    }
    throttle.record_success(account_key);
    // The address's count is not reset: one good account must not buy guesses at others.
    // Whatever session id the browser held is ended: the signed-in session always has a new one.
    if (auto old = current_session_row(context))
        end_dashboard_session(db, services.time, old->id_hash);
    bool needs_code = !user->totp_secret.empty();
    std::string cookie_value = start_dashboard_session(context, *user, needs_code);
    http_response response =
        redirect_after_post(needs_code ? "/dashboard/sign-in/code?next=" + next : next);
    response.headers.emplace_back("Set-Cookie", cookie_value);
    // One Set-Cookie per response (the transport keeps one header of a name): the sign-in token
    // cookie is left to expire with the browser session; it grants nothing.
    if (!needs_code) {
        dashboard_audit_entry entry{{},
                                    user->platform_id,
                                    user->id,
                                    user->email,
                                    "signed in",
                                    "",
                                    context.request.remote_address,
                                    now_ms};
        record_dashboard_audit(db, services.ids, entry);
    }
    return response;
}

http_response code_form(const dashboard_session_row& row, std::string_view next,
                        std::string_view message, unsigned status) {
    std::string body;
    if (!message.empty()) body += notice_html(message, true);
    body += "<p>Enter the 6-digit code from your authenticator app.</p>";
    body += "<form method=\"post\" action=\"/dashboard/sign-in/code\">";
    body += "<input type=\"hidden\" name=\"csrf\" value=\"" + html_escape(row.csrf_token) + "\">";
    body += "<input type=\"hidden\" name=\"next\" value=\"" + html_escape(next) + "\">";
    body +=
        "<label for=\"code\">Code</label><input id=\"code\" name=\"code\" type=\"text\" "
        "inputmode=\"numeric\" autocomplete=\"one-time-code\" pattern=\"[0-9]{6}\" required>";
    body += "<p><button type=\"submit\">Verify</button></p></form>";
    return render_public_page("Two-step verification", body, status);
}

http_response code_page(request_context& context) {
    auto row = current_session_row(context);
    if (!row || !row->second_factor_pending) return redirect_to_sign_in("");
    return code_form(*row, safe_next(context.query.get("next")), "", 200);
}

http_response code_submit(request_context& context) {
    if (!same_origin_request(context)) return cross_site_refused();
    auto form = read_form(context.request);
    if (!form) return unreadable_form();
    auto row = current_session_row(context);
    if (!row || !row->second_factor_pending) return redirect_to_sign_in("");
    if (!tokens_equal(form_value(*form, "csrf"), row->csrf_token)) return cross_site_refused();
    std::string next = safe_next(form_value(*form, "next"));
    auto& services = context.services;
    auto& db = context.session();
    auto& throttle = dashboard_sign_in_throttle();
    std::int64_t now_ms = services.time.now_ms();
    std::string account_key = "code:" + row->user_id;
    if (auto wait = throttle.wait_ms(account_key, now_ms); wait > 0) {
        return code_form(*row, next, wait_message(wait), 429);
    }
    auto user = find_dashboard_user(db, row->user_id, row->platform_id);
    if (!user || user->disabled || user->totp_secret.empty()) return redirect_to_sign_in("");
    auto key = base32_decode(user->totp_secret);
    auto step = key ? totp_matching_step(*key, form_value(*form, "code"), now_ms) : std::nullopt;
    // A code is good once: a step at or before the last one accepted is refused.
    if (!step || !claim_totp_step(db, user->id, *step)) {
        throttle.record_failure(account_key, now_ms);
        dashboard_audit_entry entry{{},
                                    user->platform_id,
                                    user->id,
                                    user->email,
                                    "sign-in refused",
                                    "wrong or reused code",
                                    context.request.remote_address,
                                    now_ms};
        record_dashboard_audit(db, services.ids, entry);
        return code_form(*row, next, "That code is not right, or was already used.", 401);
    }
    throttle.record_success(account_key);
    end_dashboard_session(db, services.time, row->id_hash);
    std::string cookie_value = start_dashboard_session(context, *user, false);
    dashboard_audit_entry entry{{},
                                user->platform_id,
                                user->id,
                                user->email,
                                "signed in",
                                "with a code",
                                context.request.remote_address,
                                now_ms};
    record_dashboard_audit(db, services.ids, entry);
    http_response response = redirect_after_post(next);
    response.headers.emplace_back("Set-Cookie", cookie_value);
    return response;
}

http_response sign_out(request_context& context) {
    auto form = read_form(context.request);
    if (!form) return unreadable_form();
    auto resolved = require_dashboard_post(context, dashboard_role::viewer, *form);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    auto& who = std::get<dashboard_session>(resolved);
    end_dashboard_session(context.session(), context.services.time, who.session_hash);
    record_dashboard_action(context, who, "signed out", "");
    http_response response = redirect_after_post("/dashboard/sign-in?signed_out=1");
    response.headers.emplace_back("Set-Cookie",
                                  dashboard_cookie(context, session_cookie_name, "", 0));
    return response;
}

http_response switch_environment(request_context& context) {
    auto form = read_form(context.request);
    if (!form) return unreadable_form();
    auto resolved = require_dashboard_post(context, dashboard_role::viewer, *form);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    auto& who = std::get<dashboard_session>(resolved);
    auto env = parse_environment(form_value(*form, "environment"));
    if (!env) {
        return render_page(who, "Environment",
                           notice_html("environment must be sandbox or production", true), 400);
    }
    set_dashboard_session_environment(context.session(), who.session_hash, *env);
    std::string back = safe_next(form_value(*form, "back"));
    // Sandbox tools have no production page: land on the home page instead.
    if (*env == environment::production && back.rfind("/dashboard/sandbox", 0) == 0) {
        back = std::string(dashboard_home);
    }
    return redirect_after_post(back);
}

// --- the setup link -------------------------------------------------------------------------

http_response setup_form(std::string_view token, std::string_view email, std::string_view message,
                         unsigned status) {
    std::string body;
    if (!message.empty()) body += notice_html(message, true);
    body += "<p>Choose the password for <strong>" + html_escape(email) + "</strong>. At least " +
            std::to_string(password_chars_min) +
            " characters; the most common passwords are refused.</p>";
    body += "<form method=\"post\" action=\"/dashboard/setup/" + html_escape(token) + "\">";
    body += "<input type=\"hidden\" name=\"username\" value=\"" + html_escape(email) +
            "\" "
            "autocomplete=\"username\">";
    body +=
        "<label for=\"password\">New password</label><input id=\"password\" name=\"password\" "
        "type=\"password\" autocomplete=\"new-password\" required minlength=\"" +
        std::to_string(password_chars_min) + "\">";
    body +=
        "<label for=\"confirm\">The same password again</label><input id=\"confirm\" "
        "name=\"confirm\" type=\"password\" autocomplete=\"new-password\" required>";
    body += "<p><button type=\"submit\">Set password</button></p></form>";
    return render_public_page("Set your password", body, status);
}

http_response link_gone() {
    return render_public_page("Link not valid",
                              notice_html("This setup link was already used or has expired. Ask "
                                          "an admin of your platform for a new one.",
                                          true),
                              404);
}

std::optional<dashboard_user> setup_link_user(request_context& context, const std::string& token) {
    if (token.size() > 128) return std::nullopt;
    auto user_id =
        find_setup_link_user(context.session(), context.services.time, hash_secret(token));
    if (!user_id) return std::nullopt;
    auto user = find_dashboard_user(context.session(), *user_id, std::nullopt);
    if (!user || user->disabled) return std::nullopt;
    return user;
}

http_response setup_page(request_context& context) {
    auto user = setup_link_user(context, context.param(0));
    if (!user) return link_gone();
    return setup_form(context.param(0), user->email, "", 200);
}

http_response setup_submit(request_context& context) {
    if (!same_origin_request(context)) return cross_site_refused();
    auto form = read_form(context.request);
    if (!form) return unreadable_form();
    const std::string& token = context.param(0);
    auto user = setup_link_user(context, token);
    if (!user) return link_gone();
    std::string password = form_value(*form, "password");
    if (password != form_value(*form, "confirm")) {
        return setup_form(token, user->email, "The two passwords differ.", 400);
    }
    if (auto problem = password_problem(password); !problem.empty()) {
        return setup_form(token, user->email, "The password " + problem + ".", 400);
    }
    auto& services = context.services;
    auto& db = context.session();
    std::string hash = hash_password(services.random, password);
    if (!use_setup_link(db, services.time, hash_secret(token))) return link_gone();
    set_dashboard_password(db, services.time, user->id, hash);
    dashboard_audit_entry entry{{},
                                user->platform_id,
                                user->id,
                                user->email,
                                "password set",
                                "with a setup link",
                                context.request.remote_address,
                                services.time.now_ms()};
    record_dashboard_audit(db, services.ids, entry);
    return redirect_after_post("/dashboard/sign-in?password_set=1");
}

// --- second factor --------------------------------------------------------------------------

std::string security_body(request_context& context, const dashboard_session& who,
                          std::string_view message, bool is_error) {
    auto& db = context.session();
    auto settings = load_dashboard_settings(db, who.platform_id);
    std::string body;
    if (!message.empty()) body += notice_html(message, is_error);
    body += "<h2>Two-step verification</h2>";
    if (who.totp_enrolled) {
        body += "<p>On: signing in asks for a code from your authenticator app.</p>";
    } else {
        if (settings.totp_required) {
            body += notice_html("Your platform requires two-step verification. Set it up to go on.",
                                true);
        }
        std::string secret = new_totp_secret(context.services.random);
        body +=
            "<p>Add this key to an authenticator app (time-based, 6 digits, 30 seconds), then "
            "enter the code it shows.</p>";
        body += "<p>Key: <code id=\"totp-secret\" class=\"secret\">" + secret +
                "</code> "
                "<button type=\"button\" class=\"secondary\" data-copy=\"totp-secret\" hidden>Copy "
                "key</button></p>";
        body += "<p class=\"muted\">Or as a link for the app: <code class=\"secret\">" +
                html_escape(totp_uri("Corridor " + who.platform_name, who.email, secret)) +
                "</code></p>";
        body += "<form method=\"post\" action=\"/dashboard/security/totp\">" + csrf_input(who);
        body += "<input type=\"hidden\" name=\"secret\" value=\"" + secret + "\">";
        body +=
            "<label for=\"code\">Code from the app</label><input id=\"code\" name=\"code\" "
            "type=\"text\" inputmode=\"numeric\" autocomplete=\"one-time-code\" "
            "pattern=\"[0-9]{6}\" required>";
        body += "<p><button type=\"submit\">Turn on two-step verification</button></p></form>";
    }
    if (who.can(dashboard_role::admin)) {
        body +=
            "<h2>Platform policy</h2><form method=\"post\" action=\"/dashboard/security/policy\">" +
            csrf_input(who);
        body += "<fieldset><legend>Two-step verification for every user</legend>";
        body +=
            std::string(
                "<input type=\"radio\" id=\"require-on\" name=\"totp_required\" value=\"yes\"") +
            (settings.totp_required ? " checked" : "") +
            "><label for=\"require-on\">Required</label>";
        body +=
            std::string(
                "<input type=\"radio\" id=\"require-off\" name=\"totp_required\" value=\"no\"") +
            (settings.totp_required ? "" : " checked") +
            "><label for=\"require-off\">Optional</label></fieldset>";
        body += "<p><button type=\"submit\">Save policy</button></p></form>";
    }
    return body;
}

http_response security_page(request_context& context) {
    auto resolved = require_dashboard(context, dashboard_role::viewer);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    auto& who = std::get<dashboard_session>(resolved);
    std::string message = context.query.get("saved") ? "Saved." : "";
    return render_page(who, "Security", security_body(context, who, message, false));
}

http_response enrol_totp(request_context& context) {
    auto form = read_form(context.request);
    if (!form) return unreadable_form();
    auto resolved = require_dashboard_post(context, dashboard_role::viewer, *form);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    auto& who = std::get<dashboard_session>(resolved);
    if (who.totp_enrolled) return redirect_after_post(security_path);
    std::string secret = form_value(*form, "secret");
    auto key = base32_decode(secret);
    auto& services = context.services;
    auto step = key && key->size() >= 16
                    ? totp_matching_step(*key, form_value(*form, "code"), services.time.now_ms())
                    : std::nullopt;
    if (!step) {
        return render_page(who, "Security",
                           security_body(context, who,
                                         "That code does not match the key. A new key is shown "
                                         "below; add it to the app and try again.",
                                         true),
                           400);
    }
    auto& db = context.session();
    set_dashboard_totp(db, services.time, who.user_id, secret);
    claim_totp_step(db, who.user_id, *step);  // the code used to enrol cannot sign in
    record_dashboard_action(context, who, "two-step verification turned on", "");
    return redirect_after_post(std::string(security_path) + "?saved=1");
}

http_response save_policy(request_context& context) {
    auto form = read_form(context.request);
    if (!form) return unreadable_form();
    auto resolved = require_dashboard_post(context, dashboard_role::admin, *form);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    auto& who = std::get<dashboard_session>(resolved);
    std::string value = form_value(*form, "totp_required");
    if (value != "yes" && value != "no") {
        return render_page(who, "Security",
                           security_body(context, who, "totp_required must be yes or no", true),
                           400);
    }
    save_dashboard_settings(context.session(), who.platform_id, {value == "yes"});
    record_dashboard_action(context, who, "two-step verification policy",
                            value == "yes" ? "required" : "optional");
    return redirect_after_post(std::string(security_path) + "?saved=1");
}

}  // namespace

void register_dashboard_auth_routes(router& routes) {
    routes.add({.method = http_method::get,
                .pattern = "/dashboard/assets/style.css",
                .who = access::public_route,
                .needs_database = false,
                .handler = stylesheet_handler});
    routes.add({.method = http_method::get,
                .pattern = "/dashboard/assets/copy.js",
                .who = access::public_route,
                .needs_database = false,
                .handler = script_handler});
    routes.add({.method = http_method::get,
                .pattern = "/dashboard/sign-in",
                .who = access::public_route,
                .handler = sign_in_page});
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/sign-in",
                .who = access::public_route,
                .handler = sign_in_submit});
    routes.add({.method = http_method::get,
                .pattern = "/dashboard/sign-in/code",
                .who = access::public_route,
                .handler = code_page});
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/sign-in/code",
                .who = access::public_route,
                .handler = code_submit});
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/sign-out",
                .who = access::public_route,
                .handler = sign_out});
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/environment",
                .who = access::public_route,
                .handler = switch_environment});
    routes.add({.method = http_method::get,
                .pattern = "/dashboard/setup/{token}",
                .who = access::public_route,
                .handler = setup_page});
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/setup/{token}",
                .who = access::public_route,
                .handler = setup_submit});
    routes.add({.method = http_method::get,
                .pattern = std::string(security_path),
                .who = access::public_route,
                .handler = security_page});
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/security/totp",
                .who = access::public_route,
                .handler = enrol_totp});
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/security/policy",
                .who = access::public_route,
                .handler = save_policy});
}

void register_dashboard_routes(router& routes) {
    register_dashboard_auth_routes(routes);
    register_dashboard_token_routes(routes);
    register_dashboard_webhook_routes(routes);
    register_dashboard_user_routes(routes);
    register_dashboard_audit_routes(routes);
}

}  // namespace corridor
