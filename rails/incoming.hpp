#pragma once
// Where the payment engine hands what rails report arriving without the host starting it (rail ABI
// 1.2, report_incoming). The server implements it: it records each arrival once and routes it
// (ledger/payments/incoming_payments.hpp). Called inside the engine's pass, on the ledger writer, in the
// pass's transaction.
#include <soci/soci.h>

#include <string>
#include <vector>

#include "rails/rail.hpp"

namespace corridor {

class incoming_payment_handler {
public:
    virtual ~incoming_payment_handler() = default;
    // Records and routes the arrivals `rail` reported during one hook call; returns how many were
    // new (a repeat of a recorded arrival changes nothing). Throws only when the database fails.
    virtual int receive(soci::session& session, const std::string& rail,
                        const std::vector<rail_incoming>& arrivals) = 0;
};

}  // namespace corridor
