#include "rails/rail.hpp"

#include <chrono>
#include <cstring>
#include <set>
#include <thread>

namespace corridor {
namespace {

std::string copy(corridor_rail_type_span s) {
    return s.ptr == nullptr ? std::string() : std::string(s.ptr, s.length);
}
corridor_rail_type_span span(const std::string& s) {
    return {s.data(), s.size()};
}

// The instances alive in this process: a callback whose host pointer is not one of them is refused
// rather than followed (a plugin passing a stale or made-up host).
std::mutex live_mutex;
std::set<const void*>& live_instances() {
    static std::set<const void*> live;
    return live;
}
bool is_live(const void* instance) {
    std::lock_guard lock(live_mutex);
    return live_instances().contains(instance);
}

bool upper_letters(const std::string& text, std::size_t min, std::size_t max) {
    if (text.size() < min || text.size() > max) return false;
    for (char c : text)
        if (c < 'A' || c > 'Z') return false;
    return true;
}

// The checks of corridor_rail_type_incoming, made on the copy.
bool well_formed(const rail_incoming& in) {
    if (in.environment != "sandbox" && in.environment != "production") return false;
    if (in.rail_reference.empty() || in.rail_reference.size() > 200) return false;
    if (in.match_key.empty() && in.reference.empty()) return false;
    if (in.match_key.size() > 200 || in.reference.size() > 200) return false;
    if (!upper_letters(in.currency, 3, 8)) return false;
    if (in.amount_minor <= 0) return false;
    if (in.amount_milli_minor < 0) return false;
    if (in.amount_milli_minor != 0 && in.amount_milli_minor / 1000 != in.amount_minor) return false;
    return in.received_at_ms >= 0;
}

}  // namespace

rail_status rail_status_from(int32_t code) {
    if (code >= CORRIDOR_RAIL_OK && code <= CORRIDOR_RAIL_INTERNAL)
        return static_cast<rail_status>(code);
    return rail_status::internal;
}

std::string_view to_string(rail_status status) {
    switch (status) {
        case rail_status::ok: return "ok";
        case rail_status::invalid_argument: return "invalid_argument";
        case rail_status::declined: return "declined";
        case rail_status::unsupported: return "unsupported";
        case rail_status::unavailable: return "unavailable";
        case rail_status::timeout: return "timeout";
        case rail_status::internal: return "internal";
    }
    return "internal";
}

std::string_view to_string(rail_outcome outcome) {
    switch (outcome) {
        case rail_outcome::pending: return "PENDING";
        case rail_outcome::settled: return "SETTLED";
        case rail_outcome::failed: return "FAILED";
        case rail_outcome::returned: return "RETURNED";
    }
    return "FAILED";
}

std::string_view to_string(rail_failure failure) {
    switch (failure) {
        case rail_failure::none: return "NONE";
        case rail_failure::insufficient_funds: return "INSUFFICIENT_FUNDS";
        case rail_failure::account_invalid: return "ACCOUNT_INVALID";
        case rail_failure::rejected: return "REJECTED";
        case rail_failure::timeout: return "TIMEOUT";
        case rail_failure::rail_error: return "RAIL_ERROR";
    }
    return "RAIL_ERROR";
}

// The result slot of one hook call; corridor_rail_type_call* points at one of these.
struct rail_instance::call_slot {
    std::string result;
    std::string message;
};

// The host's callbacks. They copy what they are given and never throw into the plugin.
struct rail_host_callbacks {
    static rail_instance::call_slot* slot_of(corridor_rail_type_call* call) {
        return reinterpret_cast<rail_instance::call_slot*>(call);
    }
    static rail_instance* instance_of(corridor_rail_type_host* host) {
        return reinterpret_cast<rail_instance*>(host);
    }

