#include "tests/rails_formats/plugin_host.hpp"

#include <stdexcept>

namespace corridor::plugin_test {
namespace {

std::string text(corridor_rail_type_span span) {
    return span.ptr == nullptr ? std::string() : std::string(span.ptr, span.length);
}

void set_result(corridor_rail_type_call* call, corridor_rail_type_span data) {
    reinterpret_cast<hook_result*>(call)->result = text(data);
}
void set_error(corridor_rail_type_call* call, corridor_rail_type_span message) {
    reinterpret_cast<hook_result*>(call)->error = text(message);
}
int32_t report(corridor_rail_type_host* host, const corridor_rail_type_report* r) {
    auto* reports = reinterpret_cast<plugin_host*>(host);
    reports->reports.push_back({r->outcome, text(r->operation_id), r->failure,
                                text(r->rail_reason_code), text(r->failure_reason),
                                text(r->rail_reference), text(r->message)});
    return CORRIDOR_RAIL_OK;
}
int32_t report_incoming(corridor_rail_type_host* host, const corridor_rail_type_incoming* in) {
    if (in == nullptr || in->struct_size < sizeof(corridor_rail_type_incoming))
        return CORRIDOR_RAIL_INVALID_ARGUMENT;
    reinterpret_cast<plugin_host*>(host)->incoming.push_back(
        {text(in->environment), text(in->rail_reference), text(in->match_key), text(in->reference),
         text(in->currency), text(in->message), in->amount_minor, in->amount_milli_minor,
         in->received_at_ms});
    return CORRIDOR_RAIL_OK;
}
void log(corridor_rail_type_host* host, int32_t, corridor_rail_type_span message) {
    reinterpret_cast<plugin_host*>(host)->logs.push_back(text(message));
}

}  // namespace

plugin_host::plugin_host(const std::string& path) {
    api_.magic = {sizeof(corridor_rail_type_magic),
                  CORRIDOR_RAIL_ABI_MAJOR,
                  CORRIDOR_RAIL_ABI_MINOR,
                  sizeof(corridor_rail_host_api),
                  0,
                  {CORRIDOR_RAIL_BUILD_SIGNATURE, sizeof(CORRIDOR_RAIL_BUILD_SIGNATURE) - 1}};
    api_.set_result = &set_result;
    api_.set_error = &set_error;
    api_.report = &report;
    api_.log = &log;
    api_.report_incoming = &report_incoming;
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) throw std::runtime_error(std::string("dlopen: ") + dlerror());
    auto entry =
        reinterpret_cast<corridor_rail_entry_fn>(dlsym(handle_, CORRIDOR_RAIL_ENTRY_SYMBOL));
    if (!entry) throw std::runtime_error("no entry symbol");
    if (entry(&api_, &table_) != CORRIDOR_RAIL_OK)
        throw std::runtime_error("entry refused the host");
    if (table_->magic.abi_major != CORRIDOR_RAIL_ABI_MAJOR ||
        text(table_->magic.build_signature) != CORRIDOR_RAIL_BUILD_SIGNATURE)
        throw std::runtime_error("plugin ABI mismatch");
}

// Plugins are never unloaded (rail_abi.h); only the instance is destroyed.
plugin_host::~plugin_host() {
    if (self_) table_->destroy(self_);
}

hook_result plugin_host::create(const std::string& config_json) {
    hook_result out;
    out.status =
        table_->create(reinterpret_cast<corridor_rail_type_call*>(&out),
                       reinterpret_cast<corridor_rail_type_host*>(this), span(config_json), &self_);
    if (out.status != CORRIDOR_RAIL_OK) self_ = nullptr;
    return out;
}

hook_result plugin_host::validate(const std::string& type, const std::string& currency,
                                  const std::string& json) {
    hook_result out;
    out.status = table_->validate_account(self_, reinterpret_cast<corridor_rail_type_call*>(&out),
                                          span(type), span(currency), span(json));
    return out;
}

hook_result plugin_host::funding(const std::string& currency, int64_t amount_minor, int64_t now_ms,
                                 const std::string& reference) {
    std::string account = "InternalAccount:test";
    corridor_rail_type_funding_request request{
        sizeof(request), 0,      span(environment), span(account), span(currency),
        amount_minor,    now_ms, span(reference)};
    hook_result out;
    out.status = table_->funding_instructions(
        self_, reinterpret_cast<corridor_rail_type_call*>(&out), &request);
    return out;
}

hook_result plugin_host::initiate(const std::string& id, corridor_rail_direction direction,
                                  const std::string& type, const std::string& json,
                                  const std::string& currency, int64_t amount_minor, int64_t now_ms,
                                  const std::string& reference) {
    corridor_rail_type_operation op{sizeof(op), direction,      span(id),       span(environment),
                                    span(type), span(json),     span(currency), amount_minor,
                                    now_ms,     span(reference)};
    hook_result out;
    out.status = table_->initiate(self_, reinterpret_cast<corridor_rail_type_call*>(&out), &op);
    return out;
}

hook_result plugin_host::tick(int64_t now_ms) {
    hook_result out;
    out.status = table_->tick(self_, reinterpret_cast<corridor_rail_type_call*>(&out), now_ms);
    return out;
}

std::vector<recorded_report> plugin_host::reports_of(const std::string& id) const {
    std::vector<recorded_report> out;
    for (const auto& r : reports)
        if (r.operation_id == id) out.push_back(r);
    return out;
}

}  // namespace corridor::plugin_test
