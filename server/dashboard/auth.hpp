#pragma once
// The dashboard's sign-in machinery shared by its route files: the session cookie, starting and
// ending sessions, the same-origin check and the response helpers for signed-out visitors.
#include <optional>
#include <string>
#include <string_view>

#include "ledger/platforms/dashboard_store.hpp"
#include "server/dashboard/session.hpp"
#include "server/http/http_types.hpp"

namespace corridor {

struct request_context;
class router;

constexpr std::string_view session_cookie_name = "corridor_session";
constexpr std::string_view sign_in_cookie_name = "corridor_sign_in";
constexpr std::string_view dashboard_home = "/dashboard/";

// The value of a cookie of the request, or nullopt.
std::optional<std::string> request_cookie(const http_request& request, std::string_view name);
// A Set-Cookie value: HttpOnly, SameSite=Strict, Path=/dashboard, Secure when served over TLS;
// max_age_s < 0 makes a session cookie, 0 deletes it.
std::string dashboard_cookie(const request_context& context, std::string_view name,
                             std::string_view value, long long max_age_s = -1);

// Whether a state-changing request comes from our own pages: Origin (or, without it,
// Sec-Fetch-Site) must name this site. A request with neither (not a browser) passes: the CSRF
// token still guards it.
bool same_origin_request(const request_context& context);
bool tokens_equal(std::string_view a, std::string_view b);  // constant time

// Starts a session for the user (a fresh random id: an id a visitor held before is never kept)
// and returns the Set-Cookie value.
std::string start_dashboard_session(request_context& context, const dashboard_user& user,
                                    bool second_factor_pending);
// The session row behind the request's cookie (live, possibly pending the second factor).
std::optional<dashboard_session_row> current_session_row(request_context& context);

// 303 to the sign-in form, remembering where the visitor wanted to go.
http_response redirect_to_sign_in(std::string_view next_path);
// A dashboard page only an already-signed-in frame can show: 403 naming the missing role.
http_response forbidden_page(const dashboard_session& who, std::string_view why);

// Where a user goes when a platform requires a second factor and the user has none yet.
constexpr std::string_view security_path = "/dashboard/security";

// Route registration of the files of the foundation.
void register_dashboard_auth_routes(router& routes);
void register_dashboard_token_routes(router& routes);
void register_dashboard_webhook_routes(router& routes);
void register_dashboard_user_routes(router& routes);
void register_dashboard_audit_routes(router& routes);

}  // namespace corridor
