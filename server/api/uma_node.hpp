#pragma once
// The Lightning node that issues UMA receive invoices, read once per app_services from the Spark
// rail's settings (plugins.settings.spark) so that the rail and the UMA receiver sign with one key.
#include "server/uma/uma_receipt.hpp"

namespace corridor {

struct app_services;
const lightning_node& uma_lightning_node(app_services& services);

}  // namespace corridor
