/* An ABI 1.2 plugin that reports arrivals through report_incoming, written against the C header
 * alone so it can hand the host ill-formed structs too. It serves US_ACCOUNT and declares
 * CORRIDOR_RAIL_SERVES_SANDBOX, so in the sandbox it serves US_ACCOUNT ahead of the sandbox rail.
 *   validate_account: tries report_incoming outside initiate and tick; logs "outside=<status>".
 *   initiate: settles the payout and reports the arrival "during-initiate".
 *   tick: reports a battery of arrivals, good and bad, logging "<label>=<status>" for each. */
#include <stdio.h>
#include <string.h>

#include "rails/rail_abi.h"

static const corridor_rail_host_api* host_api;
static corridor_rail_type_host* host_self;
static int instance;

static corridor_rail_type_span text(const char* s) {
    corridor_rail_type_span out = {s, strlen(s)};
    return out;
}

static corridor_rail_type_incoming arrival(const char* rail_reference, const char* match_key,
                                           const char* reference, const char* currency,
                                           int64_t amount_minor, int64_t amount_milli_minor) {
    corridor_rail_type_incoming in;
    memset(&in, 0, sizeof in);
    in.struct_size = sizeof in;
    in.environment = text("sandbox");
    in.rail_reference = text(rail_reference);
    in.match_key = text(match_key);
    in.reference = text(reference);
    in.currency = text(currency);
    in.amount_minor = amount_minor;
    in.amount_milli_minor = amount_milli_minor;
    in.received_at_ms = 1000;
    in.message = text("test arrival");
    return in;
}

static void send(const char* label, const corridor_rail_type_incoming* in) {
    char line[128];
    int32_t status = host_api->report_incoming(host_self, in);
    snprintf(line, sizeof line, "%s=%d", label, (int)status);
    host_api->log(host_self, CORRIDOR_RAIL_LOG_INFO, text(line));
}

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
    corridor_rail_type_incoming in = arrival("outside", "key", "", "BTC", 1, 0);
    (void)self;
    (void)call;
    (void)type;
    (void)currency;
    (void)json;
    send("outside", &in);
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
    corridor_rail_type_incoming in = arrival("during-initiate", "key-i", "", "USD", 7, 0);
    (void)self;
    (void)call;
    send("during-initiate", &in);
    memset(&report, 0, sizeof report);
    report.struct_size = sizeof report;
    report.outcome = CORRIDOR_RAIL_OUTCOME_SETTLED;
    report.operation_id = op->operation_id;
    return host_api->report(host_self, &report);
}
static int32_t tick(corridor_rail_type_self* self, corridor_rail_type_call* call, int64_t now_ms) {
    corridor_rail_type_incoming in;
    (void)self;
    (void)call;
    (void)now_ms;
    in = arrival("lightning-1", "00ff", "", "BTC", 5, 5123);
    send("good-milli", &in);
    in = arrival("bank-1", "", "REF123", "USD", 100, 0);
    send("good-reference", &in);
    in = arrival("short", "k", "", "USD", 1, 0);
    in.struct_size = (uint32_t)offsetof(corridor_rail_type_incoming, message);
    send("short-struct", &in);
    send("null", NULL);
    in = arrival("", "k", "", "USD", 1, 0);
    send("no-rail-reference", &in);
    in = arrival("no-key", "", "", "USD", 1, 0);
    send("no-key-or-reference", &in);
    in = arrival("zero", "k", "", "USD", 0, 0);
    send("zero-amount", &in);
    in = arrival("milli", "k", "", "BTC", 6, 5123);
    send("milli-disagrees", &in);
    in = arrival("currency", "k", "", "usd", 1, 0);
    send("bad-currency", &in);
    in = arrival("env", "k", "", "USD", 1, 0);
    in.environment = text("staging");
    send("bad-environment", &in);
    return CORRIDOR_RAIL_OK;
}

static const corridor_rail_type_span types[] = {{"US_ACCOUNT", 10}};
static const corridor_rail_plugin table = {
    {sizeof(corridor_rail_type_magic),
     CORRIDOR_RAIL_ABI_MAJOR,
     CORRIDOR_RAIL_ABI_MINOR,
     sizeof(corridor_rail_plugin),
     0,
     {CORRIDOR_RAIL_BUILD_SIGNATURE, sizeof(CORRIDOR_RAIL_BUILD_SIGNATURE) - 1}},
    {"test_incoming", 13},
    {"1.2.0", 5},
    types,
    1,
    1000,
    create,
    destroy,
    validate_account,
    funding_instructions,
    initiate,
    tick,
    CORRIDOR_RAIL_CAN_PAYOUT | CORRIDOR_RAIL_SERVES_SANDBOX,
    0};

CORRIDOR_RAIL_EXPORT int32_t corridor_rail_entry(const corridor_rail_host_api* host,
                                                 const corridor_rail_plugin** out) {
    if (host->magic.table_size < CORRIDOR_RAIL_HOST_API_SIZE_V1_2) return CORRIDOR_RAIL_UNSUPPORTED;
    host_api = host;
    *out = &table;
    return CORRIDOR_RAIL_OK;
}
