#pragma once
// The dashboard's page frame and the response helpers every dashboard page uses.
#include <string>
#include <string_view>

#include "server/dashboard/session.hpp"
#include "server/http/http_types.hpp"

namespace corridor {

// The whole page: the shared head (strict CSP, no external assets), a header naming the platform
// and the environment with the sandbox/production switch, the navigation (links listed in
// layout.cpp's nav table: each page adds its line), then body_html (already escaped where dynamic:
// use html_escape from server/api/html.hpp).
http_response render_page(const dashboard_session& who, std::string_view title,
                          std::string_view body_html, unsigned status = 200);

// A page without the signed-in frame (sign-in, setup link, errors for signed-out visitors).
http_response render_public_page(std::string_view title, std::string_view body_html,
                                 unsigned status = 200);

std::string csrf_input(const dashboard_session& who);  // <input type="hidden" name="csrf" ...>

// After a successful POST: 303 See Other to `location` (post/redirect/get).
http_response redirect_after_post(std::string_view location);

// The security headers of every dashboard response (CSP, frame, referrer, nosniff, no-store).
void add_dashboard_headers(http_response& response);

// The one stylesheet and the one (optional) script of the dashboard, served from
// /dashboard/assets/ so that the CSP needs no inline allowance.
std::string_view dashboard_stylesheet();
std::string_view dashboard_script();

// A wide table in a region that scrolls sideways on a phone; the region is focusable and labelled
// so that keyboard users can scroll it (axe: scrollable-region-focusable).
std::string table_region(std::string_view label, std::string_view table_html);

// A short notice block (role="status" or role="alert") for a page's body.
std::string notice_html(std::string_view text, bool is_error = false);

// 400 for a post whose form cannot be read (not urlencoded, or a malformed body).
http_response unreadable_form();

}  // namespace corridor
