#include "server/dashboard/layout.hpp"

#include <array>

#include "server/api/html.hpp"
#include "server/dashboard/auth.hpp"

namespace corridor {
namespace {

struct nav_link {
    std::string_view path;
    std::string_view label;
    dashboard_role at_least;
    bool sandbox_only = false;
};

// The navigation, in order. Each page adds its line here.
constexpr std::array nav_table = {
    nav_link{"/dashboard/", "Overview", dashboard_role::viewer},
    nav_link{"/dashboard/customers", "Customers", dashboard_role::viewer},
    nav_link{"/dashboard/transactions", "Transactions", dashboard_role::viewer},
    nav_link{"/dashboard/quotes", "Quotes", dashboard_role::viewer},
    nav_link{"/dashboard/tokens", "API tokens", dashboard_role::viewer},
    nav_link{"/dashboard/webhooks", "Webhooks", dashboard_role::viewer},
    nav_link{"/dashboard/configuration", "Configuration", dashboard_role::viewer},
    nav_link{"/dashboard/sandbox", "Sandbox tools", dashboard_role::developer, true},
    nav_link{"/dashboard/users", "Users", dashboard_role::admin},
    nav_link{"/dashboard/audit", "Audit log", dashboard_role::admin},
    nav_link{"/dashboard/security", "Security", dashboard_role::viewer},
};

constexpr std::string_view stylesheet = R"css(
:root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--accent:#0b5cad;--bg:#fff;--soft:#f6f8fa;
--sandbox:#7a4b00;--sandbox-bg:#fff4d6;--prod:#0a5d2b;--prod-bg:#dcf5e3;--bad:#a40e26;--good:#0a5d2b}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}
a:focus,button:focus,input:focus,select:focus,textarea:focus{outline:3px solid #f0b400;outline-offset:2px}
.skip{position:absolute;left:-999px}
.skip:focus{left:8px;top:8px;background:#fff;padding:4px 8px;z-index:2}
header.top{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;justify-content:space-between;padding:10px 16px;border-bottom:1px solid var(--line);background:var(--soft)}
header.top .who{font-size:14px;color:var(--muted)}
.platform{font-weight:600}
.env{display:inline-block;padding:2px 8px;border-radius:12px;font-size:14px;font-weight:600}
.env-sandbox{color:var(--sandbox);background:var(--sandbox-bg)}
.env-production{color:var(--prod);background:var(--prod-bg)}
form.inline{display:inline}
nav.main ul{list-style:none;margin:0;padding:0 16px;display:flex;flex-wrap:wrap;gap:4px 16px;border-bottom:1px solid var(--line)}
nav.main a{display:inline-block;padding:8px 0;text-decoration:none}
nav.main a[aria-current=page]{font-weight:700;border-bottom:3px solid var(--accent)}
main{padding:16px;max-width:72rem}
h1{font-size:1.6rem;margin:0.2rem 0 1rem}
h2{font-size:1.2rem;margin:1.5rem 0 0.5rem}
table{border-collapse:collapse;width:100%;margin:8px 0}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:14px;color:var(--muted)}
.table-wrap{overflow-x:auto}
label{display:block;font-weight:600;margin:10px 0 4px}
fieldset{border:1px solid var(--line);padding:8px 12px;margin:10px 0}
fieldset label{display:inline;font-weight:400;margin-right:12px}
input[type=text],input[type=email],input[type=password],input[type=url],select,textarea{width:100%;max-width:32rem;padding:8px;border:1px solid #8c959f;border-radius:4px;font:inherit}
textarea{font-family:ui-monospace,monospace;font-size:13px}
button{font:inherit;padding:8px 14px;border-radius:4px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}
button.secondary{background:#fff;color:var(--accent)}
button.danger{background:#fff;color:var(--bad);border-color:var(--bad)}
.notice{padding:8px 12px;border-left:4px solid var(--good);background:#eef8f0;margin:10px 0}
.notice.error{border-color:var(--bad);background:#fdeef0}
.secret{display:inline-block;max-width:100%;font-family:ui-monospace,monospace;word-break:break-all;background:var(--soft);padding:8px;border:1px solid var(--line)}
pre{white-space:pre-wrap;word-break:break-all;background:var(--soft);padding:8px;border:1px solid var(--line)}
.muted{color:var(--muted)}
.narrow{max-width:28rem;margin:2rem auto;padding:0 16px}
@media (max-width:600px){th,td{padding:4px}main{padding:10px}}
code{word-break:break-all;font-size:14px}
caption{text-align:left;font-weight:600;padding:4px 0}
.table-wrap th[scope=row],.table-wrap td code{min-width:10rem}
.table-wrap td code{display:inline-block}
.num{text-align:right;white-space:nowrap}
.table-wrap:focus{outline:3px solid #f0b400}
dl.details{margin:8px 0}
dl.details div{display:flex;flex-wrap:wrap;gap:0 12px;padding:4px 0;border-bottom:1px solid var(--line)}
dl.details dt{font-weight:600;min-width:12rem}
dl.details dd{margin:0;min-width:0;overflow-wrap:anywhere}
.field{margin:6px 0}
.field label{display:block;font-weight:600;margin:6px 0 2px}
.field small{display:block;color:var(--muted)}
.check{margin:6px 0}
.check label{display:inline;font-weight:400;margin-left:6px}
input[type=date]{padding:8px;border:1px solid #8c959f;border-radius:4px;font:inherit}
.status{font-weight:600}
form.filters fieldset{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:0 16px}
form.filters legend,form.filters .actions{grid-column:1/-1}
.actions{margin-top:10px}
)css";

// Only an enhancement: copies the text of the element a [data-copy] button names. Every page works
// without it (the text is on the page, selectable).
constexpr std::string_view script = R"js(
document.querySelectorAll('button[data-copy]').forEach(function (button) {
  button.hidden = false;
  button.addEventListener('click', function () {
    var source = document.getElementById(button.getAttribute('data-copy'));
    if (!source || !navigator.clipboard) return;
    navigator.clipboard.writeText(source.textContent.trim()).then(function () {
      button.textContent = 'Copied';
    });
  });
});
)js";

std::string head(std::string_view title) {
    std::string out =
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
        "<meta name=\"referrer\" content=\"no-referrer\"><title>";
    out += html_escape(title);
    out +=
        " · Corridor dashboard</title>"
        "<link rel=\"stylesheet\" href=\"/dashboard/assets/style.css\">"
        "<script src=\"/dashboard/assets/copy.js\" defer></script></head><body>";
    return out;
}

bool nav_matches(std::string_view link, std::string_view path) {
    if (link == "/dashboard/") return path == "/dashboard/" || path == "/dashboard";
    return path == link || (path.size() > link.size() && path.substr(0, link.size()) == link &&
                            path[link.size()] == '/');
}

std::string environment_switch(const dashboard_session& who) {
    environment other =
        who.env == environment::sandbox ? environment::production : environment::sandbox;
    std::string out = "<form class=\"inline\" method=\"post\" action=\"/dashboard/environment\">";
    out += csrf_input(who);
    out += "<input type=\"hidden\" name=\"environment\" value=\"" + std::string(to_string(other)) +
           "\">";
    out += "<input type=\"hidden\" name=\"back\" value=\"" + html_escape(who.path) + "\">";
    out += "<button class=\"secondary\" type=\"submit\">Switch to " +
           std::string(to_string(other)) + "</button></form>";
    return out;
}

}  // namespace

void add_dashboard_headers(http_response& response) {
    response.headers.emplace_back(
        "Content-Security-Policy",
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    response.headers.emplace_back("X-Frame-Options", "DENY");
    response.headers.emplace_back("Referrer-Policy", "no-referrer");
    response.headers.emplace_back("X-Content-Type-Options", "nosniff");
    response.headers.emplace_back("Cache-Control", "no-store");
}

http_response render_page(const dashboard_session& who, std::string_view title,
                          std::string_view body_html, unsigned status) {
    std::string env(to_string(who.env));
    std::string out = head(title);
    out += "<a class=\"skip\" href=\"#content\">Skip to content</a>";
    out += "<header class=\"top\"><div><span class=\"platform\">" + html_escape(who.platform_name) +
           "</span> <span class=\"env env-" + env + "\">" + env + "</span></div>";
    out += "<div class=\"who\">" + environment_switch(who) + " " + html_escape(who.email) + " (" +
           std::string(to_string(who.role)) + ") ";
    out += "<form class=\"inline\" method=\"post\" action=\"/dashboard/sign-out\">" +
           csrf_input(who) + "<button class=\"secondary\" type=\"submit\">Sign out</button></form>";
    out += "</div></header><nav class=\"main\" aria-label=\"Dashboard\"><ul>";
    for (const auto& link : nav_table) {
        if (!who.can(link.at_least)) continue;
        if (link.sandbox_only && who.env != environment::sandbox) continue;
        out += "<li><a href=\"" + std::string(link.path) + "\"";
        if (nav_matches(link.path, who.path)) out += " aria-current=\"page\"";
        out += ">" + std::string(link.label) + "</a></li>";
    }
    out += "</ul></nav><main id=\"content\"><h1>" + html_escape(title) + "</h1>";
    out += body_html;
    out += "</main></body></html>\n";
    http_response response;
    response.status = static_cast<int>(status);
    response.body = std::move(out);
    response.content_type = "text/html; charset=utf-8";
    add_dashboard_headers(response);
    return response;
}

http_response unreadable_form() {
    return render_public_page(
        "Request refused",
        notice_html("The form could not be read; reload the page and try again.", true), 400);
}

http_response render_public_page(std::string_view title, std::string_view body_html,
                                 unsigned status) {
    std::string out = head(title);
    out += "<main id=\"content\" class=\"narrow\"><p class=\"muted\">Corridor dashboard</p><h1>" +
           html_escape(title) + "</h1>";
    out += body_html;
    out += "</main></body></html>\n";
    http_response response;
    response.status = static_cast<int>(status);
    response.body = std::move(out);
    response.content_type = "text/html; charset=utf-8";
    add_dashboard_headers(response);
    return response;
}

std::string csrf_input(const dashboard_session& who) {
    return "<input type=\"hidden\" name=\"csrf\" value=\"" + html_escape(who.csrf_token) + "\">";
}

http_response redirect_after_post(std::string_view location) {
    http_response response;
    response.status = 303;
    response.content_type = "text/plain; charset=utf-8";
    response.headers.emplace_back("Location", std::string(location));
    add_dashboard_headers(response);
    return response;
}

std::string notice_html(std::string_view text, bool is_error) {
    return std::string("<p class=\"notice") +
           (is_error ? " error\" role=\"alert\">" : "\" role=\"status\">") + html_escape(text) +
           "</p>";
}

http_response redirect_to_sign_in(std::string_view next_path) {
    std::string location = "/dashboard/sign-in";
    // Only our own pages are remembered (never a full URL): no open redirect.
    if (next_path.rfind("/dashboard/", 0) == 0 && next_path != "/dashboard/sign-in" &&
        next_path.find_first_of("?#\\\"'<> ") == std::string_view::npos) {
        location += "?next=" + std::string(next_path);
    }
    return redirect_after_post(location);
}

http_response forbidden_page(const dashboard_session& who, std::string_view why) {
    return render_page(who, "Not allowed", notice_html(why, true), 403);
}

std::string table_region(std::string_view label, std::string_view table_html) {
    return "<div class=\"table-wrap\" tabindex=\"0\" role=\"region\" aria-label=\"" +
           html_escape(label) + "\">" + std::string(table_html) + "</div>";
}

std::string_view dashboard_stylesheet() {
    return stylesheet;
}
std::string_view dashboard_script() {
    return script;
}

}  // namespace corridor
