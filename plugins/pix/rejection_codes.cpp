#include "plugins/pix/rejection_codes.hpp"

namespace corridor::pix {
namespace {

using enum rejection_category;

// Timeouts map to TIMEOUT; the payer side lacking funds to QUOTE_EXECUTION_FAILED (the payment
// could not be executed); everything raised by the receiving side to COUNTERPARTY_POST_TX_FAILED.
constexpr rejection_reason reasons[] = {
    {"AB03", "AbortedSettlementTimeout", "settlement aborted by SPI timeout", timeout, "TIMEOUT"},
    {"AB09", "ErrorCreditorAgent", "error at the receiving participant", processing_error,
     "COUNTERPARTY_POST_TX_FAILED"},
    {"AB11", "TimeoutDebtorAgent", "timeout at the paying participant", timeout, "TIMEOUT"},
    {"AC03", "InvalidCreditorAccountNumber", "receiver account does not exist or is invalid",
     account_closed_or_invalid, "COUNTERPARTY_POST_TX_FAILED"},
    {"AC06", "BlockedAccount", "receiver account blocked", rejected, "COUNTERPARTY_POST_TX_FAILED"},
    {"AC07", "ClosedCreditorAccountNumber", "receiver account closed", account_closed_or_invalid,
     "COUNTERPARTY_POST_TX_FAILED"},
    {"AC14", "InvalidCreditorAccountType", "wrong account type", account_closed_or_invalid,
     "COUNTERPARTY_POST_TX_FAILED"},
    {"AG03", "TransactionNotSupported", "transaction type not allowed for this account", rejected,
     "COUNTERPARTY_POST_TX_FAILED"},
    {"AM01", "ZeroAmount", "zero amount", processing_error, "QUOTE_EXECUTION_FAILED"},
    {"AM02", "NotAllowedAmount", "amount above the limit for the account", rejected,
     "COUNTERPARTY_POST_TX_FAILED"},
    {"AM04", "InsufficientFunds", "insufficient balance in the payer PSP's settlement account",
     insufficient_funds, "QUOTE_EXECUTION_FAILED"},
    {"AM09", "WrongAmount", "amount not expected", rejected, "COUNTERPARTY_POST_TX_FAILED"},
    {"BE01", "InconsistenWithEndCustomer", "receiver tax id does not match the account", rejected,
     "COUNTERPARTY_POST_TX_FAILED"},
    {"CH11", "CreditorIdentifierIncorrect", "wrong receiver tax id", rejected,
     "COUNTERPARTY_POST_TX_FAILED"},
    {"DS04", "OrderRejected", "order rejected by the receiving participant", rejected,
     "COUNTERPARTY_POST_TX_FAILED"},
    {"ED05", "SettlementFailed", "settlement failed", processing_error,
     "COUNTERPARTY_POST_TX_FAILED"},
    {"FF08", "InvalidEndToEndId", "malformed end-to-end id", processing_error,
     "QUOTE_EXECUTION_FAILED"},
    {"RR04", "RegulatoryReason", "sanction or regulatory rejection", rejected,
     "COUNTERPARTY_POST_TX_FAILED"},
    {"FRAD", "FraudulentOrigin", "suspected fraud", rejected, "COUNTERPARTY_POST_TX_FAILED"},
};

}  // namespace

std::optional<rejection_reason> find_rejection_reason(std::string_view code) {
    for (const auto& reason : reasons)
        if (reason.code == code) return reason;
    return std::nullopt;
}

}  // namespace corridor::pix
