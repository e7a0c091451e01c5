/*
 * rail_abi.h: the whole contract between Corridor (the host) and a payment-rail plugin.
 *
 * Pure C, standard headers only, so plugins can be written in any language that speaks the C ABI.
 * C++ plugins should use the SDK, <corridor/rail_sdk.hpp> once installed (rails/plugin_sdk.hpp in
 * the source tree), which implements the boilerplate and the exception barrier on top of this
 * header. Installed, this header is <corridor/rail_abi.h>.
 *
 * NAMES
 *   corridor_rail_type_*     plain data types
 *   corridor_rail_plugin     the table of hooks the plugin implements (host calls plugin)
 *   corridor_rail_host_api   the table of callbacks the host implements (plugin calls host)
 *   corridor_rail_entry      the one exported symbol; nothing else is looked up with dlsym
 *
 * VERSIONING
 *   Every table starts with a corridor_rail_type_magic block whose layout is frozen for every ABI
 *   major version, so the host can read it before anything else. The host refuses a plugin with a
 *   different abi_major, a plugin abi_minor above its own, a different build_signature, or a table
 *   smaller than the ABI 1.0 size. Tables only ever grow at the end: a newer slot is used only when
 *   the other side's struct_size covers it. Removing or reordering anything is a new major version.
 *
 *   History (each addition is tagged in place with the minor version that made it):
 *     1.0  the first contract.
 *     1.1  corridor_rail_plugin.capabilities (what the rail can do: pay out, pull). A 1.0 plugin
 *          has no such field; the host reads it as able to do both and lets initiate refuse.
 *          A RETURNED report is accepted for an operation the rail already reported SETTLED (an
 *          ACH return arrives days after settlement): see corridor_rail_outcome.
 *     1.2  corridor_rail_host_api.report_incoming: the plugin reports money that ARRIVED without
 *          the host starting it (a payer paid the rail's invoice, or sent a transfer quoting a
 *          funding reference); see corridor_rail_type_incoming. CORRIDOR_RAIL_SERVES_SANDBOX, a
 *          capability flag: the rail runs the sandbox environment itself (its own simulated
 *          network) instead of the sandbox simulator rail. A 1.1 plugin never sees the callback
 *          (it reads only the 1.1 part of the host table) and never sets the flag, so it loads
 *          and behaves as before.
 *     1.3  No layout change. The host creates the rail's data_dir before create (see SETTINGS);
 *          CORRIDOR_RAIL_FOR_EACH_ACCOUNT_TYPE lists the account types a rail may declare, and
 *          the host refuses a plugin declaring any other; an entry point that refuses the host
 *          still sets *out_plugin, so the host can name the ABI the plugin was built for.
 *
 * OWNERSHIP (every type below repeats the rule that applies to it)
 *   - A corridor_rail_type_span passed INTO a hook or callback is borrowed: valid only until that
 *     call returns. Copy what you keep.
 *   - Results go back through host callbacks that COPY (set_result, set_error, report, log); no
 *     allocation ever crosses the boundary, so each side frees only what it allocated.
 *   - The plugin table, its name, version and account types are plugin-owned static storage and must
 *     stay valid for the life of the process: plugins are never unloaded.
 *   - The host table and the host instance pointer are host-owned and valid for the life of the
 *     process.
 *
 * THREADING
 *   - Hooks of one plugin instance are never called concurrently: the host serialises them.
 *   - Hooks must not block: no network I/O, no sleeping, no waiting on locks held elsewhere. They do
 *     CPU work (formatting, validation, bookkeeping) and return. Work that needs time is left pending
 *     and finished on a later tick.
 *   - Timers are the host's. A plugin that needs periodic work (an ACH cut-off file, a simulated
 *     settlement delay) sets tick_interval_ms and implements tick; the host calls it with the host's
 *     clock. Plugins never read the wall clock for business decisions; they use now_ms as given.
 *   - Asynchronous outcomes (settled, returned, failed) come back through host->report, called only
 *     from inside a hook of the same instance (during initiate or tick), on the thread running that
 *     hook. A plugin never calls the host from a thread of its own.
 *   - The host times out operations that never report (its own deadline); a late report for an
 *     operation the host has already closed is ignored.
 *
 * SETTINGS
 *   create receives the rail's settings as a JSON object: the operator's plugins.settings.<name>,
 *   plus data_dir, a folder of the rail's own, the same at every start of the process, unless the
 *   operator set it. The host creates data_dir (mode 0700, parents as needed) before create runs;
 *   the plugin owns everything inside it. Keep there, synced to disk before initiate answers OK,
 *   whatever is needed to finish an accepted operation after a restart.
 *
 * ERRORS
 *   Every hook returns an int32_t from corridor_rail_status. Detail text goes through set_error.
 *   Unknown codes read as CORRIDOR_RAIL_INTERNAL. No exception, longjmp or signal may cross the
 *   boundary (the C++ SDK enforces this with a catch-all barrier).
 */
