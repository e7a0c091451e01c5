/* A plugin built for a future rail ABI major version whose entry point refuses this host, as the
 * SDK's does: it still hands out its table, so the host can name the version it was built for. */
#include "rails/rail_abi.h"

static const corridor_rail_type_span types[] = {{"SOLANA_WALLET", 13}};
static const corridor_rail_plugin table = {
    {sizeof(corridor_rail_type_magic),
     CORRIDOR_RAIL_ABI_MAJOR + 1,
     4,
     sizeof(corridor_rail_plugin),
     0,
     {CORRIDOR_RAIL_BUILD_SIGNATURE, sizeof(CORRIDOR_RAIL_BUILD_SIGNATURE) - 1}},
    {"test_refuses_host", 17},
    {"9.9.9", 5},
    types,
    1,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0};

CORRIDOR_RAIL_EXPORT int32_t corridor_rail_entry(const corridor_rail_host_api* host,
                                                 const corridor_rail_plugin** out) {
    *out = &table;
    return host->magic.abi_major == CORRIDOR_RAIL_ABI_MAJOR + 1 ? CORRIDOR_RAIL_OK
                                                                : CORRIDOR_RAIL_UNSUPPORTED;
}
