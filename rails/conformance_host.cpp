#include "rails/conformance_host.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdlib>

namespace corridor::conformance_kit {

std::string text_of(corridor_rail_type_span s) {
    return s.ptr == nullptr ? std::string() : std::string(s.ptr, s.length);
}
corridor_rail_type_span span_of(const std::string& s) {
    return {s.data(), s.size()};
}

const char* status_name(int32_t code) {
    switch (code) {
        case CORRIDOR_RAIL_OK: return "OK";
        case CORRIDOR_RAIL_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
        case CORRIDOR_RAIL_DECLINED: return "DECLINED";
        case CORRIDOR_RAIL_UNSUPPORTED: return "UNSUPPORTED";
        case CORRIDOR_RAIL_UNAVAILABLE: return "UNAVAILABLE";
        case CORRIDOR_RAIL_TIMEOUT: return "TIMEOUT";
        case CORRIDOR_RAIL_INTERNAL: return "INTERNAL";
    }
    return "an unknown status";
}
const char* outcome_name(int32_t outcome) {
    switch (outcome) {
        case CORRIDOR_RAIL_OUTCOME_PENDING: return "PENDING";
        case CORRIDOR_RAIL_OUTCOME_SETTLED: return "SETTLED";
        case CORRIDOR_RAIL_OUTCOME_FAILED: return "FAILED";
        case CORRIDOR_RAIL_OUTCOME_RETURNED: return "RETURNED";
    }
    return "an unknown outcome";
}

kit_host* kit_host::current = nullptr;

void kit_host::set_result(corridor_rail_type_call* call, corridor_rail_type_span data) {
    if (call == nullptr) return;
    reinterpret_cast<call_slot*>(call)->result = text_of(data);
}

void kit_host::set_error(corridor_rail_type_call* call, corridor_rail_type_span message) {
    if (call == nullptr) return;
    auto* slot = reinterpret_cast<call_slot*>(call);
    slot->message = text_of(message);
    slot->error_set = true;
}

int32_t kit_host::report(corridor_rail_type_host* host, const corridor_rail_type_report* r) {
    kit_host* kit = current;
    if (kit == nullptr || r == nullptr) return CORRIDOR_RAIL_INVALID_ARGUMENT;
    std::lock_guard lock(kit->mutex_);
    if (!kit->inside_hook_locked("report")) return CORRIDOR_RAIL_INVALID_ARGUMENT;
    if (host != kit->self_host()) {
        kit->late_breach_ = "report was called with a host pointer other than create's";
        return CORRIDOR_RAIL_INVALID_ARGUMENT;
    }
    if (kit->hook_ != "initiate" && kit->hook_ != "tick") {
        kit->late_breach_ = "report was called from " + kit->hook_ +
                            "; only initiate and tick may report (rail_abi.h THREADING)";
        return CORRIDOR_RAIL_INVALID_ARGUMENT;
    }
    if (r->struct_size < sizeof(corridor_rail_type_report)) {
        kit->late_breach_ = "a report's struct_size is smaller than corridor_rail_type_report";
        return CORRIDOR_RAIL_INVALID_ARGUMENT;
    }
    kit->reports_.push_back(
        {text_of(r->operation_id), r->outcome, text_of(r->rail_reference), text_of(r->message)});
    return CORRIDOR_RAIL_OK;
}

void kit_host::log(corridor_rail_type_host*, int32_t level, corridor_rail_type_span message) {
    kit_host* kit = current;
    if (kit == nullptr) return;
    std::lock_guard lock(kit->mutex_);
    if (level == CORRIDOR_RAIL_LOG_ERROR) kit->last_logged_error_ = text_of(message);
    kit->inside_hook_locked("log");
}

int32_t kit_host::report_incoming(corridor_rail_type_host*, const corridor_rail_type_incoming* in) {
    kit_host* kit = current;
    if (kit == nullptr || in == nullptr) return CORRIDOR_RAIL_INVALID_ARGUMENT;
    std::lock_guard lock(kit->mutex_);
    if (!kit->inside_hook_locked("report_incoming")) return CORRIDOR_RAIL_INVALID_ARGUMENT;
    if (kit->hook_ != "initiate" && kit->hook_ != "tick") {
        kit->late_breach_ = "report_incoming was called from " + kit->hook_ +
                            "; only initiate and tick may report arrivals";
        return CORRIDOR_RAIL_INVALID_ARGUMENT;
    }
    return CORRIDOR_RAIL_OK;
}

const corridor_rail_host_api* kit_host::api() {
    static const corridor_rail_host_api table = {
        {sizeof(corridor_rail_type_magic),
         CORRIDOR_RAIL_ABI_MAJOR,
         CORRIDOR_RAIL_ABI_MINOR,
         sizeof(corridor_rail_host_api),
         0,
         {CORRIDOR_RAIL_BUILD_SIGNATURE, sizeof(CORRIDOR_RAIL_BUILD_SIGNATURE) - 1}},
        &set_result,
        &set_error,
        &report,
        &log,
        &report_incoming,
    };
    return &table;
}

// What the hook's thread hands back to the thread that waits for it.
struct kit_host::hook_state {
    std::mutex mutex;
    std::condition_variable done_signal;
    bool done = false;
    bool threw = false;
    int32_t code = CORRIDOR_RAIL_INTERNAL;
};

int32_t kit_host::run(const std::string& step, const std::string& hook, call_slot& slot,
                      const std::function<int32_t()>& body) {
    auto state = std::make_shared<hook_state>();
    begin_hook(hook);
    auto started = std::chrono::steady_clock::now();
    std::thread worker([this, state, &body] { run_on_hook_thread(*state, body); });
    wait_or_exit(step, hook, *state);
    worker.join();
    auto elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - started)
                          .count();
    return check_hook_result(step, hook, slot, *state, elapsed_ms);
}

