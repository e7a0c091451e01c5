// The ACH rail plugin (ach.so): US_ACCOUNT validation, bank-transfer funding instructions, and
// payouts (credits) and pulls (debits) that complete asynchronously through NACHA files.
//
// initiate() spools an entry for the same-day window it falls in (on disk, synced, before it
// answers OK) and reports PENDING. At the window's deadline tick() writes the window's origination
// file into outbox_dir and reports PENDING again with each entry's trace number; at the window's
// settlement time it reports SETTLED. Return files the bank drops into inbox_dir are read on every
// tick: each returned entry is reported RETURNED with its R code, and the file is moved to
// inbox_dir/processed (or inbox_dir/rejected when it is not a valid return file).
//
// Nothing lives only in memory (ach_spool.hpp): the spool, which file holds which operation, and
// the outcomes reported survive a crash, so an operation is never lost nor sent in two files. A
// known operation id is a retry: initiate answers with what the rail knows of it (queued, sent with
// its trace, settled, returned or failed) and queues nothing new. Trace numbers carry on from file
// to file, so a return names one operation. Only one process writes a state folder: an instance
// that finds it locked (a `corridor plugins list` beside a running server) moves no money.
//
// Config (JSON): odfi_routing, company_id (10 characters), funding_account_number,
// funding_routing_number, data_dir (the rail's own folder; the host gives one); optional
// outbox_dir (default data_dir/outbox), inbox_dir (default data_dir/inbox), company_name,
// immediate_destination (default: odfi_routing), immediate_origin (default: company_id),
// destination_name, origin_name, funding_bank_name, funding_account_category, pull_sec_code
// ("PPD" or "WEB"). The state is kept in data_dir/state.
#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "plugins/ach/ach_spool.hpp"
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
    fs::path state_dir;
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
    fs::path data_dir = required_string(config, "data_dir", where);
    settings.state_dir = data_dir / "state";
    settings.outbox_dir =
        optional_string(config, "outbox_dir", where).value_or((data_dir / "outbox").string());
    settings.inbox_dir =
        optional_string(config, "inbox_dir", where).value_or((data_dir / "inbox").string());
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

class ach_rail final : public sdk::rail {
public:
    static constexpr std::string_view name = "ach";
    static constexpr std::string_view version = "1.1.0";
    static constexpr std::array<std::string_view, 1> account_types{"US_ACCOUNT"};
    static constexpr uint32_t tick_interval_ms = 1000;
    // Credits go out in origination files; debits (pulls) too.
    static constexpr uint32_t capabilities = CORRIDOR_RAIL_CAN_PAYOUT | CORRIDOR_RAIL_CAN_PULL;

    ach_rail(const sdk::host& host, std::string_view config_json)
        : host_(host), settings_(read_settings(config_json)) {
        for (const auto& dir : {settings_.outbox_dir, settings_.inbox_dir / "processed",
                                settings_.inbox_dir / "rejected"})
            fs::create_directories(dir);
        try {
            spool_ = std::make_unique<ach_spool>(settings_.state_dir, settings_.outbox_dir);
        } catch (const std::exception& error) {
            // A damaged state folder stops the rail (and the server's start) with the reason.
            throw sdk::rail_error(CORRIDOR_RAIL_INTERNAL, std::string("ach: ") + error.what());
        }
        if (!spool_->writable())
            host_.log(CORRIDOR_RAIL_LOG_WARN,
                      "the state folder " + settings_.state_dir.string() +
                          " is in use by another process: this instance moves no money");
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
        if (!spool_->writable()) return read_only(c);
        std::string id(op.operation_id);
        if (answer_retry(id, op.now_ms)) return CORRIDOR_RAIL_OK;
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
        spooled_entry spooled;
        spooled.operation_id = id;
        spooled.queued_at_ms = op.now_ms;
        entry_fields& entry = spooled.entry;
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
        try {
            spool_->add(spooled);  // on disk before OK: a crash after this loses nothing
        } catch (const std::exception& error) {
            host_.log(CORRIDOR_RAIL_LOG_ERROR, error.what());
            return c.fail(CORRIDOR_RAIL_UNAVAILABLE, "the ACH spool cannot be written now");
        }
        host_.send({CORRIDOR_RAIL_OUTCOME_PENDING, id, CORRIDOR_RAIL_FAILURE_NONE, "", "", "",
                    "queued for ACH window " + window_for(op.now_ms).file_name_stem});
        return CORRIDOR_RAIL_OK;
    }

