// The ACH rail plugin (ach.so): US_ACCOUNT validation, bank-transfer funding instructions, and
// payouts (credits) and pulls (debits) that complete asynchronously through NACHA files.
//
// initiate() queues an entry for the same-day window it falls in and reports PENDING. At the
// window's deadline tick() writes the window's origination file into outbox_dir (a temporary name,
// then an atomic rename) and reports PENDING again with each entry's trace number; at the window's
// settlement time it reports SETTLED. Return files the bank drops into inbox_dir are read on every
// tick: each returned entry is reported RETURNED with its R code, and the file is moved to
// inbox_dir/processed (or inbox_dir/rejected when it is not a valid return file).
//
// Config (JSON): odfi_routing, company_id (10 characters), outbox_dir, inbox_dir,
// funding_account_number, funding_routing_number; optional company_name, immediate_destination
// (default: odfi_routing), immediate_origin (default: company_id), destination_name, origin_name,
// funding_bank_name, funding_account_category, pull_sec_code ("PPD" or "WEB").
#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "plugins/ach/cutoff_schedule.hpp"
#include "plugins/ach/nacha_writer.hpp"
#include "plugins/ach/return_codes.hpp"
#include "plugins/ach/us_account.hpp"
#include "plugins/common/plugin_json.hpp"
#include "rails/plugin_sdk.hpp"

namespace sdk = corridor::rail_sdk;
namespace fs = std::filesystem;
using namespace corridor::ach;
using corridor::plugin_json::optional_string;
using corridor::plugin_json::required_string;

namespace {

constexpr std::int64_t same_day_limit_cents = 100'000'000;  // $1,000,000 per entry

struct ach_settings {
    std::string odfi_routing;
    std::string company_name = "CORRIDOR";
    std::string company_id;
    std::string immediate_destination;
    std::string immediate_origin;
    std::string destination_name;
    std::string origin_name = "CORRIDOR";
    fs::path outbox_dir;
    fs::path inbox_dir;
    us_account funding;
    std::string funding_bank_name;
    sec_code pull_sec = sec_code::ppd;
};

void require_valid(const corridor::formats::verdict& verdict, const std::string& field) {
    if (!verdict)
        throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                              field + ": " + verdict.error().message);
}

ach_settings read_settings(std::string_view config_json) {
    auto config = corridor::plugin_json::parse_object(config_json, "the ach rail's config");
    const std::string where = "ach config: ";
    ach_settings settings;
    settings.odfi_routing = required_string(config, "odfi_routing", where);
    require_valid(check_routing_number(settings.odfi_routing), where + "odfi_routing");
    settings.company_id = required_string(config, "company_id", where);
    if (settings.company_id.size() != 10)
        throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                              where + "company_id has 10 characters");
    settings.company_name = optional_string(config, "company_name", where).value_or("CORRIDOR");
    settings.immediate_destination =
        optional_string(config, "immediate_destination", where).value_or(settings.odfi_routing);
    settings.immediate_origin =
        optional_string(config, "immediate_origin", where).value_or(settings.company_id);
    settings.destination_name = optional_string(config, "destination_name", where).value_or("");
    settings.origin_name = optional_string(config, "origin_name", where).value_or("CORRIDOR");
    settings.outbox_dir = required_string(config, "outbox_dir", where);
    settings.inbox_dir = required_string(config, "inbox_dir", where);
    std::string funding_routing = required_string(config, "funding_routing_number", where);
    std::string funding_number = required_string(config, "funding_account_number", where);
    std::string funding_category =
        optional_string(config, "funding_account_category", where).value_or("CHECKING");
    auto funding = validate_us_account(funding_routing, funding_number, funding_category);
    if (!funding)
        throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                              where + "funding account: " + funding.error().message);
    settings.funding = funding.value();
    settings.funding_bank_name = optional_string(config, "funding_bank_name", where).value_or("");
    auto pull_sec = optional_string(config, "pull_sec_code", where).value_or("PPD");
    if (pull_sec != "PPD" && pull_sec != "WEB")
        throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                              where + "pull_sec_code is PPD or WEB");
    settings.pull_sec = pull_sec == "WEB" ? sec_code::web : sec_code::ppd;
    // A header that the writer would refuse is a config error, found now rather than at cut-off.
    file_header_fields probe{settings.immediate_destination,
                             settings.immediate_origin,
                             settings.destination_name,
                             settings.origin_name,
                             "",
                             'A',
                             0};
    auto opened = nacha_writer::open(probe, [](std::string_view) {});
    if (!opened)
        throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                              where + "file header: " + opened.error().message);
    return settings;
}

