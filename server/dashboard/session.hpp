#pragma once
// Who is looking at the dashboard: the signed-in user of one platform, the environment they look at
// and the CSRF token of their session. Resolved from the session cookie by require_dashboard; pages
// take their tenant from owner(), never from anything the browser sends.
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "ledger/base/tenant.hpp"
#include "server/dashboard/form.hpp"
#include "server/http/http_types.hpp"

namespace corridor {

struct request_context;  // server/api/app.hpp

enum class dashboard_role {
    viewer,
    developer,
    admin
};  // each includes the rights of the one before

std::string_view to_string(dashboard_role role);
std::optional<dashboard_role> parse_dashboard_role(std::string_view text);

struct dashboard_session {
    std::string user_id, email, platform_id, platform_name;
    dashboard_role role = dashboard_role::viewer;
    environment env = environment::sandbox;  // the environment the user is looking at
    std::string csrf_token;
    std::string session_hash;  // the stored (hashed) session id, for sign-out and the switch
    bool totp_enrolled = false;
    std::string path;  // the path of the request, for the environment switch to come back to

    tenant owner() const { return {platform_id, env}; }
    bool can(dashboard_role at_least) const { return role >= at_least; }
};

// Resolves the session cookie for a GET: a signed-out visitor gets a redirect to the sign-in form,
// a user below `at_least` gets 403; those come back as the http_response to send instead.
std::variant<dashboard_session, http_response> require_dashboard(request_context& context,
                                                                 dashboard_role at_least);

// For a state-changing POST: the same, plus the CSRF token (form field "csrf") and the Origin
// check; refused -> 403.
std::variant<dashboard_session, http_response> require_dashboard_post(request_context& context,
                                                                      dashboard_role at_least,
                                                                      const form_fields& form);

// Writes one line to the platform's dashboard audit log (who, what, when, from where).
void record_dashboard_action(request_context& context, const dashboard_session& who,
                             std::string_view action, std::string_view detail);

}  // namespace corridor
