#pragma once
// Funding instructions from the loaded rails, for the ledger (funding_instruction_source).
#include "ledger/payments/funding_instructions.hpp"
#include "rails/registry.hpp"

namespace corridor {

// In the sandbox environment a rail declaring CORRIDOR_RAIL_SERVES_SANDBOX answers first for the
// currencies it serves, then the sandbox rail for every currency it serves; in production
// the first loaded rail (other than the sandbox) that does not answer UNSUPPORTED serves the
// currency. Nothing is cached: a rail may give fresh details per call (Spark makes an invoice), and
// rail_instance already serialises the calls into each plugin.
class rail_funding_source final : public funding_instruction_source {
public:
    explicit rail_funding_source(const rail_registry& rails) : rails_(rails) {}
    funding_instruction_answer instructions(const funding_instruction_request& request) override;

private:
    const rail_registry& rails_;
};

}  // namespace corridor
