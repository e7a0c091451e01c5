#include "ledger/book/pricing.hpp"

#include "ledger/base/assert.hpp"

namespace corridor {
namespace {

big_int gross_for_net(const big_int& net, const big_int& fixed, const rational& variable_rate) {
    return net + fixed + (rational(net, 1) * variable_rate).ceil();
}

}  // namespace

result<price, pricing_error> price_transfer(const currency& sending, const currency& receiving,
                                            const corridor_terms& terms, locked_side side,
                                            std::int64_t locked_amount) {
    CORRIDOR_ASSERT(locked_amount > 0);
    CORRIDOR_ASSERT(!terms.mid_rate.is_zero());
    CORRIDOR_ASSERT(terms.spread_bps >= 0 && terms.spread_bps < 10000);
    const rational multiplier(10000 - terms.spread_bps, 10000);
    const rational variable_rate(terms.variable_fee_bps, 10000);
    const rational minor_rate =
        terms.mid_rate * multiplier * power_of_ten(receiving.decimals - sending.decimals);
    const big_int fixed = big_int(terms.service_fixed_fee) + terms.counterparty_fixed_fee;

    big_int net, gross, received;
    if (side == locked_side::sending) {
        gross = locked_amount;
        if (gross <= fixed) return pricing_error::amount_too_small;
        net = (rational(gross - fixed, 1) / (rational::integer(1) + variable_rate)).floor();
        while (net > 0 && gross_for_net(net, fixed, variable_rate) > gross) net -= 1;
        while (gross_for_net(net + 1, fixed, variable_rate) <= gross) net += 1;
        received = (rational(net, 1) * minor_rate).floor();
    } else {
        received = locked_amount;
        net = (rational(received, 1) / minor_rate).ceil();
        gross = gross_for_net(net, fixed, variable_rate);
    }
    if (net <= 0 || received <= 0) return pricing_error::amount_too_small;
    auto total_sending = fit_int64(gross, 1, amount_max);
    auto total_receiving = fit_int64(received, 1, amount_max);
    if (!total_sending || !total_receiving) return pricing_error::amount_too_large;

    price out;
    out.total_sending = *total_sending;
    out.total_receiving = *total_receiving;
    out.net_sending = net.convert_to<std::int64_t>();
    out.fees_included = out.total_sending - out.net_sending;
    out.counterparty_multiplier = terms.mid_rate;
    out.service_multiplier = multiplier;
    out.variable_fee_rate = variable_rate;
    out.counterparty_fixed_fee = terms.counterparty_fixed_fee;
    out.service_fixed_fee = terms.service_fixed_fee;
    out.variable_fee_amount = out.fees_included - terms.service_fixed_fee - terms.counterparty_fixed_fee;
    out.exchange_rate = rational::integer(1) / (terms.mid_rate * multiplier);
    // The service never pays out more than it converts, and fees are never negative.
    CORRIDOR_ASSERT(!(rational(net, 1) * minor_rate < rational(received, 1)));
    CORRIDOR_ASSERT(out.fees_included >= 0 && out.variable_fee_amount >= 0);
    CORRIDOR_ASSERT(out.net_sending + out.fees_included == out.total_sending);
    return out;
}

}  // namespace corridor
