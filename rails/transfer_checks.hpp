#pragma once
// What a transfer through a rail must pass before anything is written: the internal account it
// moves money from or to (found, same currency, same customer, KYC approved) and the rail that
// serves the external account in the owner's environment (and, in the sandbox, what production
// would accept). Each refusal is a rail_payment_failure naming the field.
#include <soci/soci.h>

#include <string>

#include "ledger/base/result.hpp"
#include "ledger/base/tenant.hpp"
#include "ledger/book/book.hpp"
#include "rails/payment_engine.hpp"

namespace corridor::rail_engine {

rail_payment_failure failure_of(rail_payment_error code, std::string message,
                                std::string field = "");

// The internal account of a transfer, with the checks both directions share.
result<ledger_account, rail_payment_failure> internal_account_for(
    soci::session& session, const tenant& owner, const std::string& id, const std::string& field,
    const external_account_ref& external);

// The rail for an operation of the owner's environment. In the sandbox, an operation the simulator
// would take is first held to what production accepts.
result<rail_instance*, rail_payment_failure> rail_for(const rail_engine_services& services,
                                                      const tenant& owner,
                                                      const external_account_ref& external,
                                                      const std::string& field,
                                                      corridor_rail_direction direction);

}  // namespace corridor::rail_engine
