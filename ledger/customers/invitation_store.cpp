#include "ledger/customers/invitation_store.hpp"

#include "ledger/base/assert.hpp"
#include "ledger/store/outbox.hpp"

namespace corridor {
namespace {

constexpr std::string_view select_columns =
    "SELECT code, platform_id, environment, inviter_customer_id, inviter_uma, first_name, "
    "amount_to_send, currency, status, invitee_uma, expires_at_ms, claimed_at_ms, created_at_ms, "
    "updated_at_ms FROM invitations WHERE code = :c";

template <class T>
std::optional<T> value_of(const T& value, soci::indicator indicator) {
    if (indicator == soci::i_ok) return value;
    return std::nullopt;
}

// The status a reader sees: a PENDING invitation past its expiry is EXPIRED.
std::string effective_status(const std::string& stored, std::optional<std::int64_t> expires_at_ms,
                             std::int64_t now_ms) {
    if (stored == "PENDING" && expires_at_ms && *expires_at_ms <= now_ms) return "EXPIRED";
    return stored;
}

std::optional<invitation> read_invitation(soci::session& session, const clock& time,
                                          std::string_view code) {
    std::string code_text(code), platform_id, environment, customer_id, inviter_uma, status;
    std::string first_name, currency, invitee_uma;
    long long amount = 0, expires_at = 0, claimed_at = 0, created_at = 0, updated_at = 0;
    soci::indicator first_name_ind = soci::i_null, amount_ind = soci::i_null,
                    currency_ind = soci::i_null, invitee_ind = soci::i_null,
                    expires_ind = soci::i_null, claimed_ind = soci::i_null;
    std::string found_code;
    session << std::string(select_columns), soci::use(code_text), soci::into(found_code),
        soci::into(platform_id), soci::into(environment), soci::into(customer_id),
        soci::into(inviter_uma), soci::into(first_name, first_name_ind),
        soci::into(amount, amount_ind), soci::into(currency, currency_ind), soci::into(status),
        soci::into(invitee_uma, invitee_ind), soci::into(expires_at, expires_ind),
        soci::into(claimed_at, claimed_ind), soci::into(created_at), soci::into(updated_at);
    if (!session.got_data()) return std::nullopt;
    invitation out;
    out.code = found_code;
    out.owner = tenant_of_row(platform_id, environment);
    out.inviter_customer_id = customer_id;
    out.inviter_uma = inviter_uma;
    out.first_name = value_of(first_name, first_name_ind);
    if (auto value = value_of(amount, amount_ind)) out.amount_to_send = *value;
    out.currency = value_of(currency, currency_ind);
    out.invitee_uma = value_of(invitee_uma, invitee_ind);
    if (auto value = value_of(expires_at, expires_ind)) out.expires_at_ms = *value;
    if (auto value = value_of(claimed_at, claimed_ind)) out.claimed_at_ms = *value;
    out.created_at_ms = created_at;
    out.updated_at_ms = updated_at;
    out.status = effective_status(status, out.expires_at_ms, time.now_ms());
    return out;
}

// Why a change to a non-PENDING invitation is refused.
invitation_error refusal_of(const invitation& current) {
    if (current.status == "CLAIMED") return invitation_error::already_claimed;
    if (current.status == "CANCELLED") return invitation_error::cancelled;
    CORRIDOR_ASSERT(current.status == "EXPIRED");
    return invitation_error::expired;
}

// Moves a PENDING, unexpired invitation to `status`; false when it was not (any more) PENDING.
bool transition(soci::session& session, std::string_view code, const std::string& status,
                const std::optional<std::string>& invitee_uma, std::int64_t now_ms) {
    std::string code_text(code);
    long long now = now_ms;
    soci::indicator invitee_ind = invitee_uma ? soci::i_ok : soci::i_null;
    std::string invitee = invitee_uma.value_or("");
    long long claimed_at = status == "CLAIMED" ? now : 0;
    soci::indicator claimed_ind = status == "CLAIMED" ? soci::i_ok : soci::i_null;
    soci::statement update =
        (session.prepare << "UPDATE invitations SET status = :s, invitee_uma = :i, "
                            "claimed_at_ms = :a, updated_at_ms = :n WHERE code = :c AND status = "
                            "'PENDING' AND (expires_at_ms IS NULL OR expires_at_ms > :t)",
         soci::use(status), soci::use(invitee, invitee_ind), soci::use(claimed_at, claimed_ind),
         soci::use(now), soci::use(code_text), soci::use(now));
    update.execute(true);
    return update.get_affected_rows() == 1;
}

}  // namespace

std::string new_invitation_code(random_source& random) {
    return random_base32(random, invitation_code_chars);
}

invitation create_invitation(soci::session& session, invitation_services services,
                             const tenant& owner, const new_invitation& request) {
    CORRIDOR_ASSERT(request.amount_to_send.has_value() == request.currency.has_value());
    invitation out;
    out.code = new_invitation_code(services.random);
    out.owner = owner;
    out.inviter_customer_id = request.inviter_customer_id;
    out.inviter_uma = request.inviter_uma;
    out.first_name = request.first_name;
    out.amount_to_send = request.amount_to_send;
    out.currency = request.currency;
    out.status = "PENDING";
    out.expires_at_ms = request.expires_at_ms;
    out.created_at_ms = out.updated_at_ms = services.time.now_ms();

    std::string env_name(owner.env_name());
    std::string first_name = out.first_name.value_or(""), currency = out.currency.value_or("");
    long long amount = out.amount_to_send.value_or(0), expires = out.expires_at_ms.value_or(0);
    long long created = out.created_at_ms;
    soci::indicator first_ind = out.first_name ? soci::i_ok : soci::i_null;
    soci::indicator amount_ind = out.amount_to_send ? soci::i_ok : soci::i_null;
    soci::indicator expires_ind = out.expires_at_ms ? soci::i_ok : soci::i_null;
    // A code collision (130 random bits) would fail the primary key: a 500, never a shared code.
    session << "INSERT INTO invitations (code, platform_id, environment, inviter_customer_id, "
               "inviter_uma, first_name, amount_to_send, currency, status, expires_at_ms, "
               "created_at_ms, updated_at_ms) VALUES (:c, :p, :e, :k, :u, :f, :a, :y, 'PENDING', "
               ":x, :t, :t2)",
        soci::use(out.code), soci::use(owner.platform_id), soci::use(env_name),
        soci::use(out.inviter_customer_id), soci::use(out.inviter_uma),
        soci::use(first_name, first_ind), soci::use(amount, amount_ind),
        soci::use(currency, amount_ind), soci::use(expires, expires_ind), soci::use(created),
        soci::use(created);
    return out;
}

std::optional<invitation> find_invitation_by_code(soci::session& session, const clock& time,
                                                  std::string_view code) {
    if (code.empty() || code.size() > 64) return std::nullopt;
    return read_invitation(session, time, code);
}

std::optional<invitation> find_invitation(soci::session& session, const clock& time,
                                          const tenant& owner, std::string_view code) {
    auto found = find_invitation_by_code(session, time, code);
    if (!found || found->owner != owner) return std::nullopt;
    return found;
}

result<invitation, invitation_error> claim_invitation(
    soci::session& session, invitation_services services, const tenant& owner,
    std::string_view code, const std::string& invitee_uma,
    const std::function<std::string(const invitation&)>& event_payload) {
    auto current = find_invitation(session, services.time, owner, code);
    if (!current) return invitation_error::not_found;
    if (current->status != "PENDING") return refusal_of(*current);
    if (invitee_uma == current->inviter_uma) return invitation_error::self_claim;
    if (!transition(session, code, "CLAIMED", invitee_uma, services.time.now_ms())) {
        // Claimed, cancelled or expired between the read and the update: report what it is now.
        auto now = find_invitation(session, services.time, owner, code);
        CORRIDOR_ASSERT(now && now->status != "PENDING");
        return refusal_of(*now);
    }
    auto claimed = find_invitation(session, services.time, owner, code);
    CORRIDOR_ASSERT(claimed && claimed->status == "CLAIMED");
    record_event(session, services.ids, services.time, owner, "INVITATION_CLAIMED",
                 event_payload(*claimed));
    return *claimed;
}

result<invitation, invitation_error> cancel_invitation(soci::session& session, const clock& time,
                                                       const tenant& owner, std::string_view code) {
    auto current = find_invitation_by_code(session, time, code);
    if (!current || current->owner.env != owner.env) return invitation_error::not_found;
    if (current->owner.platform_id != owner.platform_id) return invitation_error::other_platform;
    if (current->status != "PENDING") return refusal_of(*current);
    if (!transition(session, code, "CANCELLED", std::nullopt, time.now_ms())) {
        auto now = find_invitation(session, time, owner, code);
        CORRIDOR_ASSERT(now && now->status != "PENDING");
        return refusal_of(*now);
    }
    auto cancelled = find_invitation(session, time, owner, code);
    CORRIDOR_ASSERT(cancelled && cancelled->status == "CANCELLED");
    return *cancelled;
}

}  // namespace corridor
