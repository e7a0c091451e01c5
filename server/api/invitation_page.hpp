#pragma once
// The hosted invitation page at {public_base_url}/invite/{code}: plain HTML with inline CSS, no
// scripts and no external assets, laid out for a phone first. Rendering only; the handlers decide
// which page to show.
#include <optional>
#include <string>
#include <string_view>

#include "ledger/book/currencies.hpp"
#include "ledger/customers/invitation_store.hpp"

namespace corridor {

// An amount in minor units written in major units: 12550 with 2 decimals is "125.50".
std::string format_minor_units(std::int64_t amount, int decimals);

// A PENDING invitation: who invites, to whom, the amount promised, and a form that claims it with
// the invitee's UMA address. `problem` (a refused claim) is shown above the form.
std::string render_invitation_page(const invitation& item, const currency_registry& currencies,
                                   const std::optional<std::string>& problem,
                                   std::string_view entered_uma);

// The invitation was claimed (now, or earlier: `just_claimed` says which).
std::string render_invitation_claimed_page(const invitation& item, bool just_claimed);

// An invitation that cannot be claimed: unknown, cancelled or expired.
std::string render_invitation_message(std::string_view title, std::string_view message);

}  // namespace corridor
