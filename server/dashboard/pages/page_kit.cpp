#include "server/dashboard/pages/page_kit.hpp"

#include <ctime>

#include "ledger/book/currencies.hpp"
#include "ledger/platforms/token_store.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"
#include "server/api/html.hpp"
#include "server/dashboard/layout.hpp"

namespace corridor {
namespace {

// The API's permissions that a dashboard role stands for: the page then passes the same checks
// the API's routes make of a token.
unsigned permissions_of(dashboard_role role) {
    switch (role) {
        case dashboard_role::viewer: return permission_view;
        case dashboard_role::developer: return permission_view | permission_transact;
        case dashboard_role::admin:
            return permission_view | permission_transact | permission_manage;
    }
    return permission_view;
}

// The dashboard user becomes the request's caller, in the tenant they are looking at.
void act_as(request_context& context, const dashboard_session& who) {
    context.who = principal{"", "dashboard:" + who.user_id, who.owner(), permissions_of(who.role)};
}

std::string heading_message(const api_error& error) {
    return std::string(name_of(error.code)) + ": " + error.message;
}

// The query's raw "name=value" pairs, split on '&'.
std::vector<std::string> raw_pairs(std::string_view target) {
    std::vector<std::string> pairs;
    auto mark = target.find('?');
    if (mark == std::string_view::npos) return pairs;
    std::string_view query = target.substr(mark + 1);
    while (!query.empty()) {
        auto end = query.find('&');
        std::string_view pair = query.substr(0, end);
        if (!pair.empty()) pairs.emplace_back(pair);
        if (end == std::string_view::npos) break;
        query.remove_prefix(end + 1);
    }
    return pairs;
}

std::string pair_name(std::string_view pair) {
    return std::string(pair.substr(0, pair.find('=')));
}

}  // namespace

http_response run_page(request_context& context, dashboard_role at_least,
                       const page_renderer& render) {
    auto resolved = require_dashboard(context, at_least);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    const auto& who = std::get<dashboard_session>(resolved);
    act_as(context, who);
    try {
        return render(who);
    } catch (const api_error& error) {
        return error_page(who, "Cannot show this page", error);
    }
}

http_response run_form_post(request_context& context, dashboard_role at_least,
                            const form_action& act) {
    auto form = parse_form(context.request.body);
    if (!form) form = form_fields{};  // no CSRF token either: refused below
    auto resolved = require_dashboard_post(context, at_least, *form);
    if (auto* refused = std::get_if<http_response>(&resolved)) return std::move(*refused);
    const auto& who = std::get<dashboard_session>(resolved);
    act_as(context, who);
    try {
        return act(who, *form);
    } catch (const api_error& error) {
        return error_page(who, "Not done", error);
    }
}

http_response error_page(const dashboard_session& who, std::string_view title,
                         const api_error& error, std::string_view body_html) {
    std::string body = notice_html(heading_message(error), true);
    body += body_html;
    return render_page(who, title, body, static_cast<unsigned>(http_status_of(error.code)));
}

query_params filter_query(std::string_view target) {
    std::string cleaned(target.substr(0, target.find('?')));
    char separator = '?';
    for (const auto& pair : raw_pairs(target)) {
        auto equals = pair.find('=');
        if (equals == std::string::npos || equals + 1 == pair.size()) continue;
        cleaned += separator;
        separator = '&';
        for (char c : pair) {
            if (c == '+')
                cleaned += "%20";
            else
                cleaned += c;
        }
    }
    return query_params(cleaned);
}

std::string shown_value(const query_params& query, std::string_view name) {
    try {
        return query.get(name).value_or("");
    } catch (const api_error&) {
        return {};
    }
}

std::string next_page_href(std::string_view target, std::string_view next_cursor) {
    std::string href(target.substr(0, target.find('?')));
    char separator = '?';
    for (const auto& pair : raw_pairs(target)) {
        if (pair_name(pair) == "cursor") continue;
        href += separator;
        separator = '&';
        href += pair;
    }
    href += separator;
    href += "cursor=" + url_encode(next_cursor);
    return href;
}

std::string url_encode(std::string_view text) {
    static constexpr char digits[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
        bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                          (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
        if (unreserved) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += digits[c >> 4];
            out += digits[c & 0xf];
        }
    }
    return out;
}

std::string detail_href(std::string_view section, std::string_view id) {
    return "/dashboard/" + std::string(section) + "/" + url_encode(id);
}

std::string format_money(std::int64_t minor_units, std::string_view currency_code,
                         const currency_registry& currencies) {
    const currency* found = currencies.find(std::string(currency_code));
    int decimals = found ? found->decimals : 0;
    bool negative = minor_units < 0;
    // Digits of the magnitude, without negating INT64_MIN.
    std::string digits;
    std::uint64_t magnitude = negative ? 0 - static_cast<std::uint64_t>(minor_units)
                                       : static_cast<std::uint64_t>(minor_units);
    do {
        digits.insert(digits.begin(), static_cast<char>('0' + magnitude % 10));
        magnitude /= 10;
    } while (magnitude != 0);
    while (static_cast<int>(digits.size()) <= decimals) digits.insert(digits.begin(), '0');
    std::string whole = digits.substr(0, digits.size() - decimals);
    std::string grouped;
    for (std::size_t i = 0; i < whole.size(); ++i) {
        if (i != 0 && (whole.size() - i) % 3 == 0) grouped += ',';
        grouped += whole[i];
    }
    std::string out = negative ? "-" + grouped : grouped;
    if (decimals > 0) out += "." + digits.substr(digits.size() - decimals);
    return out + " " + std::string(currency_code);
}

std::string format_time(std::int64_t epoch_ms) {
    if (epoch_ms == 0) return {};
    std::time_t seconds = static_cast<std::time_t>(epoch_ms / 1000);
    std::tm parts{};
    gmtime_r(&seconds, &parts);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &parts);
    return text;
}

