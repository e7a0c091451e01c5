#pragma once
// The scripted host of the conformance kit (rails/conformance.hpp): the host table a plugin under
// check receives, and the runner of its hooks. It checks what the rail ABI asks of every hook
// whatever it does: the time it takes, the status it returns, the callbacks it makes and from
// which thread (rail_abi.h THREADING). A broken rule is a breach, named with the step it broke.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "rails/conformance.hpp"
#include "rails/rail_abi.h"

namespace corridor::conformance_kit {

// A breach of the contract: the step it happened in and what the plugin did.
struct breach : std::runtime_error {
    breach(std::string step_name, const std::string& what)
        : std::runtime_error(what), step(std::move(step_name)) {}
    std::string step;
};

std::string text_of(corridor_rail_type_span s);
corridor_rail_type_span span_of(const std::string& s);
const char* status_name(int32_t code);
const char* outcome_name(int32_t outcome);

// What one hook call produced, as the host callbacks saw it.
struct call_slot {
    std::string result, message;
    bool error_set = false;
};

struct seen_report {
    std::string operation_id;
    int32_t outcome;
    std::string rail_reference, message;
};

// The scripted host. One per process (the plugin's SDK keeps the host table it was given).
class kit_host {
public:
    static kit_host* current;

    // Host callbacks: they copy, check the thread rules, and never throw into the plugin.
    static void set_result(corridor_rail_type_call* call, corridor_rail_type_span data);
    static void set_error(corridor_rail_type_call* call, corridor_rail_type_span message);
    static int32_t report(corridor_rail_type_host* host, const corridor_rail_type_report* r);
    static void log(corridor_rail_type_host*, int32_t level, corridor_rail_type_span message);
    static int32_t report_incoming(corridor_rail_type_host*, const corridor_rail_type_incoming* in);

    static const corridor_rail_host_api* api();

    kit_host(const conformance_options& options, std::ostream& out) : options_(options), out_(out) {
        current = this;
    }
    ~kit_host() { current = nullptr; }

    corridor_rail_type_host* self_host() {
        return reinterpret_cast<corridor_rail_type_host*>(this);
    }

    // Runs one hook on a thread of its own, as the host's payment engine does, and checks its
    // time, its status and the callbacks it made. Returns the status and fills slot.
    int32_t run(const std::string& step, const std::string& hook, call_slot& slot,
                const std::function<int32_t()>& body);

    std::vector<seen_report> take_reports();
    std::string logged_error();

private:
    struct hook_state;

    void begin_hook(const std::string& hook);
    void run_on_hook_thread(hook_state& state, const std::function<int32_t()>& body);
    void wait_or_exit(const std::string& step, const std::string& hook, hook_state& state);
    int32_t check_hook_result(const std::string& step, const std::string& hook,
                              const call_slot& slot, const hook_state& state,
                              std::int64_t elapsed_ms);

    // A callback is legal only on the thread of the running hook (rail_abi.h THREADING).
    bool inside_hook_locked(const char* callback);

    const conformance_options& options_;
    std::ostream& out_;
    std::mutex mutex_;
    std::string hook_;
    std::thread::id hook_thread_;
    bool in_hook_ = false;
    std::vector<seen_report> reports_;
    std::string late_breach_;
    std::string last_logged_error_;
};

}  // namespace corridor::conformance_kit
