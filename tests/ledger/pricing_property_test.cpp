// Property tests of the pricing arithmetic: over random currencies, rates, spreads, fees and
// amounts, the totals add up exactly, rounding favours the service by less than one minor unit per
// step, and amounts that do not fit are refused rather than wrapped.
#include <catch2/catch.hpp>

#include <random>

#include "ledger/book/money.hpp"
#include "ledger/book/pricing.hpp"

using namespace corridor;

namespace {

struct random_case {
    currency sending, receiving;
    corridor_terms terms;
    locked_side side;
    std::int64_t amount;
};

random_case draw(std::mt19937_64& rng) {
    static const int decimals[] = {0, 2, 3, 8};
    random_case c;
    c.sending = {"AAA", "A", "a", decimals[rng() % 4]};
    c.receiving = {"BBB", "B", "b", decimals[rng() % 4]};
    // Rates from 1e-8 to 1e6 with up to 8 decimal places.
    std::int64_t numerator = 1 + static_cast<std::int64_t>(rng() % 100'000'000'000'000ULL);
    c.terms.mid_rate = rational(numerator, 100'000'000);
    c.terms.spread_bps = static_cast<int>(rng() % 500);
    c.terms.variable_fee_bps = static_cast<int>(rng() % 300);
    c.terms.service_fixed_fee = static_cast<std::int64_t>(rng() % 500);
    c.terms.counterparty_fixed_fee = static_cast<std::int64_t>(rng() % 3);
    c.side = rng() % 2 ? locked_side::sending : locked_side::receiving;
    // Amounts across every magnitude up to the interface's cap.
    int digits = 1 + static_cast<int>(rng() % 16);
    std::int64_t bound = 1;
    for (int i = 0; i < digits; ++i) bound *= 10;
    c.amount = 1 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(std::min(bound, amount_max)));
    return c;
}

rational minor_rate(const random_case& c) {
    return c.terms.mid_rate * rational(10000 - c.terms.spread_bps, 10000) *
           power_of_ten(c.receiving.decimals - c.sending.decimals);
}

}  // namespace

TEST_CASE("pricing: totals add up and rounding favours the service by under one unit", "[pricing]") {
    std::uint64_t seed = std::random_device{}();
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    int priced_count = 0;
    for (int i = 0; i < 20000; ++i) {
        auto c = draw(rng);
        CAPTURE(i, c.amount, c.sending.decimals, c.receiving.decimals, c.terms.spread_bps,
                c.terms.variable_fee_bps, c.terms.service_fixed_fee);
        auto result = price_transfer(c.sending, c.receiving, c.terms, c.side, c.amount);
        if (!result) continue;
        ++priced_count;
        const price& p = result.value();
        const rational rate = minor_rate(c);
        const rational variable(c.terms.variable_fee_bps, 10000);
        const std::int64_t fixed = c.terms.service_fixed_fee + c.terms.counterparty_fixed_fee;
        const rational converted = rational(p.net_sending, 1) * rate;

        REQUIRE(p.net_sending > 0);
        REQUIRE(p.total_receiving > 0);
        REQUIRE(p.net_sending + p.fees_included == p.total_sending);
        REQUIRE(p.fees_included >= fixed);
        REQUIRE(p.variable_fee_amount == p.fees_included - fixed);
        // The receiver never gets more than the converted amount is worth...
        REQUIRE_FALSE(converted < rational(p.total_receiving, 1));
        const big_int variable_fee_exact = (rational(p.net_sending, 1) * variable).ceil();
        if (c.side == locked_side::sending) {
            REQUIRE(p.total_sending == c.amount);
            // ...and loses less than one minor unit to rounding down.
            REQUIRE(converted < rational(p.total_receiving + 1, 1));
            // The fee is the variable fee rounded up plus at most one unit no whole net unit could use.
            big_int slack = big_int(p.fees_included) - fixed - variable_fee_exact;
            REQUIRE(slack >= 0);
            REQUIRE(slack <= 1);
        } else {
            REQUIRE(p.total_receiving == c.amount);
            REQUIRE(big_int(p.fees_included) == fixed + variable_fee_exact);
            // The net amount is the smallest that delivers the locked amount.
            REQUIRE(rational(p.net_sending - 1, 1) * rate < rational(c.amount, 1));
        }
        REQUIRE(p.total_sending <= amount_max);
        REQUIRE(p.total_receiving <= amount_max);
    }
    REQUIRE(priced_count > 10000);  // the draw must exercise the formula, not only its refusals
}