void kit_host::begin_hook(const std::string& hook) {
    std::lock_guard lock(mutex_);
    hook_ = hook;
    reports_.clear();
    last_logged_error_.clear();
}

void kit_host::run_on_hook_thread(hook_state& state, const std::function<int32_t()>& body) {
    {
        std::lock_guard lock(mutex_);
        hook_thread_ = std::this_thread::get_id();
        in_hook_ = true;
    }
    int32_t code = CORRIDOR_RAIL_INTERNAL;
    bool threw = false;
    try {
        code = body();
    } catch (...) {
        threw = true;
    }
    {
        std::lock_guard lock(mutex_);
        in_hook_ = false;
    }
    std::lock_guard lock(state.mutex);
    state.code = code;
    state.threw = threw;
    state.done = true;
    state.done_signal.notify_all();
}

void kit_host::wait_or_exit(const std::string& step, const std::string& hook, hook_state& state) {
    std::unique_lock lock(state.mutex);
    if (state.done_signal.wait_for(lock, std::chrono::milliseconds(options_.hook_hang_limit_ms),
                                   [&] { return state.done; }))
        return;
    // A hook that never returns cannot be recovered from: say so and leave.
    out_ << "BREACH " << step << ": " << hook << " did not return within "
         << options_.hook_hang_limit_ms
         << " ms (hooks must not block: no I/O waits, no sleeping, no locks held "
            "elsewhere)"
         << std::endl;
    std::_Exit(1);
}

int32_t kit_host::check_hook_result(const std::string& step, const std::string& hook,
                                    const call_slot& slot, const hook_state& state,
                                    std::int64_t elapsed_ms) {
    if (state.threw) {
        throw breach(step, "an exception crossed the ABI boundary out of " + hook +
                               " (no exception may leave a hook; the C++ SDK's barrier "
                               "catches them)");
    }
    {
        std::lock_guard lock(mutex_);
        if (!late_breach_.empty()) throw breach(step, late_breach_);
    }
    bool timed = hook != "create" && hook != "destroy";
    if (timed && elapsed_ms > options_.hook_time_limit_ms) {
        throw breach(step, hook + " took " + std::to_string(elapsed_ms) + " ms, over the " +
                               std::to_string(options_.hook_time_limit_ms) +
                               " ms a hook may take (hooks must not block: leave the work "
                               "pending and finish it on a later tick)");
    }
    int32_t code = state.code;
    if (code < CORRIDOR_RAIL_OK || code > CORRIDOR_RAIL_INTERNAL) {
        throw breach(step, hook + " returned " + std::to_string(code) +
                               ", which is not a corridor_rail_status");
    }
    if (code != CORRIDOR_RAIL_OK && hook != "destroy" && slot.message.empty()) {
        throw breach(step, hook + " returned " + status_name(code) +
                               " without a message (call set_error saying why)");
    }
    return code;
}

std::vector<seen_report> kit_host::take_reports() {
    std::lock_guard lock(mutex_);
    return std::move(reports_);
}

std::string kit_host::logged_error() {
    std::lock_guard lock(mutex_);
    return last_logged_error_;
}

bool kit_host::inside_hook_locked(const char* callback) {
    if (!in_hook_) {
        late_breach_ = std::string(callback) +
                       " was called while no hook was running (a plugin calls the host only "
                       "from inside a hook)";
        return false;
    }
    if (std::this_thread::get_id() != hook_thread_) {
        late_breach_ = std::string(callback) +
                       " was called from a thread of the plugin's own, "
                       "not the thread running " +
                       hook_;
        return false;
    }
    return true;
}

}  // namespace corridor::conformance_kit
