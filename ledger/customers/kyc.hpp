#pragma once
// Know-your-customer: which statuses may move money, hosted KYC links, and the review that decides
// a submitted customer. Customers of a regulated platform start APPROVED; others start
// PENDING_REVIEW and move no money until a review approves them.
#include <soci/soci.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ledger/base/clock.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/base/random.hpp"
#include "ledger/base/result.hpp"
#include "ledger/base/tenant.hpp"

namespace corridor {

// APPROVED and MANUALLY_APPROVED; every other status (PENDING_REVIEW, REJECTED, ...) blocks.
bool kyc_allows_money_movement(std::string_view kyc_status);
// The same test as an SQL condition on a customers row named c.
inline constexpr const char* kyc_allows_money_movement_sql =
    "c.kyc_status IN ('APPROVED', 'MANUALLY_APPROVED')";
// KYC_STATUS webhooks are sent for final states only: everything but PENDING_REVIEW.
bool is_final_kyc_status(std::string_view kyc_status);

// The gate every money-moving route applies to the customer on whose behalf money moves. An empty
// id (the platform's own accounts) always passes; an unknown customer passes too, because the
// caller's own lookup reports it as not found.
bool customer_may_move_money(soci::session& session, const tenant& owner,
                             const std::string& customer_id);

struct kyc_link {
    tenant owner;
    std::string customer_id;           // empty for a link that onboards a new person
    std::string platform_customer_id;  // the customer a new person's link creates
    std::optional<std::string> redirect_uri;
    std::int64_t expires_at_ms = 0;
    std::optional<std::int64_t> used_at_ms;
};

// Makes a single-use link token (32 random bytes, base64url); only its hash is stored.
std::string create_kyc_link(soci::session& session, random_source& random, const clock& time,
                            const tenant& owner, const std::string& customer_id,
                            const std::optional<std::string>& redirect_uri, std::int64_t ttl_ms);
// A single-use link for someone who is not a customer yet: completing it creates the customer
// with this platformCustomerId.
std::string create_kyc_onboarding_link(soci::session& session, random_source& random,
                                       const clock& time, const tenant& owner,
                                       const std::string& platform_customer_id,
                                       const std::optional<std::string>& redirect_uri,
                                       std::int64_t ttl_ms);
// Remembers which customer a used onboarding link created.
void record_kyc_onboarding_customer(soci::session& session, std::string_view token,
                                    const std::string& customer_id);
// The link of a token, used or not, expired or not; nullopt when no such token was issued.
std::optional<kyc_link> find_kyc_link(soci::session& session, std::string_view token);
// Marks the link (of either kind) used if it is still unused and unexpired; false when another
// request used it first or it has expired. Call inside the transaction that records the submission.
bool consume_kyc_link(soci::session& session, const clock& time, std::string_view token);

// Records a submission for review and sets the customer PENDING_REVIEW. In the sandbox the review
// decides at decide_at_ms; in production it waits for a manual decision.
void submit_kyc_review(soci::session& session, id_generator& ids, const clock& time,
                       const tenant& owner, const std::string& customer_id,
                       const std::string& subject_name, std::int64_t decide_at_ms);

// The sandbox's automatic decision: REJECTED when the submitted name contains "reject" (any case),
// APPROVED otherwise.
std::string sandbox_kyc_decision(std::string_view subject_name);

// Decides up to `limit` sandbox reviews that are due: sets each customer's status and writes its
// KYC_STATUS event in the same transaction. Safe from several processes (each review is claimed by
// a conditional update). Returns how many were decided.
int decide_due_kyc_reviews(soci::session& session, id_generator& ids, const clock& time, int limit);

struct kyc_manual_decision {
    std::string review_id;
    tenant owner;          // the customer's platform and environment
    std::string decision;  // APPROVED or REJECTED
};
enum class kyc_decision_error { customer_not_found, no_pending_review };
// The operator's decision on a customer's pending review (production reviews wait for it): records
// it on the review with the reason (empty = none), sets the customer's status and writes the same
// KYC_STATUS event as a sandbox decision, in one transaction. Any tenant: the customer id names it.
result<kyc_manual_decision, kyc_decision_error> decide_kyc_review(
    soci::session& session, id_generator& ids, const clock& time, const std::string& customer_id,
    bool approve, const std::string& reason);

}  // namespace corridor
