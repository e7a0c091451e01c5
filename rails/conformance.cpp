#include "rails/conformance.hpp"

#include <boost/json.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

#include "ledger/customers/account_details.hpp"
#include "rails/conformance_host.hpp"
#include "rails/conformance_samples.hpp"
#include "rails/loader.hpp"

namespace corridor {
namespace {

using namespace conformance_kit;
namespace json = boost::json;
namespace fs = std::filesystem;

constexpr std::int64_t start_ms = 1760313600000;  // 2025-10-13, the host clock's first reading

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
