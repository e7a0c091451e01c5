// plugin_sdk.hpp: header-only C++ SDK for writing a Corridor rail plugin on top of rail_abi.h.
//
// A plugin writes one class and one macro line:
//
//   class my_rail final : public corridor::rail_sdk::rail {
//   public:
//       static constexpr std::string_view name = "my_rail";
//       static constexpr std::string_view version = "1.0.0";
//       static constexpr std::array<std::string_view, 1> account_types{"US_ACCOUNT"};
//       static constexpr uint32_t tick_interval_ms = 0;   // or N to get tick() every N ms
//       // Optional (ABI 1.1): what the rail can do; payout and pull when left out. ABI 1.2 adds
//       // CORRIDOR_RAIL_SERVES_SANDBOX for a rail that simulates its own sandbox network.
//       static constexpr uint32_t capabilities = CORRIDOR_RAIL_CAN_PAYOUT;
//       my_rail(const corridor::rail_sdk::host& host, std::string_view config_json);
//       corridor::rail_sdk::status validate_account(call&, std::string_view type,
//                                                   std::string_view currency,
//                                                   std::string_view json) override;
//       corridor::rail_sdk::status initiate(call&, const operation&) override;
//   };
//   CORRIDOR_RAIL_PLUGIN(my_rail)
//
// The SDK generates corridor_rail_entry and the hook trampolines. Every trampoline runs the
// plugin's code inside barrier(): a rail_error becomes its status and message, any other exception
// becomes CORRIDOR_RAIL_INTERNAL (logged, with a generic message for the caller), so no exception
// ever crosses into the host. Build the plugin with -fvisibility=hidden and the SDK's export map
// (corridor_add_rail_plugin and `pkg-config --libs corridor-rail-sdk` do both), so
// corridor_rail_entry is its only exported symbol.
//
// Installed, this header is <corridor/rail_sdk.hpp>; it brings <corridor/rail_abi.h> and the
// helpers of <corridor/rail_sdk/...> (settings, durable files, clock) with it.
#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

// Relative to this file: rails/... in the source tree, <corridor/...> once installed.
#include "rail_abi.h"
#include "rail_sdk/clock.hpp"
#include "rail_sdk/durable_files.hpp"
#include "rail_sdk/error.hpp"
#include "rail_sdk/settings.hpp"

#pragma GCC visibility push(hidden)

namespace corridor::rail_sdk {

inline std::string_view view(corridor_rail_type_span s) noexcept {
    return s.ptr == nullptr ? std::string_view() : std::string_view(s.ptr, s.length);
}
inline corridor_rail_type_span span(std::string_view s) noexcept {
    return {s.data(), s.size()};
}

// The result slot of one hook call. Valid only during that call.
class call {
public:
    call(const corridor_rail_host_api* api, corridor_rail_type_call* slot) noexcept
        : api_(api), slot_(slot) {}
    void set_result(std::string_view data) const noexcept { api_->set_result(slot_, span(data)); }
    void set_error(std::string_view message) const noexcept {
        api_->set_error(slot_, span(message));
    }
    // Sets the message and returns the status, for `return c.fail(INVALID_ARGUMENT, "...")`.
    status fail(status code, std::string_view message) const noexcept {
        set_error(message);
        return code;
    }

private:
    const corridor_rail_host_api* api_;
    corridor_rail_type_call* slot_;
};

// An operation as the host passed it. The views are borrowed: valid only during initiate.
struct operation {
    corridor_rail_direction direction;
    std::string_view operation_id;
    std::string_view environment;
    std::string_view account_type;
    std::string_view account_json;
    std::string_view currency;
    int64_t amount_minor;
    int64_t now_ms;
    std::string_view reference;

    static operation from(const corridor_rail_type_operation& op) noexcept {
        return {static_cast<corridor_rail_direction>(op.direction),
                view(op.operation_id),
                view(op.environment),
                view(op.account_type),
                view(op.account_json),
                view(op.currency),
                op.amount_minor,
                op.now_ms,
                view(op.reference)};
    }
};

// A funding-instructions request as the host passed it. Borrowed, like operation.
struct funding_request {
    std::string_view environment;
    std::string_view account_id;
    std::string_view currency;
    int64_t amount_minor;
    int64_t now_ms;
    std::string_view reference;

