#include "server/dashboard/routes.hpp"

#include "server/dashboard/pages/pages.hpp"

namespace corridor {

void register_dashboard_page_routes(router& routes) {
    register_dashboard_transaction_pages(routes);
}

}  // namespace corridor