    sdk::status tick(sdk::call& c, int64_t now_ms) override {
        if (!spool_->writable()) return read_only(c);
        spool_->finish_pending();
        if (!ticked_) {
            // The first tick of this instance: files whose settlement passed before it are
            // answered by the host's retries after its restart (answer_retry), not reported again.
            ticked_ = true;
            for (const auto& file : spool_->files())
                if (file.settlement_ms <= now_ms) settled_files_.insert(file.file_name);
        }
        write_due_windows(now_ms);
        report_settlements(now_ms);
        read_inbox();
        return CORRIDOR_RAIL_OK;
    }

private:
    sdk::status read_only(sdk::call& c) const {
        return c.fail(CORRIDOR_RAIL_UNAVAILABLE,
                      "the ACH state folder is in use by another process");
    }

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

    void send_outcome(const final_outcome& o) const {
        host_.send({static_cast<corridor_rail_outcome>(o.outcome), o.operation_id,
                    static_cast<corridor_rail_failure>(o.failure), o.rail_reason_code,
                    o.failure_reason, o.rail_reference, o.message});
    }

    // A known id: report what the rail knows of it, in order, and queue nothing. False when the
    // id is new.
    bool answer_retry(const std::string& id, int64_t now_ms) {
        const final_outcome* outcome = spool_->find_outcome(id);
        auto sent = spool_->find_sent(id);
        if (sent) {
            const auto& [file, trace] = *sent;
            host_.send({CORRIDOR_RAIL_OUTCOME_PENDING, id, CORRIDOR_RAIL_FAILURE_NONE, "", "",
                        trace, "sent in " + file->file_name});
            // A return comes after the settlement it undoes.
            if (now_ms >= file->settlement_ms || outcome != nullptr)
                host_.send({CORRIDOR_RAIL_OUTCOME_SETTLED, id, CORRIDOR_RAIL_FAILURE_NONE, "", "",
                            trace, ""});
        }
        if (outcome != nullptr) {
            send_outcome(*outcome);
            return true;
        }
        if (sent) return true;
        if (spool_->find_spooled(id) == nullptr) return false;
        const spooled_entry& spooled = *spool_->find_spooled(id);
        host_.send({CORRIDOR_RAIL_OUTCOME_PENDING, id, CORRIDOR_RAIL_FAILURE_NONE, "", "", "",
                    "queued for ACH window " + window_for(spooled.queued_at_ms).file_name_stem});
        return true;
    }

    batch_fields batch_for(const ach_window& window, bool credits) const {
        batch_fields batch;
        batch.mix = credits ? service_class::credits_only : service_class::debits_only;
        batch.sec = credits ? sec_code::ppd : settings_.pull_sec;
        batch.company_name = settings_.company_name.substr(0, 16);
        batch.company_id = settings_.company_id;
        batch.entry_description = credits ? "PAYOUT" : "TRANSFER";
        // Nacha's suggested same-day marker: SD + the window's deadline, HHMM Eastern.
        static constexpr const char* same_day_markers[] = {"SD1030", "SD1445", "SD1645"};
        batch.descriptive_date = same_day_markers[window.index];
        batch.effective_entry_date = window.effective_entry_date;
        batch.odfi_routing = settings_.odfi_routing;
        return batch;
    }

    // Every window whose deadline has passed gets its file, oldest window first.
    void write_due_windows(int64_t now_ms) {
        std::map<std::string, std::pair<ach_window, std::vector<spooled_entry>>> due;
        for (const auto& [id, spooled] : spool_->spooled()) {
            ach_window window = window_for(spooled.queued_at_ms);
            if (now_ms <= window.deadline_unix_ms) continue;
            auto& slot = due[window.file_name_stem];
            slot.first = window;
            slot.second.push_back(spooled);
        }
        for (auto& [stem, slot] : due) {
            // Entries in the order they were accepted.
            std::sort(slot.second.begin(), slot.second.end(), [](const auto& a, const auto& b) {
                return std::tie(a.queued_at_ms, a.operation_id) <
                       std::tie(b.queued_at_ms, b.operation_id);
            });
            write_window(slot.first, slot.second);
        }
    }

