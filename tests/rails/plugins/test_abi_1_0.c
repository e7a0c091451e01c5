/* A plugin built for rail ABI 1.0, before the capabilities field: its table is the 1.0 layout,
 * written out here as that older header declared it, so the host must neither refuse it nor read
 * past its end. It serves POLYGON_WALLET and settles every operation as soon as it is initiated. */
#include "rails/rail_abi.h"

/* The plugin table as ABI 1.0 declared it: everything up to and including tick. */
typedef struct legacy_plugin_table {
    corridor_rail_type_magic magic;
    corridor_rail_type_span name;
    corridor_rail_type_span version;
    const corridor_rail_type_span* account_types;
    uint32_t account_type_count;
    uint32_t tick_interval_ms;
    int32_t (*create)(corridor_rail_type_call*, corridor_rail_type_host*, corridor_rail_type_span,
                      corridor_rail_type_self**);
    void (*destroy)(corridor_rail_type_self*);
    int32_t (*validate_account)(corridor_rail_type_self*, corridor_rail_type_call*,
                                corridor_rail_type_span, corridor_rail_type_span,
                                corridor_rail_type_span);
    int32_t (*funding_instructions)(corridor_rail_type_self*, corridor_rail_type_call*,
                                    const corridor_rail_type_funding_request*);
    int32_t (*initiate)(corridor_rail_type_self*, corridor_rail_type_call*,
                        const corridor_rail_type_operation*);
    int32_t (*tick)(corridor_rail_type_self*, corridor_rail_type_call*, int64_t);
} legacy_plugin_table;

#include "settle_at_once.h"

static const corridor_rail_type_span types[] = {{"POLYGON_WALLET", 14}};
static const legacy_plugin_table table = {
    {sizeof(corridor_rail_type_magic),
     1,
     0,
     sizeof(legacy_plugin_table),
     0,
     {CORRIDOR_RAIL_BUILD_SIGNATURE, sizeof(CORRIDOR_RAIL_BUILD_SIGNATURE) - 1}},
    {"test_abi_1_0", 12},
    {"1.0.0", 5},
    types,
    1,
    0,
    create,
    destroy,
    validate_account,
    funding_instructions,
    initiate,
    0};

_Static_assert(sizeof(legacy_plugin_table) == CORRIDOR_RAIL_PLUGIN_SIZE_V1_0,
               "the 1.0 table as 1.0 declared it");

CORRIDOR_RAIL_EXPORT int32_t corridor_rail_entry(const corridor_rail_host_api* host,
                                                 const corridor_rail_plugin** out) {
    host_api = host;
    *out = (const corridor_rail_plugin*)(const void*)&table;
    return CORRIDOR_RAIL_OK;
}
