#include "ledger/payments/uma_pricing.hpp"

#include "ledger/base/assert.hpp"

namespace corridor {

std::int64_t payout_sats_for(std::int64_t amount_msats) {
    CORRIDOR_ASSERT(amount_msats > 0);
    return amount_msats / 1000 + (amount_msats % 1000 != 0 ? 1 : 0);
}

result<std::int64_t, pricing_error> uma_sats_budget(const currency& sending, const currency& btc,
                                                    const corridor_terms& terms,
                                                    std::int64_t locked_sending) {
    auto priced = price_transfer(sending, btc, terms, locked_side::sending, locked_sending);
    if (!priced) return priced.error();
    return priced->total_receiving;
}

result<price, pricing_error> price_uma_payment(const currency& sending, const currency& btc,
                                               const currency& receiving,
                                               const corridor_terms& terms, locked_side side,
                                               std::int64_t locked_amount, std::int64_t payout_sats,
                                               std::int64_t receiving_amount) {
    CORRIDOR_ASSERT(payout_sats > 0 && receiving_amount > 0 && locked_amount > 0);
    auto priced = price_transfer(sending, btc, terms, locked_side::receiving, payout_sats);
    if (!priced) return priced.error();
    price out = priced.value();
    if (side == locked_side::sending && out.total_sending < locked_amount) {
        // The bitcoin was bought with the locked amount: what the invoice left over is the
        // service's, as the remainder of any sender-locked amount is.
        std::int64_t remainder = locked_amount - out.total_sending;
        out.total_sending = locked_amount;
        out.fees_included += remainder;
        out.variable_fee_amount += remainder;
    }
    out.total_receiving = receiving_amount;
    out.exchange_rate = rational(out.net_sending, receiving_amount) *
                        power_of_ten(receiving.decimals - sending.decimals);
    CORRIDOR_ASSERT(out.net_sending + out.fees_included == out.total_sending);
    return out;
}

}  // namespace corridor