#ifndef CORRIDOR_RAIL_ABI_H
#define CORRIDOR_RAIL_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CORRIDOR_RAIL_ABI_MAJOR 1
#define CORRIDOR_RAIL_ABI_MINOR 3

#define CORRIDOR_RAIL_STRINGIFY_(x) #x
#define CORRIDOR_RAIL_STRINGIFY(x) CORRIDOR_RAIL_STRINGIFY_(x)

/* What changes the layout of the structs below: pointer and size_t width, byte order. Host and
 * plugin must agree exactly. */
#define CORRIDOR_RAIL_BUILD_SIGNATURE                                     \
    "corridor-rail/p" CORRIDOR_RAIL_STRINGIFY(__SIZEOF_POINTER__) "/z" \
        CORRIDOR_RAIL_STRINGIFY(__SIZEOF_SIZE_T__) "/o" CORRIDOR_RAIL_STRINGIFY(__BYTE_ORDER__)

/* The exported entry symbol's name, for the loader and for plugins written without the SDK. */
#define CORRIDOR_RAIL_ENTRY_SYMBOL "corridor_rail_entry"

/* 1.3: the account types a rail may declare (corridor_rail_plugin.account_types): the interface's
 * accountType values. The host refuses at load a plugin declaring any other, naming it and this
 * list. X(name) is called once per type, e.g.
 *   #define AS_STRING(name) #name,
 *   static const char* const types[] = {CORRIDOR_RAIL_FOR_EACH_ACCOUNT_TYPE(AS_STRING)}; */
#define CORRIDOR_RAIL_FOR_EACH_ACCOUNT_TYPE(X) \
    X(US_ACCOUNT)                               \
    X(USD_ACCOUNT)                              \
    X(CLABE)                                    \
    X(MXN_ACCOUNT)                              \
    X(PIX)                                      \
    X(BRL_ACCOUNT)                              \
    X(IBAN)                                     \
    X(EUR_ACCOUNT)                              \
    X(GBP_ACCOUNT)                              \
    X(UPI)                                      \
    X(INR_ACCOUNT)                              \
    X(NGN_ACCOUNT)                              \
    X(CAD_ACCOUNT)                              \
    X(PHP_ACCOUNT)                              \
    X(SGD_ACCOUNT)                              \
    X(SPARK_WALLET)                             \
    X(LIGHTNING)                                \
    X(SOLANA_WALLET)                            \
    X(TRON_WALLET)                              \
    X(POLYGON_WALLET)                           \
    X(BASE_WALLET)

/* Status of every hook. Explicit values; never renumbered. */
typedef enum corridor_rail_status {
    CORRIDOR_RAIL_OK = 0,
    CORRIDOR_RAIL_INVALID_ARGUMENT = 1, /* the input is malformed or names an invalid account */
    CORRIDOR_RAIL_DECLINED = 2,         /* the rail refuses this operation (limits, policy) */
    CORRIDOR_RAIL_UNSUPPORTED = 3,      /* account type, currency or direction not served */
    CORRIDOR_RAIL_UNAVAILABLE = 4,      /* the rail cannot take work now; the host may retry */
    CORRIDOR_RAIL_TIMEOUT = 5,          /* the rail gave up waiting on its counterparty */
    CORRIDOR_RAIL_INTERNAL = 6          /* a bug or an unexpected condition in the plugin */
} corridor_rail_status;

