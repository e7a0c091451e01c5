#pragma once
// UMA invitations (send-by-link): a platform's customer invites someone by a link; the invitee's
// UMA address is attached when the invitation is claimed, and the claim writes an
// INVITATION_CLAIMED event in the same transaction. Statuses: PENDING -> CLAIMED | CANCELLED, and
// PENDING reads as EXPIRED once expires_at_ms has passed (no sweep is needed: every change is a
// conditional update that refuses an expired row). amountToSend is for display only: the inviter's
// platform sends any payment itself after the event.
#include <soci/soci.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "ledger/base/clock.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/base/random.hpp"
#include "ledger/base/result.hpp"
#include "ledger/base/tenant.hpp"

namespace corridor {

// 26 base32 characters: 130 random bits, so codes can be neither guessed nor enumerated.
constexpr std::size_t invitation_code_chars = 26;

struct invitation {
    std::string code;
    tenant owner;
    std::string inviter_customer_id;
    std::string inviter_uma;
    std::optional<std::string> first_name;
    std::optional<std::int64_t> amount_to_send;
    std::optional<std::string> currency;  // set exactly when amount_to_send is
    std::string status;                   // PENDING, CLAIMED, CANCELLED, EXPIRED (as read)
    std::optional<std::string> invitee_uma;
    std::optional<std::int64_t> expires_at_ms;
    std::optional<std::int64_t> claimed_at_ms;
    std::int64_t created_at_ms = 0;
    std::int64_t updated_at_ms = 0;
};

struct new_invitation {
    std::string inviter_customer_id;
    std::string inviter_uma;
    std::optional<std::string> first_name;
    std::optional<std::int64_t> amount_to_send;
    std::optional<std::string> currency;
    std::optional<std::int64_t> expires_at_ms;
};

enum class invitation_error {
    not_found,       // no such code for this tenant
    other_platform,  // the code belongs to another platform of the same environment
    already_claimed,
    cancelled,
    expired,
    self_claim,  // the invitee is the inviter
};

struct invitation_services {
    id_generator& ids;
    random_source& random;
    const clock& time;
};

// Returns a fresh random code (lower-case base32).
std::string new_invitation_code(random_source& random);

invitation create_invitation(soci::session& session, invitation_services services,
                             const tenant& owner, const new_invitation& request);

// The invitation of `code` if it belongs to `owner`; another tenant's code reads as not found.
std::optional<invitation> find_invitation(soci::session& session, const clock& time,
                                          const tenant& owner, std::string_view code);

// The invitation of `code` whoever owns it; for the hosted page, where the code is the credential.
std::optional<invitation> find_invitation_by_code(soci::session& session, const clock& time,
                                                  std::string_view code);

// Claims a PENDING invitation for `invitee_uma` (normalised) and, in the same transaction, records
// the INVITATION_CLAIMED event whose payload `event_payload` renders from the claimed invitation.
// Call inside a write transaction; nothing is written when it fails.
result<invitation, invitation_error> claim_invitation(
    soci::session& session, invitation_services services, const tenant& owner,
    std::string_view code, const std::string& invitee_uma,
    const std::function<std::string(const invitation&)>& event_payload);

// Cancels a PENDING invitation. Another platform's code (same environment) is other_platform, so
// the caller can answer 403; another environment's is not_found.
result<invitation, invitation_error> cancel_invitation(soci::session& session, const clock& time,
                                                       const tenant& owner, std::string_view code);

}  // namespace corridor
