#pragma once
// The dashboard's data pages, one registration per page file; register_dashboard_page_routes
// (server/dashboard/routes.hpp) calls them all.
namespace corridor {

class router;

void register_dashboard_transaction_pages(router& routes);    // transactions.cpp: and quotes

}  // namespace corridor