    static void set_result(corridor_rail_type_call* call, corridor_rail_type_span data) {
        if (call == nullptr) return;
        try {
            slot_of(call)->result = copy(data);
        } catch (...) {
        }
    }
    static void set_error(corridor_rail_type_call* call, corridor_rail_type_span message) {
        if (call == nullptr) return;
        try {
            slot_of(call)->message = copy(message);
        } catch (...) {
        }
    }
    static int32_t report(corridor_rail_type_host* host, const corridor_rail_type_report* r) {
        if (host == nullptr || r == nullptr) return CORRIDOR_RAIL_INVALID_ARGUMENT;
        if (r->struct_size < sizeof(corridor_rail_type_report))
            return CORRIDOR_RAIL_INVALID_ARGUMENT;
        if (r->outcome < CORRIDOR_RAIL_OUTCOME_PENDING ||
            r->outcome > CORRIDOR_RAIL_OUTCOME_RETURNED) {
            return CORRIDOR_RAIL_INVALID_ARGUMENT;
        }
        if (r->operation_id.ptr == nullptr || r->operation_id.length == 0) {
            return CORRIDOR_RAIL_INVALID_ARGUMENT;
        }
        rail_instance* instance = instance_of(host);
        // Reports are taken only from inside a hook of this instance, on the thread running it
        // (see rail_abi.h THREADING).
        // The thread first: reports_ belongs to the hook's thread and is read only from it.
        if (instance->hook_thread_.load() != std::this_thread::get_id() ||
            instance->reports_ == nullptr)
            return CORRIDOR_RAIL_INVALID_ARGUMENT;
        try {
            rail_report copied;
            copied.outcome = static_cast<rail_outcome>(r->outcome);
            copied.operation_id = copy(r->operation_id);
            bool final =
                copied.outcome == rail_outcome::failed || copied.outcome == rail_outcome::returned;
            int32_t failure = r->failure;
            if (failure < CORRIDOR_RAIL_FAILURE_NONE ||
                failure > CORRIDOR_RAIL_FAILURE_RAIL_ERROR) {
                failure = CORRIDOR_RAIL_FAILURE_RAIL_ERROR;
            }
            if (final && failure == CORRIDOR_RAIL_FAILURE_NONE)
                failure = CORRIDOR_RAIL_FAILURE_RAIL_ERROR;
            if (!final) failure = CORRIDOR_RAIL_FAILURE_NONE;
            copied.failure = static_cast<rail_failure>(failure);
            copied.rail_reason_code = copy(r->rail_reason_code);
            copied.failure_reason = copy(r->failure_reason);
            copied.rail_reference = copy(r->rail_reference);
            copied.message = copy(r->message);
            instance->reports_->push_back(std::move(copied));
            return CORRIDOR_RAIL_OK;
        } catch (...) {
            return CORRIDOR_RAIL_INTERNAL;
        }
    }
    static int32_t report_incoming(corridor_rail_type_host* host,
                                   const corridor_rail_type_incoming* in) {
        if (host == nullptr || in == nullptr || !is_live(host))
            return CORRIDOR_RAIL_INVALID_ARGUMENT;
        if (in->struct_size < sizeof(corridor_rail_type_incoming))
            return CORRIDOR_RAIL_INVALID_ARGUMENT;
        rail_instance* instance = instance_of(host);
        // Only while initiate or tick runs (see rail_abi.h), on its thread: their arrivals are
        // what the engine records.
        if (instance->hook_thread_.load() != std::this_thread::get_id() ||
            instance->incoming_ == nullptr)
            return CORRIDOR_RAIL_INVALID_ARGUMENT;
        try {
            rail_incoming copied;
            copied.environment = copy(in->environment);
            copied.rail_reference = copy(in->rail_reference);
            copied.match_key = copy(in->match_key);
            copied.reference = copy(in->reference);
            copied.currency = copy(in->currency);
            copied.message = copy(in->message);
            copied.amount_minor = in->amount_minor;
            copied.amount_milli_minor = in->amount_milli_minor;
            copied.received_at_ms = in->received_at_ms;
            if (!well_formed(copied)) return CORRIDOR_RAIL_INVALID_ARGUMENT;
            instance->incoming_->push_back(std::move(copied));
            return CORRIDOR_RAIL_OK;
        } catch (...) {
            return CORRIDOR_RAIL_INTERNAL;
        }
    }
    static void log(corridor_rail_type_host* host, int32_t level, corridor_rail_type_span message) {
        if (host == nullptr) return;
        rail_instance* instance = instance_of(host);
        if (level < CORRIDOR_RAIL_LOG_DEBUG || level > CORRIDOR_RAIL_LOG_ERROR)
            level = CORRIDOR_RAIL_LOG_ERROR;
        try {
            // Kept only from the hook's own thread, which owns it while the hook runs.
            if (level == CORRIDOR_RAIL_LOG_ERROR &&
                instance->hook_thread_.load() == std::this_thread::get_id())
                instance->last_logged_error_ = copy(message);
        } catch (...) {
        }
        if (instance->log_ == nullptr) return;
        try {
            instance->log_->write(instance->name_, static_cast<corridor_rail_log_level>(level),
                                  copy(message));
        } catch (...) {
        }
    }
};

const corridor_rail_host_api* rail_instance::host_api() {
    static const corridor_rail_host_api api = {
        {sizeof(corridor_rail_type_magic),
         CORRIDOR_RAIL_ABI_MAJOR,
         CORRIDOR_RAIL_ABI_MINOR,
         sizeof(corridor_rail_host_api),
         0,
         {CORRIDOR_RAIL_BUILD_SIGNATURE, sizeof(CORRIDOR_RAIL_BUILD_SIGNATURE) - 1}},
        &rail_host_callbacks::set_result,
        &rail_host_callbacks::set_error,
        &rail_host_callbacks::report,
        &rail_host_callbacks::log,
        &rail_host_callbacks::report_incoming,
    };
    return &api;
}

rail_instance::rail_instance(std::string file, const corridor_rail_plugin* table,
                             rail_log_sink* log)
    : file_(std::move(file)),
      name_(copy(table->name)),
      version_(copy(table->version)),
      table_(table),
      log_(log) {
    for (uint32_t i = 0; i < table->account_type_count; ++i) {
        account_types_.push_back(copy(table->account_types[i]));
    }
    std::lock_guard lock(live_mutex);
    live_instances().insert(this);
}

rail_instance::~rail_instance() {
    {
        std::lock_guard lock(mutex_);
        if (self_ != nullptr && table_->destroy != nullptr) table_->destroy(self_);
    }
    std::lock_guard lock(live_mutex);
    live_instances().erase(this);
}

bool rail_instance::serves(const std::string& account_type) const {
    for (const auto& served : account_types_) {
        if (served == account_type) return true;
    }
    return false;
}

std::uint32_t rail_instance::capabilities() const {
    // Read the 1.1 field only when the plugin's table is large enough to hold it.
    if (table_->magic.table_size < CORRIDOR_RAIL_PLUGIN_SIZE_V1_1)
        return CORRIDOR_RAIL_CAN_PAYOUT | CORRIDOR_RAIL_CAN_PULL;
    return table_->capabilities;
}

template <class Hook>
rail_call_result rail_instance::call(rail_hook which, Hook&& hook) {
    std::lock_guard lock(mutex_);
    rail_call_result out;
    call_slot slot;
    reports_ = &out.reports;
    hook_thread_ = std::this_thread::get_id();
    // Arrivals are taken only from the hooks whose results the payment engine applies.
    if (which == rail_hook::initiate || which == rail_hook::tick) incoming_ = &out.incoming;
    // Measured for metrics only; no decision depends on it.
    auto started = std::chrono::steady_clock::now();
    int32_t code = hook(reinterpret_cast<corridor_rail_type_call*>(&slot));
    auto elapsed = std::chrono::steady_clock::now() - started;
    reports_ = nullptr;
    incoming_ = nullptr;
    hook_thread_ = std::thread::id();
    out.status = rail_status_from(code);
    rail_call_stats& stats = stats_[static_cast<std::size_t>(which)];
    stats.calls += 1;
    if (out.status != rail_status::ok) stats.not_ok += 1;
    stats.total_us += static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count());
    out.result = std::move(slot.result);
    out.message = std::move(slot.message);
    if (!out.ok() && out.message.empty())
        out.message = "the rail returned " + std::string(to_string(out.status));
    return out;
}

