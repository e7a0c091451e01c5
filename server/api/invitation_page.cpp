#include "server/api/invitation_page.hpp"

#include <cstdlib>

#include "ledger/base/time_format.hpp"
#include "server/api/html.hpp"

namespace corridor {
namespace {

constexpr std::string_view style = R"(
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f5f7;color:#1b2430}
main{max-width:28rem;margin:0 auto;padding:1rem}
h1{font-size:1.4rem;margin:.5rem 0 1rem}
.card{background:#fff;border:1px solid #d5dbe2;border-radius:.75rem;padding:1rem 1.1rem;margin:0 0 1rem}
.label{color:#5b6878;font-size:.85rem;margin:0}
.value{margin:0 0 .75rem;font-weight:600;word-break:break-all}
.amount{font-size:2rem;font-weight:700;margin:.1rem 0 .75rem}
.note{color:#5b6878;font-size:.85rem}
.problem{background:#fdecec;color:#8a1c1c;border-radius:.5rem;padding:.75rem;margin-bottom:1rem}
label{display:block;font-size:.9rem;margin:.25rem 0}
input{width:100%;font-size:1rem;padding:.7rem .75rem;border:1px solid #b8bec7;border-radius:.5rem;background:#fff}
button{width:100%;margin-top:1rem;font:inherit;font-weight:600;padding:.9rem;border:0;border-radius:.75rem;background:#1f5eff;color:#fff}
)";

std::string amount_text(const invitation& item, const currency_registry& currencies) {
    const currency* unit = currencies.find(*item.currency);
    int decimals = unit ? unit->decimals : 0;
    std::string text = format_minor_units(*item.amount_to_send, decimals);
    if (unit && !unit->symbol.empty() && unit->symbol != unit->code) text = unit->symbol + text;
    return text + " " + *item.currency;
}

}  // namespace

std::string format_minor_units(std::int64_t amount, int decimals) {
    bool negative = amount < 0;
    // Digits of |amount| without overflow for INT64_MIN.
    std::string digits;
    unsigned long long magnitude = negative ? 0ULL - static_cast<unsigned long long>(amount)
                                            : static_cast<unsigned long long>(amount);
    digits = std::to_string(magnitude);
    if (decimals > 0) {
        if (digits.size() <= static_cast<std::size_t>(decimals)) {
            digits.insert(0, static_cast<std::size_t>(decimals) + 1 - digits.size(), '0');
        }
        digits.insert(digits.size() - static_cast<std::size_t>(decimals), ".");
    }
    return negative ? "-" + digits : digits;
}

std::string render_invitation_page(const invitation& item, const currency_registry& currencies,
                                   const std::optional<std::string>& problem,
                                   std::string_view entered_uma) {
    std::string title =
        item.first_name ? *item.first_name + ", you are invited" : std::string("You are invited");
    std::string content;
    if (problem) content += "<p class=\"problem\" role=\"alert\">" + html_escape(*problem) + "</p>";
    content += "<div class=\"card\"><p class=\"label\">From</p><p class=\"value\" id=\"inviter\">" +
               html_escape(item.inviter_uma) + "</p>";
    if (item.amount_to_send) {
        content += "<p class=\"label\">Wants to send you</p><p class=\"amount\" id=\"amount\">" +
                   html_escape(amount_text(item, currencies)) + "</p>";
    }
    if (item.expires_at_ms) {
        // "2026-11-22T08:57:19.604Z" read as "2026-11-22 08:57 UTC".
        std::string when = format_timestamp_ms(*item.expires_at_ms);
        when = when.substr(0, 10) + " " + when.substr(11, 5) + " UTC";
        content +=
            "<p class=\"note\">This invitation is valid until " + html_escape(when) + ".</p>";
    }
    content += "</div>";
    content +=
        "<form method=\"post\" class=\"card\"><label for=\"inviteeUma\">Your UMA address</label>"
        "<input id=\"inviteeUma\" name=\"inviteeUma\" required maxlength=\"64\" "
        "autocomplete=\"off\" autocapitalize=\"none\" spellcheck=\"false\" "
        "placeholder=\"$you@your-provider.com\" value=\"" +
        html_escape(entered_uma) +
        "\"><p class=\"note\">The address your UMA provider gave you, like $you@example.com. "
        "It is sent to the person who invited you.</p>"
        "<button type=\"submit\">Accept the invitation</button></form>";
    return html_page(title, style, content);
}

std::string render_invitation_claimed_page(const invitation& item, bool just_claimed) {
    std::string content;
    if (just_claimed) {
        content = "<p>" + html_escape(item.inviter_uma) + " has been told that you accepted, at " +
                  html_escape(item.invitee_uma.value_or("")) + ".</p>";
        if (item.amount_to_send) {
            content +=
                "<p class=\"note\">Any amount promised is sent by their provider; it "
                "arrives at that address.</p>";
        }
        content += "<p>You can close this page.</p>";
        return html_page("Invitation accepted", style, content);
    }
    return html_page("Invitation already accepted", style,
                     "<p>This invitation has already been accepted.</p>");
}

std::string render_invitation_message(std::string_view title, std::string_view message) {
    return html_page(title, style, "<p>" + html_escape(message) + "</p>");
}

}  // namespace corridor
