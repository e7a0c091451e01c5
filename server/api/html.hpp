#pragma once
// Shared by the hosted pages (KYC, bank link): every dynamic string written into HTML goes through
// html_escape.
#include <string>
#include <string_view>

namespace corridor {

std::string html_escape(std::string_view text);

}  // namespace corridor
