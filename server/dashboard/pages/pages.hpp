#pragma once
// The dashboard's data pages, one registration per page file; register_dashboard_page_routes
// (server/dashboard/routes.hpp) calls them all.
namespace corridor {

class router;

void register_dashboard_overview_page(router& routes);        // overview.cpp
void register_dashboard_transaction_pages(router& routes);    // transactions.cpp: and quotes
void register_dashboard_customer_pages(router& routes);       // customers.cpp
void register_dashboard_configuration_pages(router& routes);  // configuration.cpp
void register_dashboard_sandbox_pages(router& routes);        // sandbox.cpp

}  // namespace corridor
