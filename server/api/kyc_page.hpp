#pragma once
// The hosted KYC page: plain HTML and inline CSS, no scripts and no external assets, laid out for a
// phone first. Every value written into the page is HTML-escaped.
#include <map>
#include <string>

#include "ledger/customers/customer_store.hpp"
#include "server/api/html.hpp"

namespace corridor {

// The form for the customer, prefilled from `values` (field name -> text) and showing `problem`
// (empty for none) above it.
std::string render_kyc_form(const customer& subject,
                            const std::map<std::string, std::string>& values,
                            const std::string& problem);
// The form for someone who is not a customer yet: `customer_type` (INDIVIDUAL or BUSINESS) picks
// the fields, a hidden customerType carries it, and a link switches to the other kind.
std::string render_kyc_form(const std::string& customer_type, bool new_person,
                            const std::map<std::string, std::string>& values,
                            const std::string& problem);
// A page with a title and one message: a used or expired link, or the thank-you page.
std::string render_kyc_message(const std::string& title, const std::string& message);

}  // namespace corridor