// NACHA names are printable ASCII: other bytes (accents in UTF-8) are dropped.
std::string ascii_name(std::string_view text) {
    std::string out;
    for (char c : text)
        if (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) <= 0x7e)
            out += c;
    return out.empty() ? "CORRIDOR CUSTOMER" : out;
}

struct queued_entry {
    std::string operation_id;
    entry_fields entry;
};

struct open_window {
    ach_window window;
    std::vector<queued_entry> credits;
    std::vector<queued_entry> debits;
    bool written = false;
    std::vector<std::string> written_operations;
};

class ach_rail final : public sdk::rail {
public:
    static constexpr std::string_view name = "ach";
    static constexpr std::string_view version = "1.0.0";
    static constexpr std::array<std::string_view, 1> account_types{"US_ACCOUNT"};
    static constexpr uint32_t tick_interval_ms = 1000;
    // Credits go out in origination files; debits (pulls) too.
    static constexpr uint32_t capabilities = CORRIDOR_RAIL_CAN_PAYOUT | CORRIDOR_RAIL_CAN_PULL;

    ach_rail(const sdk::host& host, std::string_view config_json)
        : host_(host), settings_(read_settings(config_json)) {
        for (const auto& dir : {settings_.outbox_dir, settings_.inbox_dir / "processed",
                                settings_.inbox_dir / "rejected"})
            fs::create_directories(dir);
    }

    sdk::status validate_account(sdk::call& c, std::string_view type, std::string_view currency,
                                 std::string_view json) override {
        if (type != "US_ACCOUNT")
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "the ach rail serves US_ACCOUNT");
        if (!currency.empty() && currency != "USD")
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "the ach rail moves USD only");
        us_account account = read_account(json);
        boost::json::object normalised{
            {"accountType", "US_ACCOUNT"},
            {"accountNumber", account.account_number},
            {"routingNumber", account.routing_number},
            {"accountCategory", account_category_name(account.category)}};
        c.set_result(boost::json::serialize(normalised));
        return CORRIDOR_RAIL_OK;
    }

    sdk::status funding_instructions(sdk::call& c, const sdk::funding_request& request) override {
        if (request.currency != "USD")
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "the ach rail funds USD accounts only");
        boost::json::object info{
            {"accountType", "US_ACCOUNT"},
            {"accountNumber", settings_.funding.account_number},
            {"routingNumber", settings_.funding.routing_number},
            {"accountCategory", account_category_name(settings_.funding.category)},
            {"referenceCode", request.reference}};
        if (!settings_.funding_bank_name.empty()) info["bankName"] = settings_.funding_bank_name;
        c.set_result(corridor::plugin_json::funding_instructions(
            std::move(info), "Send an ACH or wire transfer quoting the reference code.", false));
        return CORRIDOR_RAIL_OK;
    }

    sdk::status initiate(sdk::call& c, const sdk::operation& op) override {
        std::string id(op.operation_id);
        if (known_.count(id)) {  // a retry after a restart or a repeated call: nothing new
            host_.send(
                {CORRIDOR_RAIL_OUTCOME_PENDING, id, CORRIDOR_RAIL_FAILURE_NONE, "", "", "", ""});
            return CORRIDOR_RAIL_OK;
        }
        if (op.account_type != "US_ACCOUNT")
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "the ach rail serves US_ACCOUNT");
        if (op.currency != "USD")
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "the ach rail moves USD only");
        if (op.amount_minor <= 0)
            return c.fail(CORRIDOR_RAIL_INVALID_ARGUMENT, "amount must be positive");
        if (op.amount_minor > same_day_limit_cents)
            return c.fail(CORRIDOR_RAIL_DECLINED,
                          "a same-day ACH entry is at most 1,000,000.00 USD");
        us_account account = read_account(op.account_json);
        auto object = corridor::plugin_json::parse_object(op.account_json, "accountInfo");

        bool payout = op.direction == CORRIDOR_RAIL_PAYOUT;
        queued_entry queued;
        queued.operation_id = id;
        entry_fields& entry = queued.entry;
        entry.direction = payout ? entry_direction::credit : entry_direction::debit;
        entry.category = account.category;
        entry.rdfi_routing = account.routing_number;
        entry.account_number = account.account_number;
        entry.amount_cents = static_cast<std::uint64_t>(op.amount_minor);
        std::string reference = op.reference.empty() ? id : std::string(op.reference);
        entry.individual_id =
            ascii_name(reference.substr(reference.size() > 15 ? reference.size() - 15 : 0));
        entry.individual_name = ascii_name(corridor::plugin_json::beneficiary_name(object));
        if (!payout && settings_.pull_sec == sec_code::web) entry.payment_type = "S";

        ach_window window = window_for(op.now_ms);
        open_window& slot = windows_[window.file_name_stem];
        slot.window = window;
        (payout ? slot.credits : slot.debits).push_back(std::move(queued));
        known_[id] = window.file_name_stem;
        host_.send({CORRIDOR_RAIL_OUTCOME_PENDING, id, CORRIDOR_RAIL_FAILURE_NONE, "", "", "",
                    "queued for ACH window " + window.file_name_stem});
        return CORRIDOR_RAIL_OK;
    }

    sdk::status tick(sdk::call& c, int64_t now_ms) override {
        for (auto it = windows_.begin(); it != windows_.end();) {
            open_window& slot = it->second;
            if (!slot.written && now_ms > slot.window.deadline_unix_ms) write_window(slot);
            if (slot.written && now_ms >= slot.window.settlement_unix_ms) {
                for (const auto& id : slot.written_operations)
                    host_.send({CORRIDOR_RAIL_OUTCOME_SETTLED, id, CORRIDOR_RAIL_FAILURE_NONE, "",
                                "", trace_of_[id], ""});
                it = windows_.erase(it);
                continue;
            }
            ++it;
        }
        read_inbox();
        return CORRIDOR_RAIL_OK;
    }

