#include "rails/engine_postings.hpp"

#include "ledger/base/assert.hpp"
#include "ledger/payments/payments.hpp"

namespace corridor::rail_engine {

book_services book_of(const rail_engine_services& services) {
    return book_services{services.ids, services.random, services.time};
}

std::string settlement_account(soci::session& session, const rail_engine_services& services,
                               const tenant& owner, const std::string& currency) {
    return ensure_account(session, book_of(services), owner, account_kind::settlement, "",
                          currency);
}

void balance_moved(soci::session& session, const rail_engine_services& services,
                   const tenant& owner, const std::string& account_id, std::int64_t delta) {
    auto account = find_account(session, owner, account_id);
    CORRIDOR_ASSERT(account.has_value());
    record_balance_event(session, services.ids, services.time, services.currencies, owner,
                         account->id, account->owner_id, account->currency,
                         account->balance() - delta, account->balance());
}

}  // namespace corridor::rail_engine
