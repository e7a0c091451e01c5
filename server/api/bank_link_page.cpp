#include "server/api/bank_link_page.hpp"

#include "ledger/customers/bank_link_store.hpp"

namespace corridor {
namespace {

constexpr std::string_view style = R"(
*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f5f7;color:#1b2430}
main{max-width:28rem;margin:0 auto;padding:1rem}
h1{font-size:1.35rem;margin:.5rem 0 1rem}
.note{background:#fff7d6;border:1px solid #e9d68a;border-radius:.5rem;padding:.6rem .8rem;font-size:.9rem}
fieldset{border:1px solid #d5dbe2;border-radius:.75rem;background:#fff;margin:1rem 0;padding:.25rem .75rem .75rem}
legend{font-weight:600;padding:0 .3rem}
label{display:flex;align-items:center;gap:.75rem;padding:.7rem .25rem;border-top:1px solid #eef1f4;cursor:pointer}
label:first-of-type{border-top:0}
input[type=radio]{width:1.25rem;height:1.25rem;flex:none}
.small{color:#5b6878;font-size:.85rem;display:block}
button{width:100%;font:inherit;font-weight:600;padding:.9rem;border:0;border-radius:.75rem;background:#1f5eff;color:#fff}
code{display:block;word-break:break-all;background:#fff;border:1px solid #d5dbe2;border-radius:.5rem;padding:.6rem;font-size:.85rem}
)";

std::string last_digits(std::string_view number) {
    return "\u2022\u2022\u2022\u2022 " +
           std::string(number.substr(number.size() >= 4 ? number.size() - 4 : 0));
}

}  // namespace

std::string render_bank_picker_page(bool sandbox) {
    std::string content;
    if (sandbox) {
        content +=
            "<p class=\"note\">Sandbox: these are test banks. No credentials are asked and no "
            "money moves. "
            "Accounts ending 002 to 005 make later transfers fail the sandbox way.</p>";
    } else {
        content += "<p class=\"note\">Choose the bank and the account to link.</p>";
    }
    content += "<form method=\"post\">";
    bool first = true;
    for (const auto& bank : test_banks()) {
        content += "<fieldset><legend>" + html_escape(bank.name) + "</legend>";
        for (const auto& account : bank.accounts) {
            std::string value = std::string(bank.id) + ":" + std::string(account.id);
            content += "<label><input type=\"radio\" name=\"account\" value=\"" +
                       html_escape(value) + "\"";
            if (first) content += " required checked";
            first = false;
            content += "><span>" + html_escape(account.name) + "<span class=\"small\">" +
                       html_escape(account.category) + " " + last_digits(account.number) +
                       "</span></span></label>";
        }
        content += "</fieldset>";
    }
    content += "<button type=\"submit\">Continue</button></form>";
    return html_page("Link a bank account", style, content);
}

std::string render_public_token_page(std::string_view bank_name, std::string_view account_name,
                                     std::string_view public_token, std::string_view account_id,
                                     std::string_view callback_path) {
    std::string content =
        "<p>" + html_escape(bank_name) + ", " + html_escape(account_name) + ".</p>";
    content += "<p>Public token:</p><code>" + html_escape(public_token) + "</code>";
    content += "<form method=\"post\" action=\"" + html_escape(callback_path) + "\">";
    content +=
        "<input type=\"hidden\" name=\"publicToken\" value=\"" + html_escape(public_token) + "\">";
    content +=
        "<input type=\"hidden\" name=\"accountId\" value=\"" + html_escape(account_id) + "\">";
    content += "<p><button type=\"submit\">Link this account</button></p></form>";
    return html_page("Confirm the account", style, content);
}

std::string render_linked_page(std::string_view account_id) {
    std::string content =
        "<p>The account is linked and is being checked; it will be ready in a moment.</p>";
    content += "<p class=\"small\">Reference</p><code>" + html_escape(account_id) + "</code>";
    content += "<p>You can close this page.</p>";
    return html_page("Account linked", style, content);
}

std::string render_problem_page(std::string_view title, std::string_view message) {
    return html_page(title, style, "<p>" + html_escape(message) + "</p>");
}

}  // namespace corridor