    static funding_request from(const corridor_rail_type_funding_request& r) noexcept {
        return {view(r.environment), view(r.account_id), view(r.currency),
                r.amount_minor,      r.now_ms,           view(r.reference)};
    }
};

// What a plugin reports about an operation; the host copies it during report().
struct report {
    corridor_rail_outcome outcome = CORRIDOR_RAIL_OUTCOME_PENDING;
    std::string_view operation_id;
    corridor_rail_failure failure = CORRIDOR_RAIL_FAILURE_NONE;
    std::string_view rail_reason_code;
    std::string_view failure_reason;
    std::string_view rail_reference;
    std::string_view message;
};

// Money that arrived without the host starting it (ABI 1.2); the host copies it during receive().
// See corridor_rail_type_incoming for what each field means.
struct incoming {
    std::string_view environment;
    std::string_view rail_reference;
    std::string_view match_key;
    std::string_view reference;
    std::string_view currency;
    int64_t amount_minor = 0;
    int64_t amount_milli_minor = 0;
    int64_t received_at_ms = 0;
    std::string_view message;
};

// The host as one plugin instance sees it. Call only from inside a hook (see rail_abi.h).
class host {
public:
    host(const corridor_rail_host_api* api, corridor_rail_type_host* self) noexcept
        : api_(api), self_(self) {}

    status send(const report& r) const noexcept {
        corridor_rail_type_report c{};
        c.struct_size = sizeof(c);
        c.outcome = r.outcome;
        c.operation_id = span(r.operation_id);
        c.failure = r.failure;
        c.rail_reason_code = span(r.rail_reason_code);
        c.failure_reason = span(r.failure_reason);
        c.rail_reference = span(r.rail_reference);
        c.message = span(r.message);
        return static_cast<status>(api_->report(self_, &c));
    }
    void log(corridor_rail_log_level level, std::string_view message) const noexcept {
        api_->log(self_, level, span(message));
    }
    // Reports an arrival (ABI 1.2): from inside initiate or tick only. UNSUPPORTED when the host
    // is older than 1.2 and has no such callback.
    status receive(const incoming& in) const noexcept {
        if (api_->magic.table_size < CORRIDOR_RAIL_HOST_API_SIZE_V1_2 ||
            api_->report_incoming == nullptr) {
            return CORRIDOR_RAIL_UNSUPPORTED;
        }
        corridor_rail_type_incoming c{};
        c.struct_size = sizeof(c);
        c.environment = span(in.environment);
        c.rail_reference = span(in.rail_reference);
        c.match_key = span(in.match_key);
        c.reference = span(in.reference);
        c.currency = span(in.currency);
        c.amount_minor = in.amount_minor;
        c.amount_milli_minor = in.amount_milli_minor;
        c.received_at_ms = in.received_at_ms;
        c.message = span(in.message);
        return static_cast<status>(api_->report_incoming(self_, &c));
    }

private:
    const corridor_rail_host_api* api_;
    corridor_rail_type_host* self_;
};

// Base class of a rail. Hooks run serialised, must not block, and may throw (see barrier).
class rail {
public:
    virtual ~rail() = default;
    virtual status validate_account(call& c, std::string_view account_type,
                                    std::string_view currency, std::string_view account_json) = 0;
    virtual status funding_instructions(call& c, const funding_request& /*request*/) {
        return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "this rail gives no funding instructions");
    }
    virtual status initiate(call& c, const operation& op) = 0;
    virtual status tick(call& /*c*/, int64_t /*now_ms*/) { return CORRIDOR_RAIL_OK; }
};

// The exception barrier: runs body, turning every exception into a status. Never throws.
template <class Body>
int32_t barrier(const corridor_rail_host_api* api, corridor_rail_type_host* log_to,
                corridor_rail_type_call* slot, Body&& body) noexcept {
    try {
        return static_cast<int32_t>(body());
    } catch (const rail_error& e) {
        if (slot != nullptr) api->set_error(slot, span(e.what()));
        return static_cast<int32_t>(e.code());
    } catch (const std::exception& e) {
        if (log_to != nullptr) api->log(log_to, CORRIDOR_RAIL_LOG_ERROR, span(e.what()));
        if (slot != nullptr) api->set_error(slot, span("internal error in the rail plugin"));
        return CORRIDOR_RAIL_INTERNAL;
    } catch (...) {
        if (slot != nullptr) api->set_error(slot, span("internal error in the rail plugin"));
        return CORRIDOR_RAIL_INTERNAL;
    }
}

namespace detail {

// One plugin instance: the rail object plus what the trampolines need to reach the host.
struct instance {
    const corridor_rail_host_api* api;
    corridor_rail_type_host* host_self;
    std::unique_ptr<rail> impl;
};

inline instance* as_instance(corridor_rail_type_self* self) noexcept {
    return reinterpret_cast<instance*>(self);
}

// The rail's capability flags (ABI 1.1): its `capabilities` constant, or payout and pull.
template <class Rail>
constexpr uint32_t capabilities_of() {
    if constexpr (requires { Rail::capabilities; }) {
        return Rail::capabilities;
    } else {
        return CORRIDOR_RAIL_CAN_PAYOUT | CORRIDOR_RAIL_CAN_PULL;
    }
}

template <class Rail>
struct plugin_table {
    static inline const corridor_rail_host_api* api = nullptr;

