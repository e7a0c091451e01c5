/* A plugin built for a future rail ABI major version; the loader must refuse it by name. */
#include "rails/rail_abi.h"

static const corridor_rail_type_span types[] = {{"SOLANA_WALLET", 13}};
static const corridor_rail_plugin table = {
    {sizeof(corridor_rail_type_magic), CORRIDOR_RAIL_ABI_MAJOR + 1, 0, sizeof(corridor_rail_plugin), 0,
     {CORRIDOR_RAIL_BUILD_SIGNATURE, sizeof(CORRIDOR_RAIL_BUILD_SIGNATURE) - 1}},
    {"test_wrong_major", 16},
    {"9.9.9", 5},
    types,
    1,
    0,
    0, 0, 0, 0, 0, 0};

CORRIDOR_RAIL_EXPORT int32_t corridor_rail_entry(const corridor_rail_host_api* host,
                                                 const corridor_rail_plugin** out) {
    (void)host;
    *out = &table;
    return CORRIDOR_RAIL_OK;
}
