#include "ledger/payments/uma_incoming_sink.hpp"

#include "ledger/payments/uma_receipts.hpp"

namespace corridor {

incoming_claim uma_incoming_sink::claim(soci::session& session, const payment_services& services,
                                        const incoming_payment& arrival) {
    incoming_claim out;
    std::string env(to_string(arrival.env)), platform_id;
    soci::indicator found = soci::i_null;
    session << "SELECT platform_id FROM uma_invoices WHERE payment_hash = :h AND environment = :e",
        soci::use(arrival.match_key), soci::use(env), soci::into(platform_id, found);
    if (found != soci::i_ok) return out;  // not an invoice of ours: not_ours
    tenant owner{platform_id, arrival.env};
    out.owner = owner;
    auto invoice = find_uma_invoice(session, owner, arrival.match_key);
    CORRIDOR_ASSERT(invoice.has_value());
    // What was paid, in millisatoshis (a rail without a finer unit reports whole satoshis).
    std::int64_t paid_msats =
        arrival.amount_milli_minor != 0 ? arrival.amount_milli_minor : arrival.amount_minor * 1000;
    out.decision = incoming_claim::verdict::refused;
    out.transaction_id = invoice->transaction_id;
    if (arrival.currency != "BTC") {
        out.outcome = "an UMA invoice is paid in BTC, not " + arrival.currency;
        return out;
    }
    if (paid_msats < invoice->amount_msats) {
        out.outcome = "pays " + std::to_string(paid_msats) + " msat of the invoice's " +
                      std::to_string(invoice->amount_msats);
        return out;
    }
    auto received = receive_uma_invoice_payment(session, services, owner, arrival.match_key);
    if (!received) {
        out.outcome = received.error().message;
        return out;
    }
    out.decision = incoming_claim::verdict::taken;
    out.outcome = "paid the UMA invoice; the payment is " + received->status;
    return out;
}

}  // namespace corridor
