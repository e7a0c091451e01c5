#pragma once
// Money that arrives through a rail without the service having started it (rail ABI 1.2,
// report_incoming): a payer paid an invoice of the service's Lightning node, or sent a transfer
// quoting a funding reference. Each arrival is recorded once per (rail, rail_reference), however
// often and by however many processes it is reported, and routed in the same transaction:
//   1. by its funding reference, to the internal account that carries it (credited, with its
//      INCOMING_PAYMENT and ACCOUNT_STATUS events, as a deposit is) or to the REALTIME_FUNDING
//      quote that carries it (funded as the sandbox funding of a quote is);
//   2. else by its match key, to the first registered sink that recognises it (the receiving side
//      of payments whose invoices the service signs itself, such as UMA);
//   3. else nowhere: it stays UNMATCHED, kept for the operator, never credited to anyone.
// Everything here runs inside the caller's (the ledger writer's) transaction.
#include <soci/soci.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ledger/payments/payments.hpp"
#include "ledger/base/tenant.hpp"

namespace corridor {

struct incoming_payment {
    // As the rail reported it.
    std::string rail, rail_reference;
    environment env = environment::sandbox;
    std::string match_key;  // e.g. a Lightning payment hash; may be empty
    std::string reference;  // the funding reference it carries; may be empty
    std::string currency;
    std::int64_t amount_minor = 0;        // whole smallest units
    std::int64_t amount_milli_minor = 0;  // exact thousandths (Lightning msat), or 0
    std::int64_t received_at_ms = 0;
    std::string rail_message;
    // What became of it.
    std::string status;       // CREDITED, REFUSED (a target recognised it and said no), UNMATCHED
    std::string platform_id;  // the tenant it went to; empty when unmatched
    std::string routed_to;    // the internal account, quote or sink ("sink:<name>") that took it
    std::string transaction_id;  // the transaction it made or completed; may be empty
    std::string outcome;         // why, in words, for the operator
    std::int64_t created_at_ms = 0, routed_at_ms = 0;
};

// What a sink says of an arrival handed to it.
struct incoming_claim {
    enum class verdict { not_ours, taken, refused };
    verdict decision = verdict::not_ours;
    std::optional<tenant> owner;  // the tenant whose payment it is, when the sink knows it
    std::string transaction_id;
    std::string outcome;  // for the record: what was done, or why it was refused
};

// A receiver of arrivals by match key, registered with the router by code that issues its own
// invoices (the UMA receiving side). It runs in the router's transaction and writes what it needs
// there; it returns not_ours for keys it does not know, without writing anything.
class incoming_payment_sink {
public:
    virtual ~incoming_payment_sink() = default;
    virtual incoming_claim claim(soci::session& session, const payment_services& services,
                                 const incoming_payment& arrival) = 0;
};

class incoming_payment_router {
public:
    // Registers a sink under a short name (recorded as routed_to "sink:<name>"). Sinks are asked
    // in registration order. Register before the first receive(); the router is not locked.
    void add_sink(std::string name, incoming_payment_sink& sink);

    // Records the arrival and routes it. Returns the stored record, or nullopt when this
    // (rail, rail_reference) was recorded before: a repeat changes nothing.
    std::optional<incoming_payment> receive(soci::session& session,
                                            const payment_services& services,
                                            incoming_payment arrival) const;

private:
    struct named_sink {
        std::string name;
        incoming_payment_sink* sink;
    };
    std::vector<named_sink> sinks_;
};

std::optional<incoming_payment> find_incoming_payment(soci::session& session,
                                                      const std::string& rail,
                                                      const std::string& rail_reference);

// Arrivals in one status, oldest first (the operator's reconciliation list), at most `limit`.
std::vector<incoming_payment> list_incoming_payments(soci::session& session,
                                                     const std::string& status, int limit);

}  // namespace corridor
