#pragma once
// PIX rejection reasons (pacs.002 TxSts=RJCT, StsRsnInf/Rsn/Cd) and what each means for a transfer.
#include <optional>
#include <string_view>

namespace corridor::pix {

enum class rejection_category {
    insufficient_funds,
    account_closed_or_invalid,
    rejected,
    timeout,
    processing_error,
};

struct rejection_reason {
    std::string_view code;  // "AM04"
    std::string_view iso_name;
    std::string_view meaning;
    rejection_category category;
    std::string_view failure_reason;  // the interface's failureReason for an outgoing payment
};

// nullopt for a code the pacs.002 of the SPI does not accept (e.g. AC01 or NARR, SEPA codes).
std::optional<rejection_reason> find_rejection_reason(std::string_view code);

}  // namespace corridor::pix
