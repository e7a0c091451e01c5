#pragma once
// Payouts of quotes to external accounts and UMA receivers: what leaves the book, how a rail's
// refusal reads, and (in payments.hpp) their completion and refund. Shared by the files of
// ledger/payments/ only.
#include <cstdint>
#include <string>

#include "ledger/payments/payments.hpp"

namespace corridor {

// What a payout leaves the book with: the receiving amount for an external account, the bitcoin
// held for the invoice of an UMA receiver.
struct payout_leg {
    std::string currency;
    std::int64_t amount = 0;
};

// The accountInfo JSON of an UMA receiver's invoice, as a rail checks it.
std::string invoice_account_json(const std::string& invoice);

// A rail that refuses an UMA receiver's invoice refuses what the receiver answered.
payment_failure uma_payout_failure(payment_failure refused);

}  // namespace corridor