    template <std::size_t... I>
    static constexpr std::array<corridor_rail_type_span, sizeof...(I)> spans_of(
        std::index_sequence<I...>) {
        return {corridor_rail_type_span{Rail::account_types[I].data(),
                                        Rail::account_types[I].size()}...};
    }
    static constexpr auto account_type_spans =
        spans_of(std::make_index_sequence<Rail::account_types.size()>{});

    static int32_t create(corridor_rail_type_call* slot, corridor_rail_type_host* host_self,
                          corridor_rail_type_span config, corridor_rail_type_self** out) noexcept {
        return barrier(api, host_self, slot, [&] {
            auto made = std::make_unique<instance>(instance{
                api, host_self, std::make_unique<Rail>(host(api, host_self), view(config))});
            *out = reinterpret_cast<corridor_rail_type_self*>(made.release());
            return CORRIDOR_RAIL_OK;
        });
    }
    static void destroy(corridor_rail_type_self* self) noexcept {
        // A destructor that throws is a bug; barrier keeps it from crossing into the host.
        barrier(api, nullptr, nullptr, [&] {
            delete as_instance(self);
            return CORRIDOR_RAIL_OK;
        });
    }
    static int32_t validate_account(corridor_rail_type_self* self, corridor_rail_type_call* slot,
                                    corridor_rail_type_span type, corridor_rail_type_span currency,
                                    corridor_rail_type_span json) noexcept {
        instance* in = as_instance(self);
        return barrier(in->api, in->host_self, slot, [&] {
            call c(in->api, slot);
            return in->impl->validate_account(c, view(type), view(currency), view(json));
        });
    }
    static int32_t funding_instructions(
        corridor_rail_type_self* self, corridor_rail_type_call* slot,
        const corridor_rail_type_funding_request* request) noexcept {
        instance* in = as_instance(self);
        return barrier(in->api, in->host_self, slot, [&] {
            call c(in->api, slot);
            return in->impl->funding_instructions(c, funding_request::from(*request));
        });
    }
    static int32_t initiate(corridor_rail_type_self* self, corridor_rail_type_call* slot,
                            const corridor_rail_type_operation* op) noexcept {
        instance* in = as_instance(self);
        return barrier(in->api, in->host_self, slot, [&] {
            call c(in->api, slot);
            return in->impl->initiate(c, operation::from(*op));
        });
    }
    static int32_t tick(corridor_rail_type_self* self, corridor_rail_type_call* slot,
                        int64_t now_ms) noexcept {
        instance* in = as_instance(self);
        return barrier(in->api, in->host_self, slot, [&] {
            call c(in->api, slot);
            return in->impl->tick(c, now_ms);
        });
    }

    static const corridor_rail_plugin* table() noexcept {
        static const corridor_rail_plugin value = {
            {sizeof(corridor_rail_type_magic), CORRIDOR_RAIL_ABI_MAJOR, CORRIDOR_RAIL_ABI_MINOR,
             sizeof(corridor_rail_plugin), 0, span(CORRIDOR_RAIL_BUILD_SIGNATURE)},
            span(Rail::name),
            span(Rail::version),
            account_type_spans.data(),
            static_cast<uint32_t>(account_type_spans.size()),
            Rail::tick_interval_ms,
            &create,
            &destroy,
            &validate_account,
            &funding_instructions,
            &initiate,
            &tick,
            capabilities_of<Rail>(),
            0,
        };
        return &value;
    }

    static int32_t entry(const corridor_rail_host_api* host_api,
                         const corridor_rail_plugin** out) noexcept {
        if (host_api == nullptr || out == nullptr) return CORRIDOR_RAIL_INVALID_ARGUMENT;
        // Refusing, the table still goes out: its version block tells the host which ABI this
        // plugin was built for, so the host's error names both versions.
        *out = table();
        if (host_api->magic.abi_major != CORRIDOR_RAIL_ABI_MAJOR) return CORRIDOR_RAIL_UNSUPPORTED;
        if (host_api->magic.table_size < CORRIDOR_RAIL_HOST_API_SIZE_V1_0) {
            return CORRIDOR_RAIL_UNSUPPORTED;
        }
        api = host_api;
        *out = table();
        return CORRIDOR_RAIL_OK;
    }
};

}  // namespace detail
}  // namespace corridor::rail_sdk

#pragma GCC visibility pop

// Defines the plugin's one exported symbol for the rail class RailClass.
#define CORRIDOR_RAIL_PLUGIN(RailClass)                                                      \
    extern "C" CORRIDOR_RAIL_EXPORT int32_t corridor_rail_entry(                             \
        const corridor_rail_host_api* host_api, const corridor_rail_plugin** out) noexcept { \
        return ::corridor::rail_sdk::detail::plugin_table<RailClass>::entry(host_api, out);  \
    }
