/* The hooks of a test plugin that accepts every account and settles every operation as soon as it
 * is initiated. The old-ABI test plugins share them: the hook signatures are the same in every 1.x
 * ABI, so only each plugin's own table and entry point say which ABI it was built for (the 1.0
 * plugin keeps its table in the 1.0 layout). The including plugin sets host_api in its entry. */
#ifndef CORRIDOR_TESTS_RAILS_PLUGINS_SETTLE_AT_ONCE_H
#define CORRIDOR_TESTS_RAILS_PLUGINS_SETTLE_AT_ONCE_H

#include <string.h>

#include "rails/rail_abi.h"

static const corridor_rail_host_api* host_api;
static corridor_rail_type_host* host_self;
static int instance;

static int32_t create(corridor_rail_type_call* call, corridor_rail_type_host* host,
                      corridor_rail_type_span config, corridor_rail_type_self** out) {
    (void)call;
    (void)config;
    host_self = host;
    *out = (corridor_rail_type_self*)&instance;
    return CORRIDOR_RAIL_OK;
}
static void destroy(corridor_rail_type_self* self) {
    (void)self;
}
static int32_t validate_account(corridor_rail_type_self* self, corridor_rail_type_call* call,
                                corridor_rail_type_span type, corridor_rail_type_span currency,
                                corridor_rail_type_span json) {
    (void)self;
    (void)call;
    (void)type;
    (void)currency;
    (void)json;
    return CORRIDOR_RAIL_OK;
}
static int32_t funding_instructions(corridor_rail_type_self* self, corridor_rail_type_call* call,
                                    const corridor_rail_type_funding_request* request) {
    (void)self;
    (void)call;
    (void)request;
    return CORRIDOR_RAIL_UNSUPPORTED;
}
static int32_t initiate(corridor_rail_type_self* self, corridor_rail_type_call* call,
                        const corridor_rail_type_operation* op) {
    corridor_rail_type_report report;
    (void)self;
    (void)call;
    memset(&report, 0, sizeof report);
    report.struct_size = sizeof report;
    report.outcome = CORRIDOR_RAIL_OUTCOME_SETTLED;
    report.operation_id = op->operation_id;
    return host_api->report(host_self, &report);
}

#endif