/* Direction of money seen from the external account. */
typedef enum corridor_rail_direction {
    CORRIDOR_RAIL_PAYOUT = 1, /* credit the external account (transfer-out, quote payout) */
    CORRIDOR_RAIL_PULL = 2    /* debit the external account (transfer-in, direct pull) */
} corridor_rail_direction;

/* What a report says happened to an operation. */
typedef enum corridor_rail_outcome {
    CORRIDOR_RAIL_OUTCOME_PENDING = 1,  /* accepted by the rail; rail_reference may now be known */
    CORRIDOR_RAIL_OUTCOME_SETTLED = 2,  /* final: the money moved */
    CORRIDOR_RAIL_OUTCOME_FAILED = 3,   /* final: the money did not move */
    CORRIDOR_RAIL_OUTCOME_RETURNED = 4  /* final: it moved, then came back (e.g. an ACH return) */
} corridor_rail_outcome;
/* Transitions the host accepts: PENDING any number of times (a new rail_reference updates it), then
 * one of SETTLED, FAILED, RETURNED; and (1.1) RETURNED once after SETTLED. A RETURNED payout is
 * reversed exactly once: the internal account that paid is credited back (a quote's source, in its
 * sending currency), the transaction turns FAILED with the failure_reason of the report (when the
 * interface allows it for the direction, else the host's default from failure), and its event is
 * recorded. A RETURNED pull takes the credited money back if the account still holds it. Every
 * other report for a closed operation is ignored. */

/* What a rail can do (ABI 1.1): flags of corridor_rail_plugin.capabilities. */
typedef enum corridor_rail_capability {
    CORRIDOR_RAIL_CAN_PAYOUT = 1, /* credit external accounts: transfer-out, quote payouts */
    CORRIDOR_RAIL_CAN_PULL = 2,   /* debit external accounts: transfer-in */
    /* 1.2: in the sandbox environment this rail serves its account types and gives the funding
     * instructions of its currencies itself (it simulates its own network), ahead of the sandbox
     * simulator rail. Read only from plugins built for 1.2 or later. */
    CORRIDOR_RAIL_SERVES_SANDBOX = 4
} corridor_rail_capability;

/* Rail-neutral failure class. The rail's own code (R01, AM04, ...) travels as rail_reason_code. */
typedef enum corridor_rail_failure {
    CORRIDOR_RAIL_FAILURE_NONE = 0,
    CORRIDOR_RAIL_FAILURE_INSUFFICIENT_FUNDS = 1,
    CORRIDOR_RAIL_FAILURE_ACCOUNT_INVALID = 2, /* closed, nonexistent or malformed */
    CORRIDOR_RAIL_FAILURE_REJECTED = 3,        /* refused by the receiving institution */
    CORRIDOR_RAIL_FAILURE_TIMEOUT = 4,
    CORRIDOR_RAIL_FAILURE_RAIL_ERROR = 5 /* anything else */
} corridor_rail_failure;

typedef enum corridor_rail_log_level {
    CORRIDOR_RAIL_LOG_DEBUG = 0,
    CORRIDOR_RAIL_LOG_INFO = 1,
    CORRIDOR_RAIL_LOG_WARN = 2,
    CORRIDOR_RAIL_LOG_ERROR = 3
} corridor_rail_log_level;

/* Bytes with a length; not NUL-terminated. OWNERSHIP: borrowed from whoever passes it, valid only
 * for the duration of the call it is passed to (except in the plugin table: static storage). */
typedef struct corridor_rail_type_span {
    const char* ptr;
    size_t length;
} corridor_rail_type_span;

/* Opaque handles. OWNERSHIP: corridor_rail_type_self is the plugin's instance, created by create and
 * released only by destroy. corridor_rail_type_host is the host's per-instance context, valid for
 * the process lifetime. corridor_rail_type_call is the host's per-call result slot, valid only
 * during the hook call it is passed to. */
