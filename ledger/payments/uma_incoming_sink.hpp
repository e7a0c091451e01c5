#pragma once
// The UMA receiving side as a receiver of rail arrivals: a payment reported by a rail whose match
// key is the payment hash of an UMA invoice the service signed (ledger/payments/uma_receipts.hpp) pays that
// invoice, found in the arrival's environment whatever the platform. It must pay the invoice in
// full and in BTC; otherwise it is refused and kept (nothing is credited). Register it with the
// incoming payment router under "uma".
#include "ledger/payments/incoming_payments.hpp"

namespace corridor {

class uma_incoming_sink final : public incoming_payment_sink {
public:
    incoming_claim claim(soci::session& session, const payment_services& services,
                         const incoming_payment& arrival) override;
};

}  // namespace corridor
