#include "ledger/payments/payment_checks.hpp"

#include "ledger/base/assert.hpp"
#include "ledger/store/deferred_writes.hpp"
#include "ledger/store/statement_cache.hpp"

namespace corridor {
namespace {

std::string customer_key(const tenant& owner, const std::string& customer_id) {
    return owner.platform_id + '/' + std::string(owner.env_name()) + '/' + customer_id;
}

// The conditions of facts_of_owner_for_payment; parameters: id, platform, environment.
constexpr const char* customer_live_sql =
    "EXISTS (SELECT 1 FROM customers c WHERE c.id = $c AND c.platform_id = $c AND c.environment = "
    "$c AND c.is_deleted = 0";

}  // namespace

owner_facts facts_of_owner(soci::session& session, const tenant& owner,
                           const std::string& customer_id) {
    owner_facts facts;
    if (customer_id.empty()) return facts;
    std::string env_name(owner.env_name());
    bool found = fetch_prepared(
        session,
        "SELECT is_deleted, platform_customer_id, kyc_status FROM customers WHERE id = :i "
        "AND platform_id = :p AND environment = :e",
        facts, customer_id, owner.platform_id, env_name);
    CORRIDOR_ASSERT(found);  // an account's owner is never removed, only marked deleted
    // The writer remembers it once the batch commits (it never changes).
    if (deferred_writes* deferred = deferred_writes_of(session)) {
        deferred->facts().saw_platform_customer_id(customer_key(owner, customer_id),
                                                   facts.platform_customer_id);
    }
    return facts;
}

std::string platform_customer_id_of(soci::session& session, const tenant& owner,
                                    const std::string& customer_id) {
    if (deferred_writes* deferred = deferred_writes_of(session); deferred && !customer_id.empty()) {
        if (const std::string* known =
                deferred->facts().platform_customer_id(customer_key(owner, customer_id))) {
            return *known;
        }
    }
    return facts_of_owner(session, owner, customer_id).platform_customer_id;
}

owner_facts facts_of_owner_for_payment(soci::session& session, const tenant& owner,
                                       const std::string& customer_id, bool must_be_ready) {
    deferred_writes* deferred = deferred_writes_of(session);
    if (customer_id.empty() || !deferred || !deferred->optimistic()) {
        return facts_of_owner(session, owner, customer_id);
    }
    const std::string* known =
        deferred->facts().platform_customer_id(customer_key(owner, customer_id));
    if (!known) return facts_of_owner(session, owner, customer_id);
    std::string condition = customer_live_sql;
    if (must_be_ready) condition += std::string(" AND ") + kyc_allows_money_movement_sql;
    // Live is level 1, live and allowed to move money level 2 (it implies live).
    deferred->add_condition({condition + ")",
                             {customer_id, owner.platform_id, std::string(owner.env_name())},
                             "customers/" + customer_key(owner, customer_id),
                             must_be_ready ? 2 : 1});
    owner_facts facts;  // live and approved, as the condition requires
    facts.platform_customer_id = *known;
    return facts;
}

payment_failure not_ready(const std::string& customer_id, const std::string& kyc_status) {
    return failure(payment_error::user_not_ready,
                   "customer " + customer_id + " cannot move money while its KYC status is " +
                       kyc_status + "; complete the hosted KYC flow first");
}

}  // namespace corridor