typedef struct corridor_rail_type_self corridor_rail_type_self;
typedef struct corridor_rail_type_host corridor_rail_type_host;
typedef struct corridor_rail_type_call corridor_rail_type_call;

/* Frozen for every major version: the first member of both tables. */
typedef struct corridor_rail_type_magic {
    uint32_t struct_size; /* sizeof(corridor_rail_type_magic) */
    uint16_t abi_major;   /* CORRIDOR_RAIL_ABI_MAJOR the side was built against */
    uint16_t abi_minor;   /* CORRIDOR_RAIL_ABI_MINOR the side was built against */
    uint32_t table_size;  /* sizeof the table this block starts */
    uint32_t reserved;    /* zero */
    corridor_rail_type_span build_signature; /* CORRIDOR_RAIL_BUILD_SIGNATURE; static storage */
} corridor_rail_type_magic;

/* An operation to start. OWNERSHIP: borrowed, valid only during initiate; copy what you keep. */
typedef struct corridor_rail_type_operation {
    uint32_t struct_size; /* sizeof as the host built it; newer fields only if it covers them */
    int32_t direction;    /* corridor_rail_direction */
    corridor_rail_type_span operation_id; /* the host's id; repeat it in every report */
    corridor_rail_type_span environment;  /* "sandbox" or "production" */
    corridor_rail_type_span account_type; /* e.g. "US_ACCOUNT", "PIX", "SPARK_WALLET" */
    corridor_rail_type_span account_json; /* the external account's accountInfo object, JSON */
    corridor_rail_type_span currency;     /* ISO 4217 code or "BTC" */
    int64_t amount_minor;                 /* > 0, smallest unit of currency */
    int64_t now_ms;                       /* the host clock, Unix ms */
    corridor_rail_type_span reference;    /* free text the rail may carry (memo); may be empty */
} corridor_rail_type_operation;

/* A request for funding payment instructions (how someone sends money into an internal account).
 * OWNERSHIP: borrowed, valid only during funding_instructions. */
typedef struct corridor_rail_type_funding_request {
    uint32_t struct_size;
    uint32_t reserved;
    corridor_rail_type_span environment;
    corridor_rail_type_span account_id; /* the internal account to fund */
    corridor_rail_type_span currency;
    int64_t amount_minor;               /* 0 when any amount is accepted */
    int64_t now_ms;
    corridor_rail_type_span reference;  /* the reference the payer must quote */
} corridor_rail_type_funding_request;

/* What happened to an operation. OWNERSHIP: owned by the plugin; the host copies everything during
 * report, so the plugin may free or reuse it as soon as report returns. */
typedef struct corridor_rail_type_report {
    uint32_t struct_size;
    int32_t outcome;                         /* corridor_rail_outcome */
    corridor_rail_type_span operation_id;    /* as given in the operation */
    int32_t failure;                         /* corridor_rail_failure; NONE unless failed/returned */
    int32_t reserved;
    corridor_rail_type_span rail_reason_code; /* the rail's code: "R01", "AM04", "TIMEOUT"; may be empty */
    corridor_rail_type_span failure_reason;   /* the interface's failureReason value the plugin maps
                                                 the outcome to (e.g. "LIGHTNING_PAYMENT_FAILED");
                                                 empty lets the host choose from failure */
    corridor_rail_type_span rail_reference;   /* the rail's id for the operation (trace number) */
    corridor_rail_type_span message;          /* human-readable detail; never personal data */
} corridor_rail_type_report;

/* 1.2: money that arrived without the host asking for it: a payer paid an invoice of the rail's
 * node, or sent a bank transfer quoting a funding reference. The host records it durably, once per
 * (rail, rail_reference), and then routes it: to the internal account or REALTIME_FUNDING quote
 * whose funding reference it carries, else to whatever the host registered for the match_key (an
 * invoice the host issued itself), else nowhere: it is kept and logged, never credited to anyone.
 * OWNERSHIP: owned by the plugin; the host copies everything during report_incoming. */
