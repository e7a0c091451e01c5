#pragma once
// One loaded rail plugin instance, seen from the host: a C++ face over the plugin's C table.
// Calls into the plugin are serialised (the ABI promises hooks of one instance never run
// concurrently) and never throw; a plugin's status, message, result and reports are copied out.
#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "rails/rail_abi.h"

namespace corridor {

enum class rail_status {
    ok = CORRIDOR_RAIL_OK,
    invalid_argument = CORRIDOR_RAIL_INVALID_ARGUMENT,
    declined = CORRIDOR_RAIL_DECLINED,
    unsupported = CORRIDOR_RAIL_UNSUPPORTED,
    unavailable = CORRIDOR_RAIL_UNAVAILABLE,
    timeout = CORRIDOR_RAIL_TIMEOUT,
    internal = CORRIDOR_RAIL_INTERNAL,
};
// A code outside the closed enum reads as internal (fail closed).
rail_status rail_status_from(int32_t code);
std::string_view to_string(rail_status status);

enum class rail_outcome { pending = 1, settled = 2, failed = 3, returned = 4 };
enum class rail_failure {
    none = 0,
    insufficient_funds,
    account_invalid,
    rejected,
    timeout,
    rail_error
};
std::string_view to_string(rail_outcome outcome);
std::string_view to_string(rail_failure failure);

// A report copied out of the plugin.
struct rail_report {
    rail_outcome outcome = rail_outcome::pending;
    std::string operation_id;
    rail_failure failure = rail_failure::none;
    std::string rail_reason_code, failure_reason, rail_reference, message;
};

// Money that arrived without the host starting it (ABI 1.2), copied out of the plugin and checked:
// environment is "sandbox" or "production", rail_reference is 1..200 bytes, match_key or reference
// is set, currency is 3 to 8 upper-case letters, amount_minor > 0 and agrees with
// amount_milli_minor when that is set.
struct rail_incoming {
    std::string environment, rail_reference, match_key, reference, currency, message;
    std::int64_t amount_minor = 0;
    std::int64_t amount_milli_minor = 0;  // 0 unless the rail settles finer than the minor unit
    std::int64_t received_at_ms = 0;
};

// What one hook call produced.
struct rail_call_result {
    rail_status status = rail_status::internal;
    std::string result;   // set_result data (JSON)
    std::string message;  // set_error text
    std::vector<rail_report> reports;
    std::vector<rail_incoming> incoming;  // arrivals reported during initiate or tick (ABI 1.2)
    bool ok() const { return status == rail_status::ok; }
};

struct rail_operation_input {
    corridor_rail_direction direction = CORRIDOR_RAIL_PAYOUT;
    std::string operation_id, environment, account_type, account_json, currency, reference;
    std::int64_t amount_minor = 0;
    std::int64_t now_ms = 0;
};

struct rail_funding_input {
    std::string environment, account_id, currency, reference;
    std::int64_t amount_minor = 0;
    std::int64_t now_ms = 0;
};

// Where a rail's log lines go (the server passes spdlog; tests collect them).
class rail_log_sink {
public:
    virtual ~rail_log_sink() = default;
    virtual void write(const std::string& rail, corridor_rail_log_level level,
                       const std::string& message) = 0;
};

enum class rail_hook { create, validate_account, funding_instructions, initiate, tick };
constexpr std::array<std::string_view, 5> rail_hook_names = {
    "create", "validate_account", "funding_instructions", "initiate", "tick"};

// Calls into one hook, for metrics: how many, how many did not return OK, and their total time.
struct rail_call_stats {
    std::atomic<std::uint64_t> calls{0};
    std::atomic<std::uint64_t> not_ok{0};
    std::atomic<std::uint64_t> total_us{0};
};

class rail_instance {
public:
    rail_instance(std::string file, const corridor_rail_plugin* table, rail_log_sink* log);
    ~rail_instance();
    rail_instance(const rail_instance&) = delete;
    rail_instance& operator=(const rail_instance&) = delete;

    // Runs the plugin's create hook with the rail's JSON settings.
    rail_call_result create(const std::string& config_json);

    rail_call_result validate_account(const std::string& account_type, const std::string& currency,
                                      const std::string& account_json);
    rail_call_result funding_instructions(const rail_funding_input& request);
    rail_call_result initiate(const rail_operation_input& operation);
    rail_call_result tick(std::int64_t now_ms);

    const std::string& name() const { return name_; }
    const std::string& version() const { return version_; }
    const std::string& file() const { return file_; }
    std::uint16_t abi_major() const { return table_->magic.abi_major; }
    std::uint16_t abi_minor() const { return table_->magic.abi_minor; }
    const std::vector<std::string>& account_types() const { return account_types_; }
    std::uint32_t tick_interval_ms() const { return table_->tick_interval_ms; }
    bool serves(const std::string& account_type) const;
    // corridor_rail_capability flags; a plugin built for ABI 1.0 declares none and reads as able
    // to pay out and pull (its initiate refuses what it cannot do).
    std::uint32_t capabilities() const;
    bool can(corridor_rail_direction direction) const {
        return (capabilities() & (direction == CORRIDOR_RAIL_PULL ? CORRIDOR_RAIL_CAN_PULL
                                                                  : CORRIDOR_RAIL_CAN_PAYOUT)) != 0;
    }
    // ABI 1.2: the rail runs the sandbox environment itself (CORRIDOR_RAIL_SERVES_SANDBOX), read
    // only from plugins built for 1.2 or later (an older one cannot mean the bit).
    bool serves_sandbox() const {
        return abi_minor() >= 2 && (capabilities() & CORRIDOR_RAIL_SERVES_SANDBOX) != 0;
    }
    // The last line the plugin logged at ERROR level (the SDK logs there the text of an exception
    // it turned into INTERNAL), or "".
    const std::string& last_logged_error() const { return last_logged_error_; }
    const rail_call_stats& stats(rail_hook hook) const {
        return stats_[static_cast<std::size_t>(hook)];
    }

    // The host callback table handed to every plugin's entry point.
    static const corridor_rail_host_api* host_api();

private:
    struct call_slot;
    template <class Hook>
    rail_call_result call(rail_hook which, Hook&& hook);

    std::string file_, name_, version_;
    std::vector<std::string> account_types_;
    const corridor_rail_plugin* table_;
    rail_log_sink* log_;
    corridor_rail_type_self* self_ = nullptr;
    std::mutex mutex_;                             // serialises hooks of this instance
    std::vector<rail_report>* reports_ = nullptr;  // the running hook's reports, under mutex_
    // The running hook's arrivals; set only while initiate or tick runs, under mutex_.
    std::vector<rail_incoming>* incoming_ = nullptr;
    std::array<rail_call_stats, rail_hook_names.size()> stats_;
    std::string last_logged_error_;  // written under mutex_ (from inside a hook)
    // The thread running a hook of this instance (none between hooks): callbacks from any other
    // thread are refused.
    std::atomic<std::thread::id> hook_thread_{};

    friend struct rail_host_callbacks;
};

}  // namespace corridor