std::string link_html(std::string_view href, std::string_view text) {
    return "<a href=\"" + html_escape(href) + "\">" + html_escape(text) + "</a>";
}

std::string code_html(std::string_view text) {
    if (text.empty()) return {};
    return "<code>" + html_escape(text) + "</code>";
}

std::string section_html(std::string_view heading, std::string_view content_html) {
    return "<section><h2>" + html_escape(heading) + "</h2>" + std::string(content_html) +
           "</section>";
}

std::string table_html(std::string_view caption, const std::vector<table_column>& columns,
                       const std::vector<std::vector<std::string>>& rows_html,
                       std::string_view empty_text) {
    if (rows_html.empty()) return "<p class=\"empty\">" + html_escape(empty_text) + "</p>";
    std::string out = "<div class=\"table-wrap\" role=\"region\" tabindex=\"0\" aria-label=\"" +
                      html_escape(caption) + "\"><table><caption>" + html_escape(caption) +
                      "</caption><thead><tr>";
    for (const auto& column : columns) {
        out += column.numeric ? "<th scope=\"col\" class=\"num\">" : "<th scope=\"col\">";
        out += html_escape(column.heading) + "</th>";
    }
    out += "</tr></thead><tbody>";
    for (const auto& row : rows_html) {
        out += "<tr>";
        for (std::size_t i = 0; i < row.size(); ++i) {
            bool numeric = i < columns.size() && columns[i].numeric;
            std::string cell = i == 0 ? "th" : "td";
            out += "<" + cell + (i == 0 ? " scope=\"row\"" : "") +
                   (numeric ? " class=\"num\"" : "") + ">" + row[i] + "</" + cell + ">";
        }
        out += "</tr>";
    }
    return out + "</tbody></table></div>";
}

std::string details_html(const std::vector<std::pair<std::string, std::string>>& items_html) {
    std::string out = "<dl class=\"details\">";
    for (const auto& [label, value] : items_html) {
        if (value.empty()) continue;
        out += "<div><dt>" + html_escape(label) + "</dt><dd>" + value + "</dd></div>";
    }
    return out + "</dl>";
}

namespace {

std::string control_id(std::string_view name, std::string_view form_id) {
    std::string id = "f-";
    if (!form_id.empty()) id += std::string(form_id) + "-";
    return id + std::string(name);
}

}  // namespace

std::string text_field(std::string_view name, std::string_view label, std::string_view value,
                       std::string_view type, std::string_view hint, std::string_view form_id) {
    std::string id = control_id(name, form_id);
    std::string out = "<div class=\"field\"><label for=\"" + html_escape(id) + "\">" +
                      html_escape(label) + "</label>";
    if (!hint.empty()) {
        out += "<small id=\"" + html_escape(id) + "-hint\">" + html_escape(hint) + "</small>";
    }
    out += "<input type=\"" + html_escape(type) + "\" id=\"" + html_escape(id) + "\" name=\"" +
           html_escape(name) + "\" value=\"" + html_escape(value) + "\"";
    if (!hint.empty()) out += " aria-describedby=\"" + html_escape(id) + "-hint\"";
    return out + "></div>";
}

std::string select_field(std::string_view name, std::string_view label,
                         const std::vector<std::pair<std::string, std::string>>& options,
                         std::string_view selected, std::string_view any_text,
                         std::string_view form_id) {
    std::string id = control_id(name, form_id);
    std::string out = "<div class=\"field\"><label for=\"" + html_escape(id) + "\">" +
                      html_escape(label) + "</label><select id=\"" + html_escape(id) +
                      "\" name=\"" + html_escape(name) + "\">";
    if (!any_text.empty()) out += "<option value=\"\">" + html_escape(any_text) + "</option>";
    for (const auto& [value, text] : options) {
        out += "<option value=\"" + html_escape(value) + "\"" +
               (value == selected ? " selected" : "") + ">" + html_escape(text) + "</option>";
    }
    return out + "</select></div>";
}

std::string submit_button(std::string_view text) {
    return "<button type=\"submit\">" + html_escape(text) + "</button>";
}

std::string order_field(const query_params& query) {
    return select_field("sortOrder", "Order", {{"desc", "Newest first"}, {"asc", "Oldest first"}},
                        shown_value(query, "sortOrder"));
}

std::string list_caption(std::string_view noun, bool descending) {
    return std::string(noun) + (descending ? ", newest first" : ", oldest first");
}

std::string filter_form(std::string_view action, std::string_view legend,
                        std::string_view fields_html) {
    return "<form method=\"get\" action=\"" + html_escape(action) +
           "\" class=\"filters\"><fieldset><legend>" + html_escape(legend) + "</legend>" +
           std::string(fields_html) + "<div class=\"actions\">" + submit_button("Apply filters") +
           " " + link_html(action, "Clear") + "</div></fieldset></form>";
}

}  // namespace corridor
