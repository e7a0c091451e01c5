// <corridor/rail_sdk/test_host.hpp>: a minimal host for a rail's own unit tests. Link the rail's
// source into a test program (its corridor_rail_entry is then an ordinary function), and drive
// its hooks with the times and inputs the test chooses:
//
//   corridor::rail_sdk::test_host host(corridor_rail_entry);
//   auto made = host.create(R"({"data_dir":"state"})");      // made.status, made.message
//   auto paid = host.initiate(op);                            // paid.reports: what was reported
//   auto later = host.tick(now_ms);
//
// It keeps the callbacks' rules loosely (one instance, one thread). `corridor plugins check`
// is the strict check of the whole contract.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "../rail_abi.h"

namespace corridor::rail_sdk {

class test_host {
public:
    struct report_copy {
        corridor_rail_outcome outcome;
        std::string operation_id;
        corridor_rail_failure failure;
        std::string rail_reason_code, failure_reason, rail_reference, message;
    };
    struct outcome {
        int32_t status = CORRIDOR_RAIL_INTERNAL;
        std::string result, message;
        std::vector<report_copy> reports;
        std::vector<std::string> logs;
        bool ok() const { return status == CORRIDOR_RAIL_OK; }
    };
    struct operation_input {
        corridor_rail_direction direction = CORRIDOR_RAIL_PAYOUT;
        std::string operation_id, environment = "sandbox", account_type, account_json,
                                  currency = "USD", reference;
        int64_t amount_minor = 100;
        int64_t now_ms = 0;
    };

    explicit test_host(corridor_rail_entry_fn entry) {
        current() = this;
        if (entry(api(), &table_) != CORRIDOR_RAIL_OK || table_ == nullptr)
            throw std::runtime_error("the rail's entry point refused the test host");
    }
    ~test_host() {
        destroy();
        current() = nullptr;
    }
    test_host(const test_host&) = delete;
    test_host& operator=(const test_host&) = delete;

    const corridor_rail_plugin& table() const { return *table_; }

    outcome create(const std::string& settings_json) {
        destroy();
        return call([&](corridor_rail_type_call* slot) {
            return table_->create(slot, reinterpret_cast<corridor_rail_type_host*>(this),
                                  span(settings_json), &self_);
        });
    }
    // A restart: the instance goes, and create makes a new one (on the same data_dir).
    void destroy() {
        if (self_ != nullptr) table_->destroy(self_);
        self_ = nullptr;
    }
    outcome validate_account(const std::string& type, const std::string& currency,
                             const std::string& json) {
        return call([&](corridor_rail_type_call* slot) {
            return table_->validate_account(self_, slot, span(type), span(currency), span(json));
        });
    }
    outcome initiate(const operation_input& in) {
        corridor_rail_type_operation op{};
        op.struct_size = sizeof(op);
        op.direction = in.direction;
        op.operation_id = span(in.operation_id);
        op.environment = span(in.environment);
        op.account_type = span(in.account_type);
        op.account_json = span(in.account_json);
        op.currency = span(in.currency);
        op.amount_minor = in.amount_minor;
        op.now_ms = in.now_ms;
        op.reference = span(in.reference);
        return call(
            [&](corridor_rail_type_call* slot) { return table_->initiate(self_, slot, &op); });
    }
    outcome tick(int64_t now_ms) {
        if (table_->tick == nullptr) return {CORRIDOR_RAIL_OK, "", "", {}, {}};
        return call(
            [&](corridor_rail_type_call* slot) { return table_->tick(self_, slot, now_ms); });
    }

private:
    static corridor_rail_type_span span(const std::string& s) { return {s.data(), s.size()}; }
    static std::string text(corridor_rail_type_span s) {
        return s.ptr == nullptr ? std::string() : std::string(s.ptr, s.length);
    }
    static test_host*& current() {
        static test_host* host = nullptr;
        return host;
    }

    template <class Hook>
    outcome call(Hook&& hook) {
        outcome out;
        running_ = &out;
        out.status = hook(reinterpret_cast<corridor_rail_type_call*>(&out));
        running_ = nullptr;
        return out;
    }

    static void set_result(corridor_rail_type_call* call, corridor_rail_type_span data) {
        reinterpret_cast<outcome*>(call)->result = text(data);
    }
    static void set_error(corridor_rail_type_call* call, corridor_rail_type_span message) {
        reinterpret_cast<outcome*>(call)->message = text(message);
    }
    static int32_t report(corridor_rail_type_host*, const corridor_rail_type_report* r) {
        test_host* host = current();
        if (host == nullptr || host->running_ == nullptr || r == nullptr)
            return CORRIDOR_RAIL_INVALID_ARGUMENT;
        host->running_->reports.push_back(
            {static_cast<corridor_rail_outcome>(r->outcome), text(r->operation_id),
             static_cast<corridor_rail_failure>(r->failure), text(r->rail_reason_code),
             text(r->failure_reason), text(r->rail_reference), text(r->message)});
        return CORRIDOR_RAIL_OK;
    }
    static void log(corridor_rail_type_host*, int32_t, corridor_rail_type_span message) {
        test_host* host = current();
        if (host != nullptr && host->running_ != nullptr)
            host->running_->logs.push_back(text(message));
    }
    static int32_t report_incoming(corridor_rail_type_host*, const corridor_rail_type_incoming*) {
        return CORRIDOR_RAIL_OK;
    }
    static const corridor_rail_host_api* api() {
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

    const corridor_rail_plugin* table_ = nullptr;
    corridor_rail_type_self* self_ = nullptr;
    outcome* running_ = nullptr;
};

}  // namespace corridor::rail_sdk
