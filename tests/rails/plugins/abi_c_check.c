/* Compiles rail_abi.h as C (it must stay pure C) and pins the ABI 1.0, 1.1 and 1.2 layouts on LP64. */
#include "rails/rail_abi.h"

#include <assert.h>

static_assert(sizeof(corridor_rail_type_span) == 2 * sizeof(void*), "span is {ptr, length}");
#if __SIZEOF_POINTER__ == 8
static_assert(sizeof(corridor_rail_type_magic) == 32, "magic block layout is frozen");
static_assert(offsetof(corridor_rail_type_magic, build_signature) == 16, "magic block layout");
static_assert(offsetof(corridor_rail_plugin, name) == 32, "plugin table starts after magic");
static_assert(offsetof(corridor_rail_plugin, create) == 80, "ABI 1.0 plugin table layout");
static_assert(CORRIDOR_RAIL_PLUGIN_SIZE_V1_0 == 128, "ABI 1.0 plugin table size");
static_assert(CORRIDOR_RAIL_HOST_API_SIZE_V1_0 == 64, "ABI 1.0 host table size");
static_assert(offsetof(corridor_rail_plugin, capabilities) == CORRIDOR_RAIL_PLUGIN_SIZE_V1_0,
              "ABI 1.1 fields follow the 1.0 table");
static_assert(CORRIDOR_RAIL_PLUGIN_SIZE_V1_1 == 136, "ABI 1.1 plugin table size");
static_assert(sizeof(corridor_rail_plugin) == CORRIDOR_RAIL_PLUGIN_SIZE_V1_1, "ABI 1.1 table");
static_assert(sizeof(corridor_rail_type_operation) == 120, "ABI 1.0 operation layout");
static_assert(sizeof(corridor_rail_type_report) == 96, "ABI 1.0 report layout");
static_assert(offsetof(corridor_rail_host_api, report_incoming) == CORRIDOR_RAIL_HOST_API_SIZE_V1_0,
              "ABI 1.2 callbacks follow the 1.0 host table");
static_assert(CORRIDOR_RAIL_HOST_API_SIZE_V1_2 == 72, "ABI 1.2 host table size");
static_assert(sizeof(corridor_rail_host_api) == CORRIDOR_RAIL_HOST_API_SIZE_V1_2, "ABI 1.2 host");
static_assert(sizeof(corridor_rail_plugin) == CORRIDOR_RAIL_PLUGIN_SIZE_V1_1,
              "ABI 1.2 leaves the plugin table as 1.1 made it");
static_assert(sizeof(corridor_rail_type_incoming) == 128, "ABI 1.2 incoming layout");
static_assert(offsetof(corridor_rail_type_incoming, amount_minor) == 88, "ABI 1.2 incoming layout");
#endif

int corridor_rail_abi_c_check(void) { return CORRIDOR_RAIL_ABI_MAJOR; }
