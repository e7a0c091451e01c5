#pragma once
// The hosted bank-link pages: plain HTML with inline CSS, no scripts and no external assets, laid
// out for a phone first. Rendering only; the handlers decide which page to show.
#include <string>
#include <string_view>

#include "server/api/html.hpp"

namespace corridor {

// The bank and account picker; the form posts back to the page's own address.
std::string render_bank_picker_page(bool sandbox);

// After the pick: the public token, and a form that posts it to `callback_path`.
std::string render_public_token_page(std::string_view bank_name, std::string_view account_name,
                                     std::string_view public_token, std::string_view account_id,
                                     std::string_view callback_path);

// The callback accepted the public token: the account exists and is being checked.
std::string render_linked_page(std::string_view account_id);

// A page for a refused step: an expired link, a used link, a bad pick.
std::string render_problem_page(std::string_view title, std::string_view message);

}  // namespace corridor
