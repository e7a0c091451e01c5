#pragma once
// The postings the payment engine makes on the book, shared by the start of a transfer
// (rails/transfer_start.cpp) and the engine's record step (rails/payment_engine.cpp): the
// settlement account held and pulled money passes through, and the ACCOUNT_STATUS event that
// follows a posting to an internal account.
#include <soci/soci.h>

#include <cstdint>
#include <string>

#include "ledger/base/tenant.hpp"
#include "ledger/book/book.hpp"
#include "rails/payment_engine.hpp"

namespace corridor::rail_engine {

book_services book_of(const rail_engine_services& services);

// The tenant's settlement account in `currency`: where held payouts and pulled money pass through.
std::string settlement_account(soci::session& session, const rail_engine_services& services,
                               const tenant& owner, const std::string& currency);

// The ACCOUNT_STATUS event of an internal account after a posting of `delta` to it.
void balance_moved(soci::session& session, const rail_engine_services& services,
                   const tenant& owner, const std::string& account_id, std::int64_t delta);

}  // namespace corridor::rail_engine
