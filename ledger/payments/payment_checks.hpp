#pragma once
// What every payment checks of the customers on either side (deleted, allowed by their KYC to move
// money) and how it phrases a refusal. Shared by the files of ledger/payments/ only.
#include <string>

#include <soci/soci.h>

#include "ledger/customers/kyc.hpp"
#include "ledger/payments/payments.hpp"

namespace corridor {

// What a payment needs to know of an account's owner, read in one query.
struct owner_facts {
    int is_deleted = 0;
    std::string platform_customer_id;
    std::string kyc_status = "APPROVED";  // the platform itself is never gated
    void bind(soci::statement& statement) {
        statement.exchange(soci::into(is_deleted));
        statement.exchange(soci::into(platform_customer_id));
        statement.exchange(soci::into(kyc_status));
    }
    bool deleted() const { return is_deleted != 0; }
    bool ready() const { return kyc_allows_money_movement(kyc_status); }
};

// The owning customer's facts; the platform's own accounts (no customer) are never deleted and
// carry no platformCustomerId.
owner_facts facts_of_owner(soci::session& session, const tenant& owner, const std::string& customer_id);

std::string platform_customer_id_of(soci::session& session, const tenant& owner,
                                    const std::string& customer_id);

// For a payment created and executed at once to an internal account: in the ledger writer's
// optimistic attempt, when the customer's platformCustomerId is known (writer_facts.hpp), nothing
// is read; that the customer is not deleted (and, `must_be_ready`, may move money) becomes a
// condition checked in the database just before the payment's guarded debit (a statement queued
// with it, not waited for, at the same isolation as the read). Facts so returned are those of a
// live, approved customer: if
// the condition fails, the batch runs again without the optimistic attempt and this reads them
// (facts_of_owner), so a refused payment is answered exactly as before. Otherwise facts_of_owner.
owner_facts facts_of_owner_for_payment(soci::session& session, const tenant& owner,
                                       const std::string& customer_id, bool must_be_ready);

inline payment_failure failure(payment_error code, std::string message, std::string field = "") {
    return payment_failure{code, std::move(message), std::move(field)};
}

// KYC gating: a customer who is not APPROVED or MANUALLY_APPROVED moves no money.
payment_failure not_ready(const std::string& customer_id, const std::string& kyc_status);

}  // namespace corridor
