#include "server/dashboard/session.hpp"

#include <openssl/crypto.h>

#include "ledger/platforms/dashboard_store.hpp"
#include "ledger/platforms/token_store.hpp"
#include "server/api/app.hpp"
#include "server/dashboard/auth.hpp"
#include "server/dashboard/layout.hpp"

namespace corridor {
namespace {

constexpr std::size_t session_id_bytes = 32;
constexpr std::size_t csrf_token_bytes = 32;

std::string origin_of_url(std::string_view url) {
    auto scheme_end = url.find("://");
    if (scheme_end == std::string_view::npos) return {};
    auto path_start = url.find('/', scheme_end + 3);
    return std::string(url.substr(0, path_start));
}

bool served_over_tls(const request_context& context) {
    const auto& config = context.services.config;
    return config.tls.enabled() || config.public_base_url.rfind("https://", 0) == 0;
}

std::string current_path(const request_context& context) {
    const std::string& target = context.request.target;
    return target.substr(0, target.find('?'));
}

// The signed-in user behind the request, or the response that refuses it.
std::variant<dashboard_session, http_response> resolve(request_context& context,
                                                       dashboard_role at_least) {
    std::string path = current_path(context);
    auto row = current_session_row(context);
    if (!row) return redirect_to_sign_in(path);
    if (row->second_factor_pending) {
        http_response response = redirect_after_post("/dashboard/sign-in/code");
        return response;
    }
    auto& db = context.session();
    auto user = find_dashboard_user(db, row->user_id, row->platform_id);
    if (!user || user->disabled || user->password_hash.empty()) {
        end_dashboard_session(db, context.services.time, row->id_hash);
        return redirect_to_sign_in(path);
    }
    dashboard_session who;
    who.user_id = user->id;
    who.email = user->email;
    who.platform_id = user->platform_id;
    who.platform_name = platform_name(db, user->platform_id).value_or(user->platform_id);
    who.role = parse_dashboard_role(user->role).value_or(dashboard_role::viewer);
    who.env = parse_environment(row->environment).value_or(environment::sandbox);
    who.csrf_token = row->csrf_token;
    who.session_hash = row->id_hash;
    who.totp_enrolled = !user->totp_secret.empty();
    who.path = path;
    // Until enrolled, a user of a platform that requires a second factor may only enrol (or
    // change the policy, as an admin) and sign out.
    bool exempt = path.rfind(security_path, 0) == 0 || path == "/dashboard/sign-out";
    if (!who.totp_enrolled && !exempt &&
        load_dashboard_settings(db, who.platform_id).totp_required) {
        return redirect_after_post(security_path);
    }
    if (!who.can(at_least)) {
        return forbidden_page(who, "This needs the " + std::string(to_string(at_least)) +
                                       " role; you are " + std::string(to_string(who.role)) + ".");
    }
    return who;
}

}  // namespace

std::string_view to_string(dashboard_role role) {
    switch (role) {
        case dashboard_role::viewer: return "viewer";
        case dashboard_role::developer: return "developer";
        case dashboard_role::admin: return "admin";
    }
    return "viewer";
}

std::optional<dashboard_role> parse_dashboard_role(std::string_view text) {
    if (text == "viewer") return dashboard_role::viewer;
    if (text == "developer") return dashboard_role::developer;
    if (text == "admin") return dashboard_role::admin;
    return std::nullopt;
}

std::optional<std::string> request_cookie(const http_request& request, std::string_view name) {
    for (const auto& [header, value] : request.headers) {
        if (header != "cookie") continue;
        std::string_view rest = value;
        while (!rest.empty()) {
            auto end = rest.find(';');
            std::string_view pair = rest.substr(0, end);
            rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
            while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
            auto equals = pair.find('=');
            if (equals == std::string_view::npos) continue;
            if (pair.substr(0, equals) == name) return std::string(pair.substr(equals + 1));
        }
    }
    return std::nullopt;
}

std::string dashboard_cookie(const request_context& context, std::string_view name,
                             std::string_view value, long long max_age_s) {
    std::string cookie = std::string(name) + "=" + std::string(value) +
                         "; Path=/dashboard; HttpOnly; SameSite=Strict";
    if (max_age_s >= 0) cookie += "; Max-Age=" + std::to_string(max_age_s);
    if (served_over_tls(context)) cookie += "; Secure";
    return cookie;
}

bool tokens_equal(std::string_view a, std::string_view b) {
    return a.size() == b.size() && !a.empty() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool same_origin_request(const request_context& context) {
    const auto& request = context.request;
    auto origin = request.header("origin");
    // Browsers send "Origin: null" for a form posted from a page with Referrer-Policy: no-referrer
    // (ours): that says nothing, and Sec-Fetch-Site decides.
    if (origin && *origin != "null") {
        if (origin->empty()) return false;
        if (auto host = request.header("host")) {
            std::string own_host(*host);
            if (*origin == "http://" + own_host || *origin == "https://" + own_host) return true;
        }
        std::string configured = origin_of_url(context.services.config.public_base_url);
        return !configured.empty() && *origin == configured;
    }
    if (auto site = request.header("sec-fetch-site")) return *site == "same-origin";
    return true;
}

std::string start_dashboard_session(request_context& context, const dashboard_user& user,
                                    bool second_factor_pending) {
    auto& services = context.services;
    std::string id = random_hex(services.random, session_id_bytes);
    dashboard_session_row row;
    row.id_hash = hash_secret(id);
    row.user_id = user.id;
    row.platform_id = user.platform_id;
    row.environment = "sandbox";
    row.csrf_token = random_hex(services.random, csrf_token_bytes);
    row.second_factor_pending = second_factor_pending;
    row.created_at_ms = row.last_seen_ms = services.time.now_ms();
    prune_dashboard_sessions(context.session(), user.id,
                             row.created_at_ms - services.config.dashboard.session_absolute_ms);
    create_dashboard_session(context.session(), row);
    return dashboard_cookie(context, session_cookie_name, id);
}

std::optional<dashboard_session_row> current_session_row(request_context& context) {
    auto cookie = request_cookie(context.request, session_cookie_name);
    if (!cookie || cookie->size() != session_id_bytes * 2) return std::nullopt;
    const auto& config = context.services.config.dashboard;
    return find_dashboard_session(context.session(), context.services.time, hash_secret(*cookie),
                                  config.session_idle_ms, config.session_absolute_ms);
}

std::variant<dashboard_session, http_response> require_dashboard(request_context& context,
                                                                 dashboard_role at_least) {
    return resolve(context, at_least);
}

std::variant<dashboard_session, http_response> require_dashboard_post(request_context& context,
                                                                      dashboard_role at_least,
                                                                      const form_fields& form) {
    if (!same_origin_request(context)) {
        return render_public_page("Request refused",
                                  notice_html("This form was posted from another site and was "
                                              "refused.",
                                              true),
                                  403);
    }
    auto resolved = resolve(context, at_least);
    auto* who = std::get_if<dashboard_session>(&resolved);
    if (!who) return resolved;
    auto sent = form.find("csrf");
    if (sent == form.end() || !tokens_equal(sent->second, who->csrf_token)) {
        return forbidden_page(*who,
                              "The form's security token is missing or stale; reload the "
                              "page and try again.");
    }
    return resolved;
}

void record_dashboard_action(request_context& context, const dashboard_session& who,
                             std::string_view action, std::string_view detail) {
    dashboard_audit_entry entry;
    entry.platform_id = who.platform_id;
    entry.user_id = who.user_id;
    entry.email = who.email;
    entry.action = std::string(action);
    entry.detail = std::string(detail);
    if (!detail.empty()) entry.detail += " ";
    entry.detail += "(" + std::string(to_string(who.env)) + ")";
    entry.remote_address = context.request.remote_address;
    entry.at_ms = context.services.time.now_ms();
    record_dashboard_audit(context.session(), context.services.ids, entry);
}

}  // namespace corridor