TEST_CASE("pricing: amounts that cannot be represented are refused", "[pricing]") {
    currency cents{"USD", "US Dollar", "$", 2};
    currency sats{"BTC", "Bitcoin", "B", 8};
    corridor_terms terms;
    terms.mid_rate = rational(1'000'000, 1);  // an absurd rate to force overflow
    auto too_large = price_transfer(cents, sats, terms, locked_side::sending, amount_max);
    REQUIRE_FALSE(too_large.ok());
    CHECK(too_large.error() == pricing_error::amount_too_large);

    terms.mid_rate = rational(1, 1);
    terms.service_fixed_fee = 100;
    auto all_fees = price_transfer(cents, cents, terms, locked_side::sending, 100);
    REQUIRE_FALSE(all_fees.ok());
    CHECK(all_fees.error() == pricing_error::amount_too_small);

    terms.service_fixed_fee = 0;
    terms.mid_rate = rational(1, 1'000'000'000);  // one sending unit buys nothing
    auto converts_to_nothing = price_transfer(cents, cents, terms, locked_side::sending, 1);
    REQUIRE_FALSE(converts_to_nothing.ok());
    CHECK(converts_to_nothing.error() == pricing_error::amount_too_small);
}

TEST_CASE("pricing: a worked example matches the README", "[pricing]") {
    currency usd{"USD", "US Dollar", "$", 2};
    currency eur{"EUR", "Euro", "E", 2};
    corridor_terms terms;
    terms.mid_rate = *rational::parse_decimal("0.9215");
    terms.spread_bps = 25;
    terms.variable_fee_bps = 20;
    terms.service_fixed_fee = 10;
    auto p = price_transfer(usd, eur, terms, locked_side::sending, 10000);
    REQUIRE(p.ok());
    CHECK(p->net_sending == 9970);
    CHECK(p->fees_included == 30);
    CHECK(p->variable_fee_amount == 20);
    CHECK(p->total_receiving == 9164);  // floor(9970 * 0.9215 * 0.9975) = floor(9164.43)
    auto back = price_transfer(usd, eur, terms, locked_side::receiving, 9164);
    REQUIRE(back.ok());
    CHECK(back->net_sending == 9970);  // ceil(9164 / 0.91919625) = 9970
    CHECK(back->total_sending == 10000);
}

TEST_CASE("money: checked arithmetic reports overflow", "[pricing]") {
    constexpr auto max = std::numeric_limits<std::int64_t>::max();
    CHECK_FALSE(checked_add(max, 1).has_value());
    CHECK(checked_add(max - 1, 1) == max);
    CHECK_FALSE(checked_sub(std::numeric_limits<std::int64_t>::min(), 1).has_value());
    CHECK_FALSE(checked_mul(max / 2 + 1, 2).has_value());
    CHECK(checked_mul(3, 4) == 12);
    CHECK_FALSE(rational::parse_decimal("1e5").has_value());
    CHECK_FALSE(rational::parse_decimal("-1").has_value());
    CHECK_FALSE(rational::parse_decimal(".5").has_value());
    CHECK(rational::parse_decimal("0.50") == rational(1, 2));
    CHECK(rational(7, 2).floor() == 3);
    CHECK(rational(7, 2).ceil() == 4);
    CHECK(rational(-7, 2).floor() == -4);
    CHECK(rational(1, 3).to_decimal(4) == "0.3333");
}
