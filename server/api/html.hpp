#pragma once
// Shared by the hosted pages (KYC, bank link, invitation): every dynamic string written into HTML
// goes through html_escape.
#include <string>
#include <string_view>

namespace corridor {

std::string html_escape(std::string_view text);

// A whole hosted page (bank link, invitation): the shared head (phone viewport, no referrer), the
// page's own inline `style`, the escaped title as the heading, then `content` (HTML, already
// escaped where dynamic).
std::string html_page(std::string_view title, std::string_view style, std::string_view content);

}  // namespace corridor