    // Writes one window's file; entries the writer refuses are failed one by one. Entries of a
    // file that could not be committed stay spooled and are tried again on the next tick.
    void write_window(const ach_window& window, const std::vector<spooled_entry>& entries) {
        // Never overwrite a file already in the outbox (an earlier run in the same window): take
        // the next free name, and give every file of the day its own file id modifier.
        std::size_t files_today = spool_->files_of_day(window.file_name_stem.substr(0, 8));
        if (files_today >= 36)
            return fail_all(window, entries, "36 files today: no file id modifier is left");
        char modifier = files_today < 26 ? static_cast<char>('A' + files_today)
                                         : static_cast<char>('0' + files_today - 26);
        std::string file_name = window.file_name_stem + ".ach";
        if (files_today > 0 || fs::exists(settings_.outbox_dir / file_name))
            file_name = window.file_name_stem + "-" + std::string(1, modifier) + ".ach";
        std::string text;
        file_header_fields header{settings_.immediate_destination,
                                  settings_.immediate_origin,
                                  settings_.destination_name,
                                  settings_.origin_name,
                                  "",
                                  modifier,
                                  window.deadline_unix_ms / 1000};
        auto writer = nacha_writer::open(
            header, [&text](std::string_view line) { text += line; },
            spool_->next_trace_sequence());
        if (!writer) return fail_all(window, entries, writer.error().message);
        sent_file manifest;
        manifest.file_name = file_name;
        manifest.settlement_ms = window.settlement_unix_ms;
        for (bool credits : {true, false}) {
            std::vector<const spooled_entry*> batch;
            for (const auto& spooled : entries)
                if ((spooled.entry.direction == entry_direction::credit) == credits)
                    batch.push_back(&spooled);
            if (batch.empty()) continue;
            if (!writer->begin_batch(batch_for(window, credits)))
                return fail_all(window, entries, "batch refused");
            for (const auto* spooled : batch) {
                auto trace = writer->add_entry(spooled->entry);
                if (!trace) {
                    fail_one(spooled->operation_id, trace.error().message);
                    continue;
                }
                manifest.entries.push_back({spooled->operation_id, trace.value()});
            }
            if (!writer->end_batch()) return fail_all(window, entries, "batch could not be closed");
        }
        if (manifest.entries.empty()) return;
        if (!writer->finish()) return fail_all(window, entries, "file could not be finished");
        try {
            spool_->commit_file(manifest, text, writer->next_sequence());
        } catch (const std::exception& error) {
            host_.log(CORRIDOR_RAIL_LOG_ERROR,
                      "ACH file " + file_name + " not written yet: " + error.what());
            if (!spool_->find_sent(manifest.entries.front().operation_id)) return;
        }
        host_.log(CORRIDOR_RAIL_LOG_INFO, "wrote " + file_name);
        for (const auto& e : manifest.entries)
            host_.send({CORRIDOR_RAIL_OUTCOME_PENDING, e.operation_id, CORRIDOR_RAIL_FAILURE_NONE,
                        "", "", e.trace, "sent in " + file_name});
    }

    // Records (durably) and reports a final outcome; false when it could not be recorded (then it
    // is not reported either, and the entry stays where it was).
    bool settle_outcome(const final_outcome& outcome) {
        try {
            spool_->record_outcome(outcome);
        } catch (const std::exception& error) {
            host_.log(CORRIDOR_RAIL_LOG_ERROR, error.what());
            return false;
        }
        send_outcome(outcome);
        return true;
    }

    void fail_one(const std::string& id, const std::string& message) {
        settle_outcome({id, CORRIDOR_RAIL_OUTCOME_FAILED, CORRIDOR_RAIL_FAILURE_RAIL_ERROR, "", "",
                        "", message});
    }

    void fail_all(const ach_window& window, const std::vector<spooled_entry>& entries,
                  const std::string& message) {
        host_.log(CORRIDOR_RAIL_LOG_ERROR, "ACH window " + window.file_name_stem + ": " + message);
        for (const auto& spooled : entries) fail_one(spooled.operation_id, message);
    }

    // SETTLED, once, for every entry of each file whose settlement time has come.
    void report_settlements(int64_t now_ms) {
        for (const auto& file : spool_->files()) {
            if (file.settlement_ms > now_ms || settled_files_.count(file.file_name)) continue;
            settled_files_.insert(file.file_name);
            for (const auto& e : file.entries)
                host_.send({CORRIDOR_RAIL_OUTCOME_SETTLED, e.operation_id,
                            CORRIDOR_RAIL_FAILURE_NONE, "", "", e.trace, ""});
        }
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
                bool recorded = true;
                for (const auto& item : returns.value()) recorded = report_return(item) && recorded;
                if (!recorded) continue;  // read again on the next tick
            }
            fs::rename(path, destination);
        }
    }

    // Records and reports one return; false when it could not be recorded.
    bool report_return(const ach_return& item) {
        std::string id = spool_->operation_of_trace(item.original_trace);
        if (id.empty()) {
            host_.log(CORRIDOR_RAIL_LOG_WARN,
                      "return " + item.return_code + " for unknown trace " + item.original_trace);
            return true;
        }
        if (const auto* known = spool_->find_outcome(id)) {
            send_outcome(*known);  // a file read again after a crash: the same return
            return true;
        }
        return settle_outcome({id, CORRIDOR_RAIL_OUTCOME_RETURNED, failure_of(item),
                               item.return_code, item.failure_reason, item.original_trace,
                               item.description});
    }

    sdk::host host_;
    ach_settings settings_;
    std::unique_ptr<ach_spool> spool_;
    bool ticked_ = false;
    std::set<std::string> settled_files_;  // files whose entries were reported SETTLED
};

}  // namespace

CORRIDOR_RAIL_PLUGIN(ach_rail)
