#pragma once
// Executing a quote: the checks before it runs and the settlement that moves its money. Shared by
// the files of ledger/payments/ only; the interface is payments.hpp.
#include <string>

#include <soci/soci.h>

#include "ledger/payments/payments.hpp"

namespace corridor {

// Moves a priced quote's money from `funding_account_id` (posted with `funding_code`) and records
// the outcome; see quote_execution.cpp. `outgoing_in_hand` is the quote's OUTGOING transaction when
// the caller wrote it in this same command, otherwise null.
result<transaction_record, payment_failure> settle(soci::session& session,
                                                   const payment_services& services,
                                                   const quote_record& quote,
                                                   const std::string& funding_account_id,
                                                   const std::string& funding_code,
                                                   bool funding_is_internal,
                                                   const transaction_record* outgoing_in_hand);
// Executes a quote as found (or as just created), after the checks of execute_quote.
result<quote_record, payment_failure> execute_found_quote(soci::session& session,
                                                          const payment_services& services,
                                                          const quote_record& quote,
                                                          const transaction_record* outgoing_in_hand);

}  // namespace corridor