private:
    static us_account read_account(std::string_view json) {
        auto object = corridor::plugin_json::parse_object(json, "accountInfo");
        // Read in order, so that the first missing field is the one named.
        std::string account_number = required_string(object, "accountNumber", "");
        std::string routing_number = required_string(object, "routingNumber", "");
        std::string category = required_string(object, "accountCategory", "");
        auto account = validate_us_account(routing_number, account_number, category);
        if (!account)
            throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT, account.error().message);
        return account.value();
    }

    batch_fields batch_for(const open_window& slot, bool credits) const {
        batch_fields batch;
        batch.mix = credits ? service_class::credits_only : service_class::debits_only;
        batch.sec = credits ? sec_code::ppd : settings_.pull_sec;
        batch.company_name = settings_.company_name.substr(0, 16);
        batch.company_id = settings_.company_id;
        batch.entry_description = credits ? "PAYOUT" : "TRANSFER";
        // Nacha's suggested same-day marker: SD + the window's deadline, HHMM Eastern.
        static constexpr const char* same_day_markers[] = {"SD1030", "SD1445", "SD1645"};
        batch.descriptive_date = same_day_markers[slot.window.index];
        batch.effective_entry_date = slot.window.effective_entry_date;
        batch.odfi_routing = settings_.odfi_routing;
        return batch;
    }

    // Writes the window's file; entries the writer refuses are reported FAILED one by one.
    void write_window(open_window& slot) {
        slot.written = true;
        // Never overwrite a file already in the outbox (a restart within the same window): take
        // the next free name, and give every file of the day its own file id modifier.
        std::string date = slot.window.file_name_stem.substr(0, 8);
        std::size_t files_today = 0;
        for (const auto& item : fs::directory_iterator(settings_.outbox_dir))
            if (item.path().filename().string().rfind(date, 0) == 0) ++files_today;
        if (files_today >= 36) return fail_all(slot, "36 files today: no file id modifier is left");
        char modifier = files_today < 26 ? static_cast<char>('A' + files_today)
                                         : static_cast<char>('0' + files_today - 26);
        fs::path final_path = settings_.outbox_dir / (slot.window.file_name_stem + ".ach");
        if (fs::exists(final_path))
            final_path = settings_.outbox_dir /
                         (slot.window.file_name_stem + "-" + std::string(1, modifier) + ".ach");
        std::string text;
        file_header_fields header{settings_.immediate_destination,
                                  settings_.immediate_origin,
                                  settings_.destination_name,
                                  settings_.origin_name,
                                  "",
                                  modifier,
                                  slot.window.deadline_unix_ms / 1000};
        auto writer = nacha_writer::open(header, [&text](std::string_view line) { text += line; });
        if (!writer) return fail_all(slot, writer.error().message);
        for (bool credits : {true, false}) {
            auto& entries = credits ? slot.credits : slot.debits;
            if (entries.empty()) continue;
            if (!writer->begin_batch(batch_for(slot, credits)))
                return fail_all(slot, "batch refused");
            for (auto& queued : entries) {
                auto trace = writer->add_entry(queued.entry);
                if (!trace) {
                    host_.send({CORRIDOR_RAIL_OUTCOME_FAILED, queued.operation_id,
                                CORRIDOR_RAIL_FAILURE_RAIL_ERROR, "", "", "",
                                trace.error().message});
                    continue;
                }
                trace_of_[queued.operation_id] = trace.value();
                operation_of_trace_[trace.value()] = queued.operation_id;
                slot.written_operations.push_back(queued.operation_id);
            }
            if (!writer->end_batch()) return fail_all(slot, "batch could not be closed");
        }
        if (slot.written_operations.empty()) return;
        if (!writer->finish()) return fail_all(slot, "file could not be finished");
        fs::path temporary = final_path;
        temporary += ".tmp";
        {
            std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
            out << text;
            if (!out.good()) return fail_all(slot, "the outbox file could not be written");
        }
        fs::rename(temporary, final_path);
        host_.log(CORRIDOR_RAIL_LOG_INFO, "wrote " + final_path.filename().string());
        for (const auto& id : slot.written_operations)
            host_.send({CORRIDOR_RAIL_OUTCOME_PENDING, id, CORRIDOR_RAIL_FAILURE_NONE, "", "",
                        trace_of_[id], "sent in " + final_path.filename().string()});
    }

    void fail_all(open_window& slot, const std::string& message) {
        host_.log(CORRIDOR_RAIL_LOG_ERROR,
                  "ACH window " + slot.window.file_name_stem + ": " + message);
        for (auto* entries : {&slot.credits, &slot.debits})
            for (const auto& queued : *entries)
                host_.send({CORRIDOR_RAIL_OUTCOME_FAILED, queued.operation_id,
                            CORRIDOR_RAIL_FAILURE_RAIL_ERROR, "", "", "", message});
        slot.written_operations.clear();
    }

    static corridor_rail_failure failure_of(const ach_return& item) {
        if (!item.category) return CORRIDOR_RAIL_FAILURE_RAIL_ERROR;
        switch (*item.category) {
            case return_category::insufficient_funds:
                return CORRIDOR_RAIL_FAILURE_INSUFFICIENT_FUNDS;
            case return_category::account_closed_or_invalid:
                return CORRIDOR_RAIL_FAILURE_ACCOUNT_INVALID;
            case return_category::rejected: return CORRIDOR_RAIL_FAILURE_REJECTED;
            case return_category::processing_error: return CORRIDOR_RAIL_FAILURE_RAIL_ERROR;
        }
        return CORRIDOR_RAIL_FAILURE_RAIL_ERROR;
    }

    void read_inbox() {
        std::vector<fs::path> files;
        for (const auto& item : fs::directory_iterator(settings_.inbox_dir))
            if (item.is_regular_file() && item.path().extension() == ".ach")
                files.push_back(item.path());
        std::sort(files.begin(), files.end());
        for (const auto& path : files) {
            std::ifstream in(path, std::ios::binary);
            std::stringstream text;
            text << in.rdbuf();
            auto returns = parse_return_file(text.str());
            fs::path destination =
                settings_.inbox_dir / (returns ? "processed" : "rejected") / path.filename();
            if (!returns) {
                host_.log(CORRIDOR_RAIL_LOG_ERROR, "return file " + path.filename().string() +
                                                       " refused: " + returns.error().message);
            } else {
                for (const auto& item : returns.value()) report_return(item);
            }
            fs::rename(path, destination);
        }
    }

    void report_return(const ach_return& item) {
        auto found = operation_of_trace_.find(item.original_trace);
        if (found == operation_of_trace_.end()) {
            host_.log(CORRIDOR_RAIL_LOG_WARN,
                      "return " + item.return_code + " for unknown trace " + item.original_trace);
            return;
        }
        host_.send({CORRIDOR_RAIL_OUTCOME_RETURNED, found->second, failure_of(item),
                    item.return_code, item.failure_reason, item.original_trace, item.description});
    }

    sdk::host host_;
    ach_settings settings_;
    std::map<std::string, open_window> windows_;   // by file name stem
    std::map<std::string, std::string> known_;     // operation id -> window stem
    std::map<std::string, std::string> trace_of_;  // operation id -> trace number
    std::map<std::string, std::string> operation_of_trace_;
};

}  // namespace

CORRIDOR_RAIL_PLUGIN(ach_rail)
