#include "rails/conformance.hpp"

#include <boost/json.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ledger/customers/account_details.hpp"
#include "rails/loader.hpp"

namespace corridor {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

// A breach of the contract: the step it happened in and what the plugin did.
struct breach : std::runtime_error {
    breach(std::string step_name, const std::string& what)
        : std::runtime_error(what), step(std::move(step_name)) {}
    std::string step;
};

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

// The kit's sample accountInfo of each interface account type, in the type's currency: valid
// for the host's own checks (ledger/account_details), so what a rail receives is what the API
// would hand it. Several samples for a type: the first the rail accepts is used.
struct account_sample {
    std::string currency;
    std::vector<std::string> fields;  // JSON members without braces, one sample each
    bool beneficiary;
};
const std::map<std::string, account_sample>& account_samples() {
    static const std::map<std::string, account_sample> samples = [] {
        std::map<std::string, account_sample> out;
        account_sample us{"USD",
                          {R"("accountNumber":"123456789","routingNumber":"021000021",)"
                           R"("accountCategory":"CHECKING")"},
                          true};
        account_sample clabe{"MXN", {R"("clabeNumber":"002010077777777771")"}, true};
        account_sample pix{
            "BRL", {R"("pixKeyType":"CPF","pixKey":"29537995593","taxId":"29537995593")"}, true};
        account_sample iban{
            "EUR", {R"("iban":"DE89370400440532013000","swiftBic":"DEUTDEFF")"}, true};
        account_sample upi{"INR", {R"("vpa":"x@ybl")"}, true};
        out["US_ACCOUNT"] = us;
        out["USD_ACCOUNT"] = us;
        out["CLABE"] = clabe;
        out["MXN_ACCOUNT"] = clabe;
        out["PIX"] = pix;
        out["BRL_ACCOUNT"] = pix;
        out["IBAN"] = iban;
        out["EUR_ACCOUNT"] = iban;
        out["UPI"] = upi;
        out["INR_ACCOUNT"] = upi;
        out["GBP_ACCOUNT"] = {"GBP", {R"("sortCode":"60-16-13","accountNumber":"31926819")"}, true};
        out["NGN_ACCOUNT"] = {
            "NGN",
            {R"("accountNumber":"0123456789","bankName":"GTBank","purposeOfPayment":"GIFT")"},
            true};
        out["CAD_ACCOUNT"] = {
            "CAD", {R"("bankCode":"001","branchCode":"00011","accountNumber":"1234567")"}, true};
        out["PHP_ACCOUNT"] = {"PHP", {R"("bankName":"BDO","accountNumber":"001234567890")"}, true};
        out["SGD_ACCOUNT"] = {
            "SGD",
            {R"("bankName":"DBS","swiftCode":"DBSSSGSG","accountNumber":"0721234567")"},
            true};
        out["SPARK_WALLET"] = {
            "BTC",
            {R"("address":"sparkrt1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc8pt5y4")",
             R"("address":"spark1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc489gg2")"},
            false};
        out["LIGHTNING"] = {"BTC", {R"("lightningAddress":"satoshi@example.com")"}, false};
        out["SOLANA_WALLET"] = {
            "USD",
            {R"("address":"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v","assetType":"USDT")"},
            false};
        out["TRON_WALLET"] = {"USD", {R"("address":"TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")"}, false};
        out["POLYGON_WALLET"] = {
            "USD", {R"("address":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")"}, false};
        out["BASE_WALLET"] = {
            "USD", {R"("address":"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")"}, false};
        return out;
    }();
    return samples;
}

constexpr const char* sample_beneficiary =
    R"({"beneficiaryType":"INDIVIDUAL","fullName":"Ana Souza","birthDate":"1990-04-01","nationality":"BR"})";
constexpr std::int64_t start_ms = 1760313600000;  // 2025-10-13, the host clock's first reading

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
    static void set_result(corridor_rail_type_call* call, corridor_rail_type_span data) {
        if (call == nullptr) return;
        reinterpret_cast<call_slot*>(call)->result = text_of(data);
    }
    static void set_error(corridor_rail_type_call* call, corridor_rail_type_span message) {
        if (call == nullptr) return;
        auto* slot = reinterpret_cast<call_slot*>(call);
        slot->message = text_of(message);
        slot->error_set = true;
    }
    static int32_t report(corridor_rail_type_host* host, const corridor_rail_type_report* r) {
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
        kit->reports_.push_back({text_of(r->operation_id), r->outcome, text_of(r->rail_reference),
                                 text_of(r->message)});
        return CORRIDOR_RAIL_OK;
    }
    static void log(corridor_rail_type_host*, int32_t level, corridor_rail_type_span message) {
        kit_host* kit = current;
        if (kit == nullptr) return;
        std::lock_guard lock(kit->mutex_);
        if (level == CORRIDOR_RAIL_LOG_ERROR) kit->last_logged_error_ = text_of(message);
        kit->inside_hook_locked("log");
    }
    static int32_t report_incoming(corridor_rail_type_host*,
                                   const corridor_rail_type_incoming* in) {
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

    kit_host(const conformance_options& options, std::ostream& out) : options_(options), out_(out) {
        current = this;
    }
    ~kit_host() { current = nullptr; }

    corridor_rail_type_host* self_host() {
        return reinterpret_cast<corridor_rail_type_host*>(this);
    }

    // Runs one hook on a thread of its own, as the host's payment engine does, and checks its
    // time, its status and the callbacks it made. Returns the status and fills slot.
    template <class Hook>
    int32_t run(const std::string& step, const std::string& hook, call_slot& slot, Hook&& body) {
        struct shared_state {
            std::mutex mutex;
            std::condition_variable done_signal;
            bool done = false;
            bool threw = false;
            int32_t code = CORRIDOR_RAIL_INTERNAL;
        };
        auto state = std::make_shared<shared_state>();
        {
            std::lock_guard lock(mutex_);
            hook_ = hook;
            reports_.clear();
            last_logged_error_.clear();
        }
        auto started = std::chrono::steady_clock::now();
        std::thread worker([this, state, &body] {
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
            std::lock_guard lock(state->mutex);
            state->code = code;
            state->threw = threw;
            state->done = true;
            state->done_signal.notify_all();
        });
        {
            std::unique_lock lock(state->mutex);
            if (!state->done_signal.wait_for(lock,
                                             std::chrono::milliseconds(options_.hook_hang_limit_ms),
                                             [&] { return state->done; })) {
                // A hook that never returns cannot be recovered from: say so and leave.
                out_ << "BREACH " << step << ": " << hook << " did not return within "
                     << options_.hook_hang_limit_ms
                     << " ms (hooks must not block: no I/O waits, no sleeping, no locks held "
                        "elsewhere)"
                     << std::endl;
                std::_Exit(1);
            }
        }
        worker.join();
        auto elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now() - started)
                              .count();
        if (state->threw) {
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
        int32_t code = state->code;
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

    std::vector<seen_report> take_reports() {
        std::lock_guard lock(mutex_);
        return std::move(reports_);
    }
    std::string logged_error() {
        std::lock_guard lock(mutex_);
        return last_logged_error_;
    }

private:
    // A callback is legal only on the thread of the running hook (rail_abi.h THREADING).
    bool inside_hook_locked(const char* callback) {
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

kit_host* kit_host::current = nullptr;

// The state of one operation as the reports told it, per plugin instance.
struct operation_track {
    corridor_rail_direction direction = CORRIDOR_RAIL_PAYOUT;
    int32_t final_outcome = 0;  // 0 until SETTLED, FAILED or RETURNED
    bool returned_after_settled = false;
    std::string reference;  // the last non-empty rail_reference
};

class conformance_run {
public:
    conformance_run(const conformance_options& options, std::ostream& out)
        : options_(options), out_(out), host_(options, out) {}

    ~conformance_run() {
        // The temporary data_dir the kit made goes with it (a --data-dir stays for inspection).
        std::error_code ignored;
        if (!temporary_root_.empty()) fs::remove_all(temporary_root_, ignored);
    }

    int run() {
        try {
            load();
            make_settings();
            create_instance("create");
            destroy_instance("destroy");
            create_instance("create again");
            validate_accounts();
            funding();
            ticks();
            if (can(CORRIDOR_RAIL_CAN_PAYOUT)) move_money(CORRIDOR_RAIL_PAYOUT);
            if (can(CORRIDOR_RAIL_CAN_PULL)) move_money(CORRIDOR_RAIL_PULL);
            destroy_instance("destroy at the end");
        } catch (const breach& b) {
            out_ << "BREACH " << b.step << ": " << b.what() << std::endl;
            return 1;
        }
        out_ << "PASS: " << options_.file << " kept the rail contract (" << steps_ << " steps)"
             << std::endl;
        return 0;
    }

private:
    void ok(const std::string& step, const std::string& detail) {
        ++steps_;
        out_ << "ok   " << step << (detail.empty() ? "" : ": " + detail) << std::endl;
    }
    void note(const std::string& step, const std::string& detail) {
        out_ << "note " << step << ": " << detail << std::endl;
    }

    bool can(uint32_t flag) const {
        if (table_->magic.table_size < CORRIDOR_RAIL_PLUGIN_SIZE_V1_1)
            return flag == CORRIDOR_RAIL_CAN_PAYOUT || flag == CORRIDOR_RAIL_CAN_PULL;
        return (table_->capabilities & flag) != 0;
    }
    bool serves_sandbox() const {
        return text_of(table_->name) == "sandbox" ||
               (table_->magic.abi_minor >= 2 && can(CORRIDOR_RAIL_SERVES_SANDBOX));
    }

    void load() {
        try {
            table_ = open_rail_plugin(options_.file, "", kit_host::api());
        } catch (const rail_load_error& error) {
            throw breach("load", error.what());
        }
        std::string types;
        for (uint32_t i = 0; i < table_->account_type_count; ++i) {
            types += (types.empty() ? "" : ",") + text_of(table_->account_types[i]);
            account_types_.push_back(text_of(table_->account_types[i]));
        }
        std::string capabilities;
        auto add = [&](const char* word) {
            capabilities += (capabilities.empty() ? "" : ",") + std::string(word);
        };
        if (can(CORRIDOR_RAIL_CAN_PAYOUT)) add("PAYOUT");
        if (can(CORRIDOR_RAIL_CAN_PULL)) add("PULL");
        if (serves_sandbox()) add("SANDBOX");
        ok("load", text_of(table_->name) + " " + text_of(table_->version) + ", rail ABI " +
                       std::to_string(table_->magic.abi_major) + "." +
                       std::to_string(table_->magic.abi_minor) + ", account types " + types +
                       ", can " + capabilities + ", tick every " +
                       std::to_string(table_->tick_interval_ms) + " ms");
    }

    void make_settings() {
        json::object settings;
        if (!options_.settings_json.empty()) {
            boost::system::error_code error;
            json::value parsed = json::parse(options_.settings_json, error);
            if (error || !parsed.is_object())
                throw std::runtime_error("--settings must be a JSON object");
            settings = parsed.as_object();
        }
        if (!settings.contains("data_dir")) {
            std::string dir = options_.data_dir;
            if (dir.empty()) {
                std::string pattern =
                    (fs::temp_directory_path() / "corridor-plugins-check-XXXXXX").string();
                if (::mkdtemp(pattern.data()) == nullptr)
                    throw std::runtime_error("cannot make a temporary data_dir");
                temporary_root_ = pattern;
                dir = (fs::path(pattern) / "data").string();
            }
            settings["data_dir"] = dir;
        }
        settings_ = json::serialize(settings);
        make_rail_data_dir(options_.file, settings_);
        ok("settings", settings_ + " (data_dir made by the host before create, mode 0700)");
    }

    void create_instance(const std::string& step) {
        call_slot slot;
        corridor_rail_type_self* made = nullptr;
        int32_t code = host_.run(step, "create", slot, [&] {
            return table_->create(reinterpret_cast<corridor_rail_type_call*>(&slot),
                                  host_.self_host(), span_of(settings_), &made);
        });
        if (code != CORRIDOR_RAIL_OK) {
            std::string logged = host_.logged_error();
            throw breach(step, std::string("create returned ") + status_name(code) + ": " +
                                   slot.message +
                                   (logged.empty() ? "" : " (the plugin logged: " + logged + ")"));
        }
        if (made == nullptr) throw breach(step, "create returned OK without an instance");
        self_ = made;
        tracks_.clear();
        ok(step, "instance made with the settings");
    }

    void destroy_instance(const std::string& step) {
        call_slot slot;
        host_.run(step, "destroy", slot, [&] {
            table_->destroy(self_);
            return int32_t{CORRIDOR_RAIL_OK};
        });
        self_ = nullptr;
        ok(step, "instance released");
    }

    int32_t validate(const std::string& step, const std::string& type, const std::string& currency,
                     const std::string& details, call_slot& slot) {
        return host_.run(step, "validate_account", slot, [&] {
            return table_->validate_account(self_,
                                            reinterpret_cast<corridor_rail_type_call*>(&slot),
                                            span_of(type), span_of(currency), span_of(details));
        });
    }

    std::string internal_detail(const call_slot& slot) {
        std::string logged = host_.logged_error();
        return slot.message + (logged.empty() ? "" : " (the plugin logged: " + logged + ")");
    }

    // Valid and invalid details for every declared type; the first accepted one pays and pulls.
    void validate_accounts() {
        if (!options_.account_json.empty()) {
            boost::system::error_code error;
            json::value given = json::parse(options_.account_json, error);
            const json::value* type = error || !given.is_object()
                                          ? nullptr
                                          : given.as_object().if_contains("accountType");
            if (type == nullptr || !type->is_string())
                throw std::runtime_error("--account must be a JSON accountInfo with accountType");
            std::string currency = "USD";
            auto sample = account_samples().find(std::string(type->as_string()));
            if (sample != account_samples().end()) currency = sample->second.currency;
            std::string step = "validate_account --account";
            call_slot slot;
            int32_t code = validate(step, std::string(type->as_string()), currency,
                                    options_.account_json, slot);
            if (code != CORRIDOR_RAIL_OK) {
                throw breach(step, std::string("the account given with --account was refused (") +
                                       status_name(code) + "): " + internal_detail(slot));
            }
            account_ = {std::string(type->as_string()), currency, options_.account_json};
            ok(step, "accepted");
        }
        for (const auto& type : account_types_) check_type(type);
        if ((can(CORRIDOR_RAIL_CAN_PAYOUT) || can(CORRIDOR_RAIL_CAN_PULL)) && !account_) {
            throw breach("validate_account",
                         "the rail accepted none of the kit's sample accounts, so no payout or "
                         "pull can be driven; give one it accepts with --account JSON");
        }
    }

    void check_type(const std::string& type) {
        auto sample = account_samples().find(type);
        if (sample == account_samples().end()) return;  // the loader refused unknown types
        const account_sample& s = sample->second;
        bool accepted = false;
        for (const auto& fields : s.fields) {
            std::string input =
                "{\"accountType\":\"" + type + "\"," + fields +
                (s.beneficiary ? std::string(",\"beneficiary\":") + sample_beneficiary : "") + "}";
            auto checked = validate_account_details(json::parse(input), s.currency, start_ms);
            if (!checked.ok()) {
                note("validate_account " + type,
                     "the kit's own sample is invalid: " + checked.error().message);
                continue;
            }
            std::string details = json::serialize(checked.value().account_info);
            std::string step = "validate_account " + type + " (valid details)";
            call_slot slot;
            int32_t code = validate(step, type, s.currency, details, slot);
            if (code == CORRIDOR_RAIL_OK) {
                ok(step, details);
                if (!account_) account_ = {type, s.currency, details};
                accepted = true;
                break;
            }
            if (code == CORRIDOR_RAIL_INVALID_ARGUMENT) {
                // A rail may take narrower details than the interface (one network, one key type).
                note(step, "refused the kit's sample: " + slot.message);
                continue;
            }
            throw breach(step, std::string("validate_account returned ") + status_name(code) +
                                   " for " + type + " in " + s.currency +
                                   ", a type the rail declares: " + internal_detail(slot));
        }
        std::string step = "validate_account " + type + " (invalid details)";
        call_slot slot;
        std::string invalid = "{\"accountType\":\"" + type + "\"}";
        int32_t code = validate(step, type, s.currency, invalid, slot);
        if (code != CORRIDOR_RAIL_INVALID_ARGUMENT) {
            throw breach(step, std::string("validate_account returned ") + status_name(code) +
                                   " for " + invalid +
                                   ", which has no identifier; expected INVALID_ARGUMENT naming "
                                   "the field" +
                                   (code == CORRIDOR_RAIL_OK ? "" : ": " + internal_detail(slot)));
        }
        ok(step, "INVALID_ARGUMENT: " + slot.message);
        (void)accepted;
    }

    std::string environment() const { return serves_sandbox() ? "sandbox" : "production"; }

    void funding() {
        std::set<std::string> currencies;
        for (const auto& type : account_types_) {
            auto sample = account_samples().find(type);
            if (sample != account_samples().end()) currencies.insert(sample->second.currency);
        }
        for (const auto& currency : currencies) {
            std::string step = "funding_instructions " + currency;
            std::string env = environment(), account = "InternalAccount:conformance",
                        reference = "CHECKREF01";
            corridor_rail_type_funding_request request{};
            request.struct_size = sizeof(request);
            request.environment = span_of(env);
            request.account_id = span_of(account);
            request.currency = span_of(currency);
            request.amount_minor = 0;
            request.now_ms = now_ms_;
            request.reference = span_of(reference);
            call_slot slot;
            int32_t code = host_.run(step, "funding_instructions", slot, [&] {
                return table_->funding_instructions(
                    self_, reinterpret_cast<corridor_rail_type_call*>(&slot), &request);
            });
            if (code == CORRIDOR_RAIL_INTERNAL)
                throw breach(step,
                             "funding_instructions returned INTERNAL: " + internal_detail(slot));
            if (code != CORRIDOR_RAIL_OK) {
                ok(step, std::string(status_name(code)) + ": " + slot.message);
                continue;
            }
            boost::system::error_code error;
            json::value parsed = json::parse(slot.result, error);
            if (error || !parsed.is_array()) {
                throw breach(step, "funding_instructions answered OK with " + slot.result +
                                       ", not a JSON array of payment instructions");
            }
            ok(step, std::to_string(parsed.as_array().size()) + " instruction(s)");
        }
    }

    // Calls tick once at now_ms_ (when the rail asks for ticks) and checks its reports.
    void tick_once(const std::string& step) {
        if (table_->tick_interval_ms == 0 || table_->tick == nullptr) return;
        call_slot slot;
        int32_t code = host_.run(step, "tick", slot, [&] {
            return table_->tick(self_, reinterpret_cast<corridor_rail_type_call*>(&slot), now_ms_);
        });
        if (code == CORRIDOR_RAIL_INTERNAL)
            throw breach(step, "tick returned INTERNAL: " + internal_detail(slot));
        apply_reports(step);
    }

    void ticks() {
        if (table_->tick_interval_ms == 0) {
            ok("tick", "the rail asks for no ticks");
            return;
        }
        for (int i = 0; i < 3; ++i) {
            now_ms_ += table_->tick_interval_ms;
            tick_once("tick");
        }
        ok("tick", "3 ticks on the host clock, nothing reported unasked");
    }

    // Checks the reports of the hook that just ran against the outcome transitions of rail_abi.h.
    void apply_reports(const std::string& step) {
        for (const auto& r : host_.take_reports()) {
            if (!known_ids_.count(r.operation_id)) {
                throw breach(step, "reported operation \"" + r.operation_id +
                                       "\", which the host never initiated");
            }
            if (r.outcome < CORRIDOR_RAIL_OUTCOME_PENDING ||
                r.outcome > CORRIDOR_RAIL_OUTCOME_RETURNED) {
                throw breach(step, "reported outcome " + std::to_string(r.outcome) + " for " +
                                       r.operation_id + ", not a corridor_rail_outcome");
            }
            operation_track& track = tracks_[r.operation_id];
            if (track.final_outcome != 0) {
                bool return_after_settle = track.final_outcome == CORRIDOR_RAIL_OUTCOME_SETTLED &&
                                           r.outcome == CORRIDOR_RAIL_OUTCOME_RETURNED &&
                                           !track.returned_after_settled;
                if (!return_after_settle) {
                    throw breach(step, std::string("reported ") + outcome_name(r.outcome) +
                                           " for " + r.operation_id + " after its final " +
                                           outcome_name(track.final_outcome) +
                                           ": an outcome is reported once (then only RETURNED "
                                           "after SETTLED)");
                }
                track.returned_after_settled = true;
            }
            if (r.outcome != CORRIDOR_RAIL_OUTCOME_PENDING) track.final_outcome = r.outcome;
            if (!r.rail_reference.empty()) track.reference = r.rail_reference;
        }
    }

    corridor_rail_type_operation operation_of(corridor_rail_direction direction,
                                              const std::string& id) {
        held_.id = id;
        held_.env = environment();
        held_.reference = "conformance check";
        corridor_rail_type_operation op{};
        op.struct_size = sizeof(op);
        op.direction = direction;
        op.operation_id = span_of(held_.id);
        op.environment = span_of(held_.env);
        op.account_type = span_of(account_->type);
        op.account_json = span_of(account_->details);
        op.currency = span_of(account_->currency);
        op.amount_minor = 1000;
        op.now_ms = now_ms_;
        op.reference = span_of(held_.reference);
        return op;
    }

    int32_t initiate(const std::string& step, corridor_rail_direction direction,
                     const std::string& id, call_slot& slot) {
        known_ids_.insert(id);
        tracks_[id].direction = direction;
        auto op = operation_of(direction, id);
        int32_t code = host_.run(step, "initiate", slot, [&] {
            return table_->initiate(self_, reinterpret_cast<corridor_rail_type_call*>(&slot), &op);
        });
        if (code == CORRIDOR_RAIL_INTERNAL)
            throw breach(step, "initiate returned INTERNAL: " + internal_detail(slot));
        if (code != CORRIDOR_RAIL_OK && !host_.take_reports().empty()) {
            throw breach(step, std::string("initiate returned ") + status_name(code) +
                                   " and reported an outcome: a refused operation gets no report");
        }
        if (code == CORRIDOR_RAIL_OK) apply_reports(step);
        return code;
    }

    // Ticks on the host clock until the operation has a final outcome or three days passed
    // (the host's default settlement deadline): first at the rail's own interval, then in
    // ten-minute steps.
    // Then a few more ticks: a final outcome is reported once, not again on later ticks.
    void drive_until_final(const std::string& step, const std::string& id) {
        if (table_->tick_interval_ms == 0) return;
        std::int64_t deadline = now_ms_ + 3LL * 86400000;
        for (int i = 0; now_ms_ < deadline && tracks_[id].final_outcome == 0; ++i) {
            now_ms_ += i < 50 ? std::int64_t{table_->tick_interval_ms} : 600000;
            tick_once(step);
        }
        for (int i = 0; i < 3; ++i) {
            now_ms_ += table_->tick_interval_ms;
            tick_once(step);
        }
    }

    std::string describe(const operation_track& t) const {
        return (t.final_outcome ? outcome_name(t.final_outcome) : "no final outcome") +
               std::string(t.reference.empty() ? "" : " (rail reference " + t.reference + ")");
    }

    void move_money(corridor_rail_direction direction) {
        bool payout = direction == CORRIDOR_RAIL_PAYOUT;
        std::string what = payout ? "payout" : "pull";
        std::string id = std::string("RailOperation:0000-conformance-") + what;
        std::string step = "initiate " + what;
        call_slot slot;
        int32_t code = initiate(step, direction, id, slot);
        if (code == CORRIDOR_RAIL_UNSUPPORTED) {
            throw breach(step, std::string("initiate answered UNSUPPORTED for a ") + what +
                                   ", which the rail's capabilities declare: " + slot.message);
        }
        if (code != CORRIDOR_RAIL_OK) {
            if (payout) {
                throw breach(step, std::string("initiate refused the payout (") +
                                       status_name(code) + "): " + slot.message +
                                       "; give an account it pays with --account");
            }
            note(step, std::string("refused (") + status_name(code) + "): " + slot.message);
            return;
        }
        ok(step,
           "accepted " + account_->type + " " + account_->currency + " 10.00 in " + environment());
        drive_until_final("ticks after the " + what, id);
        operation_track first = tracks_[id];
        if (first.final_outcome == 0) {
            note("ticks after the " + what, "no final outcome within three days of host time");
        } else {
            ok("ticks after the " + what, "reported " + describe(first) + ", once");
        }

        // A restart: the instance goes, a new one is made on the same data_dir, and the host
        // initiates the operation again (rail_abi.h initiate).
        destroy_instance("restart: destroy");
        create_instance("restart: create");
        std::string again = "initiate the " + what + " again after the restart";
        call_slot retry;
        code = initiate(again, direction, id, retry);
        if (code != CORRIDOR_RAIL_OK) {
            throw breach(again, std::string("initiate returned ") + status_name(code) + ": " +
                                    retry.message +
                                    "; after a restart a known operation id is a retry and must "
                                    "be answered with what the rail knows of it");
        }
        if (first.final_outcome != 0) drive_until_final(again, id);
        const operation_track& second = tracks_[id];
        if (!first.reference.empty() && !second.reference.empty() &&
            first.reference != second.reference) {
            throw breach(again,
                         "the operation was paid twice: before the restart it was " +
                             describe(first) + ", initiated again it became " + describe(second) +
                             " (treat a known operation id as a retry, never a new payment)");
        }
        if (first.final_outcome != 0 && second.final_outcome != first.final_outcome) {
            throw breach(again, "the outcome changed across the restart: " + describe(first) +
                                    " before, " + describe(second) + " after");
        }
        ok(again, "the same operation: " + describe(second));
    }

    struct chosen_account {
        std::string type, currency, details;
    };
    struct held_strings {
        std::string id, env, reference;
    };

    const conformance_options& options_;
    std::ostream& out_;
    kit_host host_;
    const corridor_rail_plugin* table_ = nullptr;
    corridor_rail_type_self* self_ = nullptr;
    std::string settings_;
    std::string temporary_root_;
    std::vector<std::string> account_types_;
    std::optional<chosen_account> account_;
    std::map<std::string, operation_track> tracks_;
    std::set<std::string> known_ids_;
    held_strings held_;
    std::int64_t now_ms_ = start_ms;
    int steps_ = 0;
};

}  // namespace

int run_conformance_check(const conformance_options& options, std::ostream& out) {
    conformance_run run(options, out);
    return run.run();
}

}  // namespace corridor
