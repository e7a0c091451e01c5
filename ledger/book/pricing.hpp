#pragma once
// The pricing formula (also written in the README):
//   mid   = receiving major units per sending major unit (rate source)
//   m     = (10000 - spread_bps) / 10000                     serviceApiMultiplier
//   E     = mid * m * 10^(receiving decimals - sending decimals)   receiving minor per sending minor
//   F     = serviceApiFixedFee + counterpartyFixedFee        sending minor units
//   v     = variable_fee_bps / 10000                         serviceApiVariableFeeRate
//   net n = the sending amount that is converted; fees = totalSending - n
//   SENDING locked S:   n = the largest n with n + F + ceil(n*v) <= S;  receive = floor(n*E)
//   RECEIVING locked R: n = ceil(R / E);  S = n + F + ceil(n*v)
//   exchangeRate = 1 / (mid * m)   (sending major units per receiving major unit, fees excluded)
// Rounding always favours the service and by less than one minor unit per step: the receiving
// amount rounds down, the variable fee up, and any remainder of a locked sending amount that no
// whole net unit could use becomes part of the fee. totalSending = n + fees exactly.
#include <cstdint>

#include "ledger/book/currencies.hpp"
#include "ledger/book/money.hpp"
#include "ledger/book/rates.hpp"
#include "ledger/base/result.hpp"

namespace corridor {

enum class locked_side { sending, receiving };

struct price {
    std::int64_t total_sending = 0;    // sending minor units the source pays
    std::int64_t net_sending = 0;      // of which converted
    std::int64_t fees_included = 0;    // of which fees (sending minor units)
    std::int64_t total_receiving = 0;  // receiving minor units delivered
    rational exchange_rate;            // sending major per receiving major
    rational counterparty_multiplier;  // mid rate
    rational service_multiplier;       // m
    rational variable_fee_rate;        // v
    std::int64_t counterparty_fixed_fee = 0;
    std::int64_t service_fixed_fee = 0;
    std::int64_t variable_fee_amount = 0;  // fees - F (includes the rounding remainder)
};

enum class pricing_error { amount_too_small, amount_too_large };

result<price, pricing_error> price_transfer(const currency& sending, const currency& receiving,
                                            const corridor_terms& terms, locked_side side,
                                            std::int64_t locked_amount);

}  // namespace corridor