typedef struct corridor_rail_type_incoming {
    uint32_t struct_size; /* sizeof as the plugin built it */
    uint32_t reserved;    /* zero */
    corridor_rail_type_span environment;    /* "sandbox" or "production" */
    corridor_rail_type_span rail_reference; /* the rail's id of this arrival, 1..200 bytes, unique
                                               within the rail: reporting the same arrival again
                                               (after a restart, from another process) is
                                               recognised and changes nothing */
    corridor_rail_type_span match_key;      /* what the payer paid, rail-defined: for Lightning the
                                               payment hash, 64 lowercase hex digits; may be empty
                                               when reference is set */
    corridor_rail_type_span reference;      /* the host's funding reference the money carries: the
                                               one the payer quoted, or the one the rail put in the
                                               funding instructions it issued (and can read back,
                                               e.g. from an invoice it signed); may be empty */
    corridor_rail_type_span currency;       /* ISO 4217 code or "BTC" */
    int64_t amount_minor;                   /* > 0, whole smallest units of currency (BTC:
                                               satoshis), rounded down */
    int64_t amount_milli_minor;             /* the exact amount in thousandths of the smallest unit
                                               when the rail settles finer than it (Lightning:
                                               millisatoshis), else 0. When set, amount_minor must
                                               be amount_milli_minor / 1000 rounded down; only
                                               whole units are ever credited to an account, and
                                               the remainder stays on the host's record */
    int64_t received_at_ms;                 /* when the rail saw it, on the host clock (now_ms) */
    corridor_rail_type_span message;        /* human-readable detail; never personal data */
} corridor_rail_type_incoming;

/* Callbacks the host implements. All are safe to call only from inside a hook of the plugin. */
typedef struct corridor_rail_host_api {
    corridor_rail_type_magic magic;
    /* Copies data as the call's result (JSON for validate_account and funding_instructions).
     * A second call replaces the first. */
    void (*set_result)(corridor_rail_type_call* call, corridor_rail_type_span data);
    /* Copies a message explaining a non-OK status; it may be shown to the API caller, so it names
     * the problem ("accountNumber must be 4 to 17 digits") and never echoes secrets. */
    void (*set_error)(corridor_rail_type_call* call, corridor_rail_type_span message);
    /* Copies and records a report; see corridor_rail_type_report. Returns CORRIDOR_RAIL_OK, or
     * CORRIDOR_RAIL_INVALID_ARGUMENT for an unknown operation id or an ill-formed report. */
    int32_t (*report)(corridor_rail_type_host* host, const corridor_rail_type_report* report);
    /* Copies a log line into the host's log. */
    void (*log)(corridor_rail_type_host* host, int32_t level, corridor_rail_type_span message);
    /* 1.2: copies money that arrived (see corridor_rail_type_incoming). Call it only from inside
     * initiate or tick, like report. Returns CORRIDOR_RAIL_OK when copied (the host records it
     * after the hook returns; reporting it again later is harmless), CORRIDOR_RAIL_INVALID_ARGUMENT
     * for an ill-formed struct, a host it does not know, or a call from outside initiate and tick.
     * Present only when the host table's table_size covers it (a 1.1 host has no such slot). */
    int32_t (*report_incoming)(corridor_rail_type_host* host,
                               const corridor_rail_type_incoming* incoming);
    /* Append new callbacks here, tagged with the minor version that added them. */
} corridor_rail_host_api;

