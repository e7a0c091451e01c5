#include "ledger/payments/payment_checks.hpp"

#include "ledger/base/assert.hpp"
#include "ledger/store/statement_cache.hpp"

namespace corridor {

owner_facts facts_of_owner(soci::session& session, const tenant& owner, const std::string& customer_id) {
    owner_facts facts;
    if (customer_id.empty()) return facts;
    std::string env_name(owner.env_name());
    bool found = fetch_prepared(session,
                                "SELECT is_deleted, platform_customer_id, kyc_status FROM customers WHERE id = :i "
                                "AND platform_id = :p AND environment = :e",
                                facts, customer_id, owner.platform_id, env_name);
    CORRIDOR_ASSERT(found);  // an account's owner is never removed, only marked deleted
    return facts;
}

std::string platform_customer_id_of(soci::session& session, const tenant& owner,
                                    const std::string& customer_id) {
    return facts_of_owner(session, owner, customer_id).platform_customer_id;
}

payment_failure not_ready(const std::string& customer_id, const std::string& kyc_status) {
    return failure(payment_error::user_not_ready,
                   "customer " + customer_id + " cannot move money while its KYC status is " +
                       kyc_status + "; complete the hosted KYC flow first");
}

}  // namespace corridor
