// GET /healthz (the process is alive), GET /readyz (the store answers and is migrated) on both
// listeners; GET /metrics (Prometheus text) on the admin listener only, as metrics describe the
// whole service and are for the operator's tools.
#include "ledger/store/migrations.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"

namespace corridor {
namespace {

http_response healthz(request_context&) {
    return json_response(200, boost::json::object{{"status", "ok"}});
}

http_response readyz(request_context& context) {
    int applied = applied_migration_version(context.session());
    if (applied != latest_migration_version()) {
        return error_response(error_code::service_unavailable,
                              "database schema is at version " + std::to_string(applied) +
                                  ", this build needs " + std::to_string(latest_migration_version()));
    }
    return json_response(200, boost::json::object{{"status", "ready"}, {"schemaVersion", applied}});
}

http_response metrics_text(request_context& context) {
    http_response response;
    response.content_type = "text/plain; version=0.0.4";
    response.body = context.services.stats->render();
    return response;
}

}  // namespace

void register_health_routes(router& routes) {
    routes.add({.method = http_method::get, .pattern = "/healthz", .who = access::public_route,
                .needs_database = false, .handler = healthz});
    routes.add({.method = http_method::get, .pattern = "/readyz", .who = access::public_route,
                .handler = readyz});
}

void register_admin_routes(router& routes) {
    register_health_routes(routes);
    routes.add({.method = http_method::get, .pattern = "/metrics", .who = access::public_route,
                .needs_database = false, .handler = metrics_text});
}

}  // namespace corridor
