#pragma once
// ACH returns: the R01..R29 reason codes, what each means for a transfer, and a reader that turns a
// return file (a NACHA file whose entries carry addenda 99) into one item per returned entry.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rails/rail_sdk/formats/result.hpp"

namespace corridor::ach {

// The sandbox failure classes (002/003/004) plus errors of the file itself.
enum class return_category {
    insufficient_funds,
    account_closed_or_invalid,
    rejected,
    processing_error
};

struct return_reason {
    std::string_view code;  // "R01"
    std::string_view title;
    return_category category;
};

// R01..R29; nullopt for any other code.
std::optional<return_reason> find_return_reason(std::string_view code);

// The interface's failureReason for a returned entry. A returned payout (our credit) failed at the
// receiving bank after we sent it: COUNTERPARTY_POST_TX_FAILED. A returned pull (our debit, which
// funded a payment) leaves the payment unfunded: QUOTE_EXECUTION_FAILED.
std::string_view failure_reason_for_return(bool returned_entry_was_credit);

struct ach_return {
    std::string original_trace;  // the trace number of our entry
    std::string return_code;     // "R01"
    std::string description;     // the code's title, or "unknown return code" if not R01..R29
    std::optional<return_category> category;
    std::string return_trace;  // the return entry's own trace number
    int transaction_code = 0;  // 21/26/31/36 for returns of 22/27/32/37
    bool original_was_credit = false;
    std::uint64_t amount_cents = 0;
    std::string original_rdfi;  // 8 digits
    std::string date_of_death;  // YYMMDD for R14/R15, else empty
    std::string addenda_information;
    std::string failure_reason;
};

// Parses and strictly checks the file (parse_nacha + check_nacha), then reads each entry's addenda
// 99. An entry without an addenda 99, or a malformed one, fails the whole file: a return that is
// silently dropped would leave a payment wrongly completed.
formats::outcome<std::vector<ach_return>> parse_return_file(std::string_view text);

}  // namespace corridor::ach
