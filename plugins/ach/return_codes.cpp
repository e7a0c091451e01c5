#include "plugins/ach/return_codes.hpp"

#include "plugins/ach/nacha_reader.hpp"
#include "rails/rail_sdk/formats/text.hpp"

namespace corridor::ach {
namespace {

using formats::make_error;
using enum return_category;

constexpr return_reason reasons[] = {
    {"R01", "Insufficient funds", insufficient_funds},
    {"R02", "Account closed", account_closed_or_invalid},
    {"R03", "No account / unable to locate account", account_closed_or_invalid},
    {"R04", "Invalid account number structure", account_closed_or_invalid},
    {"R05", "Unauthorized debit to consumer account using corporate SEC code", rejected},
    {"R06", "Returned per ODFI's request", processing_error},
    {"R07", "Authorization revoked by customer", rejected},
    {"R08", "Payment stopped", rejected},
    {"R09", "Uncollected funds", insufficient_funds},
    {"R10", "Customer advises originator unknown or not authorized", rejected},
    {"R11", "Customer advises entry not in accordance with the authorization", rejected},
    {"R12", "Account sold to another DFI", account_closed_or_invalid},
    {"R13", "Invalid ACH routing number", account_closed_or_invalid},
    {"R14", "Representative payee deceased or unable to continue", account_closed_or_invalid},
    {"R15", "Beneficiary or account holder deceased", account_closed_or_invalid},
    {"R16", "Account frozen / entry returned per OFAC instruction", rejected},
    {"R17", "File record edit criteria / questionable circumstances", processing_error},
    {"R18", "Improper effective entry date", processing_error},
    {"R19", "Amount field error", processing_error},
    {"R20", "Non-transaction account", account_closed_or_invalid},
    {"R21", "Invalid company identification", processing_error},
    {"R22", "Invalid individual ID number", processing_error},
    {"R23", "Credit entry refused by receiver", rejected},
    {"R24", "Duplicate entry", processing_error},
    {"R25", "Addenda error", processing_error},
    {"R26", "Mandatory field error", processing_error},
    {"R27", "Trace number error", processing_error},
    {"R28", "Routing number check digit error", account_closed_or_invalid},
    {"R29", "Corporate customer advises not authorized", rejected},
};

std::string trimmed(std::string_view text) {
    std::size_t end = text.find_last_not_of(' ');
    if (end == std::string_view::npos) return {};
    return std::string(text.substr(0, end + 1));
}

formats::outcome<ach_return> read_return(const nacha_entry& entry) {
    const nacha_addenda* addenda = nullptr;
    for (const auto& candidate : entry.addenda)
        if (candidate.type_code == "99") addenda = &candidate;
    if (!addenda)
        return make_error("missing_return_addenda",
                          "entry " + entry.trace_number + " has no addenda 99");
    std::string_view line = addenda->record;
    ach_return item;
    item.return_code = std::string(line.substr(3, 3));
    item.original_trace = std::string(line.substr(6, 15));
    item.date_of_death = trimmed(line.substr(21, 6));
    item.original_rdfi = std::string(line.substr(27, 8));
    item.addenda_information = trimmed(line.substr(35, 44));
    item.return_trace = entry.trace_number;
    if (item.return_code[0] != 'R' || !formats::all_digits(item.return_code.substr(1)) ||
        !formats::all_digits(item.original_trace))
        return make_error("bad_return_addenda", "entry " + entry.trace_number +
                                                    ": the addenda 99 has no R code or trace");
    item.transaction_code = entry.transaction_code;
    int ones = entry.transaction_code % 10;
    if (ones != 1 && ones != 6)
        return make_error("not_a_return", "entry " + entry.trace_number + " has transaction code " +
                                              std::to_string(entry.transaction_code) +
                                              ", not a return code (21/26/31/36...)");
    item.original_was_credit = ones == 1;
    item.amount_cents = entry.amount_cents;
    if (auto reason = find_return_reason(item.return_code)) {
        item.description = std::string(reason->title);
        item.category = reason->category;
    } else {
        item.description = "unknown return code";
    }
    item.failure_reason = std::string(failure_reason_for_return(item.original_was_credit));
    return item;
}

}  // namespace

std::optional<return_reason> find_return_reason(std::string_view code) {
    for (const auto& reason : reasons)
        if (reason.code == code) return reason;
    return std::nullopt;
}

std::string_view failure_reason_for_return(bool returned_entry_was_credit) {
    return returned_entry_was_credit ? "COUNTERPARTY_POST_TX_FAILED" : "QUOTE_EXECUTION_FAILED";
}

formats::outcome<std::vector<ach_return>> parse_return_file(std::string_view text) {
    auto file = parse_nacha(text);
    if (!file) return file.error();
    if (auto verdict = check_nacha(file.value()); !verdict) return verdict.error();
    std::vector<ach_return> items;
    for (const auto& batch : file->batches) {
        for (const auto& entry : batch.entries) {
            auto item = read_return(entry);
            if (!item) return item.error();
            items.push_back(std::move(item.value()));
        }
    }
    return items;
}

}  // namespace corridor::ach
