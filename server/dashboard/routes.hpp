#pragma once
// The dashboard's routes under /dashboard/: register_dashboard_routes (sign-in, sign-out, tokens,
// webhooks, users, audit, security) and register_dashboard_page_routes (the data pages, in
// server/dashboard/pages/). Both are called from server/api/app.cpp.
namespace corridor {

class router;

void register_dashboard_routes(router& routes);
void register_dashboard_page_routes(router& routes);

}  // namespace corridor
