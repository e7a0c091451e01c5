#pragma once
// Pricing a payment to an UMA address. The service sells the sender bitcoin (its ordinary pricing
// from the sending currency to BTC: spread, fixed and variable fees) and pays the receiver's
// invoice with it; the receiver's provider converts the bitcoin into the receiving currency at its
// own multiplier and fee. So:
//   SENDING locked S:   the bitcoin S buys, B = the receiving side of pricing S -> BTC, is what
//                       the pay request asks for (in millisatoshis, B * 1000, or for a v0
//                       receiver the receiving amount B * 1000 / multiplier, rounded down);
//   RECEIVING locked R: the pay request asks for R in the receiving currency.
// The receiver's invoice then fixes what is paid: payout_sats = its millisatoshis rounded up to
// whole satoshis (the part of a satoshi above the invoice stays with the service), and the sender
// pays what pricing S -> BTC charges for payout_sats. Sender-locked, that is at most S (the bitcoin
// was bought with S), and the difference joins the fee so that totalSendingAmount is exactly S;
// only a v0 receiver that adds a fee of its own can make it dearer than S.
#include <cstdint>

#include "ledger/book/currencies.hpp"
#include "ledger/book/pricing.hpp"
#include "ledger/book/rates.hpp"
#include "ledger/base/result.hpp"

namespace corridor {

// Satoshis that cover an invoice of `amount_msats` (> 0).
std::int64_t payout_sats_for(std::int64_t amount_msats);

// The satoshis a locked sending amount buys (SENDING side of pricing S -> BTC).
result<std::int64_t, pricing_error> uma_sats_budget(const currency& sending, const currency& btc,
                                                    const corridor_terms& terms,
                                                    std::int64_t locked_sending);

// The price of a payment whose invoice needs payout_sats and delivers receiving_amount (smallest
// units of `receiving`): totals, fees and rate details of the sending side; total_receiving is
// receiving_amount and exchange_rate the sending major units the converted amount paid per
// receiving major unit.
result<price, pricing_error> price_uma_payment(const currency& sending, const currency& btc,
                                               const currency& receiving,
                                               const corridor_terms& terms, locked_side side,
                                               std::int64_t locked_amount, std::int64_t payout_sats,
                                               std::int64_t receiving_amount);

}  // namespace corridor
