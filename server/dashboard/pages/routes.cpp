#include "server/dashboard/routes.hpp"

#include "server/dashboard/pages/pages.hpp"

namespace corridor {

void register_dashboard_page_routes(router& routes) {
    register_dashboard_overview_page(routes);
    register_dashboard_transaction_pages(routes);
    register_dashboard_customer_pages(routes);
    register_dashboard_configuration_pages(routes);
    register_dashboard_sandbox_pages(routes);
}

}  // namespace corridor