/* Hooks the plugin implements. Every hook except destroy returns a corridor_rail_status. */
typedef struct corridor_rail_plugin {
    corridor_rail_type_magic magic;
    corridor_rail_type_span name;    /* the rail's unique name: [a-z0-9_-], 1..32 bytes */
    corridor_rail_type_span version; /* the plugin's own version, e.g. "1.2.0" */
    const corridor_rail_type_span* account_types; /* the accountType values served, each one of
                                                     CORRIDOR_RAIL_FOR_EACH_ACCOUNT_TYPE */
    uint32_t account_type_count;
    uint32_t tick_interval_ms; /* 0: tick is never called */

    /* Makes an instance. config is the JSON object of the rail's settings (see SETTINGS: data_dir
     * exists when create runs); host is the instance's host context, to keep for report and log.
     * On failure return non-OK and call set_error; *out_self is then ignored. */
    int32_t (*create)(corridor_rail_type_call* call, corridor_rail_type_host* host,
                      corridor_rail_type_span config_json, corridor_rail_type_self** out_self);
    /* Releases an instance. Called at most once, after every other hook of it has returned. */
    void (*destroy)(corridor_rail_type_self* self);

    /* Checks an external account's details for account_type in currency (ISO 4217 or "BTC"; empty
     * when not known yet). OK: valid (set_result may carry a normalised JSON object).
     * INVALID_ARGUMENT: invalid, with set_error naming the field. UNSUPPORTED: account_type or
     * currency not served. */
    int32_t (*validate_account)(corridor_rail_type_self* self, corridor_rail_type_call* call,
                                corridor_rail_type_span account_type,
                                corridor_rail_type_span currency,
                                corridor_rail_type_span account_json);
    /* Produces funding payment instructions: set_result with a JSON array of objects of the
     * interface's paymentInstructions shape. UNSUPPORTED when the currency is not served. */
    int32_t (*funding_instructions)(corridor_rail_type_self* self, corridor_rail_type_call* call,
                                    const corridor_rail_type_funding_request* request);
    /* Starts a payout or pull. OK means accepted: the outcome follows through host->report, either
     * inside this call or from a later tick. Any other status means nothing was started and no
     * report will follow; set_error says why. Called at most once per operation_id per process, but
     * after a restart the host may initiate an operation id it initiated before (the plugin should
     * treat a known id as a retry, not a new payment). */
    int32_t (*initiate)(corridor_rail_type_self* self, corridor_rail_type_call* call,
                        const corridor_rail_type_operation* operation);
    /* Periodic work; may call host->report. May be NULL when tick_interval_ms is 0. */
    int32_t (*tick)(corridor_rail_type_self* self, corridor_rail_type_call* call, int64_t now_ms);

    /* 1.1: corridor_rail_capability flags. The host refuses up front what the rail cannot do (a
     * transfer-in from an account whose rail cannot pull is pointed to payment instructions) and
     * never calls initiate for it. Unknown bits are ignored. */
    uint32_t capabilities;
    uint32_t reserved_1_1; /* zero */
    /* Append new hooks here, tagged with the minor version that added them. */
} corridor_rail_plugin;

/* The one exported symbol. The host passes its table; the plugin checks host->magic (it may refuse a
 * host whose abi_major differs by returning UNSUPPORTED), stores the pointer for the process
 * lifetime and sets *out_plugin to its static table. No other plugin code runs before this.
 * (1.3) A plugin that refuses the host should still set *out_plugin: the host then reads only its
 * version block, to name in its error the ABI the plugin was built for. */
typedef int32_t (*corridor_rail_entry_fn)(const corridor_rail_host_api* host,
                                          const corridor_rail_plugin** out_plugin);

#if defined(_WIN32)
#define CORRIDOR_RAIL_EXPORT __declspec(dllexport)
#else
#define CORRIDOR_RAIL_EXPORT __attribute__((visibility("default")))
#endif

/* Sizes of the ABI 1.0 tables: the host refuses anything smaller. */
#define CORRIDOR_RAIL_PLUGIN_SIZE_V1_0 \
    (offsetof(corridor_rail_plugin, tick) + sizeof(void*))
#define CORRIDOR_RAIL_HOST_API_SIZE_V1_0 \
    (offsetof(corridor_rail_host_api, log) + sizeof(void*))
/* Size of the ABI 1.1 plugin table: a table at least this large carries capabilities. */
#define CORRIDOR_RAIL_PLUGIN_SIZE_V1_1 \
    (offsetof(corridor_rail_plugin, reserved_1_1) + sizeof(uint32_t))
/* Size of the ABI 1.2 host table: a host table at least this large has report_incoming. */
#define CORRIDOR_RAIL_HOST_API_SIZE_V1_2 \
    (offsetof(corridor_rail_host_api, report_incoming) + sizeof(void*))

#ifdef __cplusplus
}
#endif

#endif /* CORRIDOR_RAIL_ABI_H */