rail_call_result rail_instance::create(const std::string& config_json) {
    auto* host = reinterpret_cast<corridor_rail_type_host*>(this);
    return call(rail_hook::create, [&](corridor_rail_type_call* slot) {
        corridor_rail_type_self* made = nullptr;
        int32_t code = table_->create(slot, host, span(config_json), &made);
        if (code == CORRIDOR_RAIL_OK && made == nullptr) return int32_t{CORRIDOR_RAIL_INTERNAL};
        if (code == CORRIDOR_RAIL_OK) self_ = made;
        return code;
    });
}

rail_call_result rail_instance::validate_account(const std::string& account_type,
                                                 const std::string& currency,
                                                 const std::string& account_json) {
    return call(rail_hook::validate_account, [&](corridor_rail_type_call* slot) {
        return table_->validate_account(self_, slot, span(account_type), span(currency),
                                        span(account_json));
    });
}

rail_call_result rail_instance::funding_instructions(const rail_funding_input& request) {
    corridor_rail_type_funding_request c{};
    c.struct_size = sizeof(c);
    c.environment = span(request.environment);
    c.account_id = span(request.account_id);
    c.currency = span(request.currency);
    c.amount_minor = request.amount_minor;
    c.now_ms = request.now_ms;
    c.reference = span(request.reference);
    return call(rail_hook::funding_instructions, [&](corridor_rail_type_call* slot) {
        return table_->funding_instructions(self_, slot, &c);
    });
}

rail_call_result rail_instance::initiate(const rail_operation_input& operation) {
    corridor_rail_type_operation c{};
    c.struct_size = sizeof(c);
    c.direction = operation.direction;
    c.operation_id = span(operation.operation_id);
    c.environment = span(operation.environment);
    c.account_type = span(operation.account_type);
    c.account_json = span(operation.account_json);
    c.currency = span(operation.currency);
    c.amount_minor = operation.amount_minor;
    c.now_ms = operation.now_ms;
    c.reference = span(operation.reference);
    return call(rail_hook::initiate,
                [&](corridor_rail_type_call* slot) { return table_->initiate(self_, slot, &c); });
}

rail_call_result rail_instance::tick(std::int64_t now_ms) {
    if (table_->tick == nullptr || table_->tick_interval_ms == 0) {
        rail_call_result none;
        none.status = rail_status::ok;
        return none;
    }
    return call(rail_hook::tick,
                [&](corridor_rail_type_call* slot) { return table_->tick(self_, slot, now_ms); });
}

}  // namespace corridor
