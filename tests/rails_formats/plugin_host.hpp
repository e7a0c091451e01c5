#pragma once
// A minimal host for loading a rail plugin .so in tests: dlopen, the entry symbol, the host
// callbacks (copying results, errors, reports and log lines into vectors), and typed hook calls.
#include <dlfcn.h>

#include <string>
#include <vector>

#include "rails/rail_abi.h"

namespace corridor::plugin_test {

struct recorded_report {
    int32_t outcome = 0;
    std::string operation_id;
    int32_t failure = 0;
    std::string rail_reason_code;
    std::string failure_reason;
    std::string rail_reference;
    std::string message;
};

struct recorded_incoming {
    std::string environment, rail_reference, match_key, reference, currency, message;
    int64_t amount_minor = 0, amount_milli_minor = 0, received_at_ms = 0;
};

struct hook_result {
    int32_t status = -1;
    std::string result;
    std::string error;
};

class plugin_host {
public:
    explicit plugin_host(const std::string& path);
    ~plugin_host();
    plugin_host(const plugin_host&) = delete;
    plugin_host& operator=(const plugin_host&) = delete;

    const corridor_rail_plugin& table() const { return *table_; }
    hook_result create(const std::string& config_json);
    hook_result validate(const std::string& type, const std::string& currency,
                         const std::string& json);
    hook_result funding(const std::string& currency, int64_t amount_minor, int64_t now_ms,
                        const std::string& reference);
    hook_result initiate(const std::string& id, corridor_rail_direction direction,
                         const std::string& type, const std::string& json,
                         const std::string& currency, int64_t amount_minor, int64_t now_ms,
                         const std::string& reference = "");
    hook_result tick(int64_t now_ms);

    std::vector<recorded_report> reports;
    std::vector<recorded_incoming> incoming;  // what report_incoming handed over (ABI 1.2)
    std::vector<std::string> logs;
    std::string environment = "sandbox";  // of the operations and funding requests made

    // Reports for one operation, in order.
    std::vector<recorded_report> reports_of(const std::string& id) const;

private:
    static corridor_rail_type_span span(const std::string& text) {
        return {text.data(), text.size()};
    }

    void* handle_ = nullptr;
    const corridor_rail_plugin* table_ = nullptr;
    corridor_rail_type_self* self_ = nullptr;
    corridor_rail_host_api api_{};
};

}  // namespace corridor::plugin_test
