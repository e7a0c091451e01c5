/* A plugin built for rail ABI 1.1, before report_incoming and CORRIDOR_RAIL_SERVES_SANDBOX: its
 * magic says 1.1, and it sets the bit 1.2 gave a meaning to (a 1.1 plugin could carry any value
 * there), so the host must load it and must not read the bit as the 1.2 capability. It serves
 * LIGHTNING, as the sandbox rail does, and settles every operation as soon as it is initiated. */
#include "rails/rail_abi.h"
#include "settle_at_once.h"

static const corridor_rail_type_span types[] = {{"LIGHTNING", 9}};
/* The 1.1 plugin table is the 1.2 one: 1.2 added to the host table only. */
static const corridor_rail_plugin table = {
    {sizeof(corridor_rail_type_magic),
     1,
     1,
     CORRIDOR_RAIL_PLUGIN_SIZE_V1_1,
     0,
     {CORRIDOR_RAIL_BUILD_SIGNATURE, sizeof(CORRIDOR_RAIL_BUILD_SIGNATURE) - 1}},
    {"test_abi_1_1", 12},
    {"1.1.0", 5},
    types,
    1,
    0,
    create,
    destroy,
    validate_account,
    funding_instructions,
    initiate,
    0,
    CORRIDOR_RAIL_CAN_PAYOUT | CORRIDOR_RAIL_CAN_PULL | 4,
    0};

CORRIDOR_RAIL_EXPORT int32_t corridor_rail_entry(const corridor_rail_host_api* host,
                                                 const corridor_rail_plugin** out) {
    /* A 1.1 plugin knows the host table up to log; it never reads further. */
    if (host->magic.table_size < CORRIDOR_RAIL_HOST_API_SIZE_V1_0) return CORRIDOR_RAIL_UNSUPPORTED;
    host_api = host;
    *out = &table;
    return CORRIDOR_RAIL_OK;
}
