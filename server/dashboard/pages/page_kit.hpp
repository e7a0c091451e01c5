#pragma once
// What the dashboard's data pages share: running a page under the signed-in session, with the
// API's caller taken from it so that the API's own validation and domain calls serve the page, and
// the small pieces of HTML the pages are made of (tables, filter forms, money, times, links).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/dashboard/form.hpp"
#include "server/dashboard/session.hpp"
#include "server/http/http_types.hpp"

namespace corridor {

class currency_registry;
class query_params;
struct api_error;
struct request_context;

using page_renderer = std::function<http_response(const dashboard_session&)>;
using form_action = std::function<http_response(const dashboard_session&, const form_fields&)>;

// A GET page for a user of at least `at_least`: a signed-out visitor is sent to sign in, a lesser
// role gets 403. An api_error thrown while rendering (a bad filter, an unknown id) becomes the
// page's answer with the API's status and message.
http_response run_page(request_context& context, dashboard_role at_least,
                       const page_renderer& render);
// A state-changing form POST: the form is parsed, the session, role, CSRF token and Origin are
// checked before `act` runs. An api_error from `act` is answered with its status (on the ledger
// writer that status rolls back whatever the request wrote).
http_response run_form_post(request_context& context, dashboard_role at_least,
                            const form_action& act);

// The page for an api_error: its status, a heading and the message as an alert, then `body_html`
// (the form again, so the user can correct it).
http_response error_page(const dashboard_session& who, std::string_view title,
                         const api_error& error, std::string_view body_html = {});

// The query of a page's GET filter form as the API's list reads it: fields left empty are dropped
// (an unfilled filter is no filter) and '+' is a space, as browsers encode forms.
query_params filter_query(std::string_view target);
// A parameter's value to show back in its filter field: empty when absent or unreadable.
std::string shown_value(const query_params& query, std::string_view name);
// The target's query without `cursor` and with `cursor=<next>` appended: the next page's link.
std::string next_page_href(std::string_view target, std::string_view next_cursor);

std::string url_encode(std::string_view text);  // every byte but unreserved ones percent-encoded
// "/dashboard/<section>/<id>" with the id encoded.
std::string detail_href(std::string_view section, std::string_view id);

// "1,234.56 USD" from minor units and the currency's decimals (0 decimals when unknown).
std::string format_money(std::int64_t minor_units, std::string_view currency_code,
                         const currency_registry& currencies);
// "2025-10-13 08:30:00 UTC"; empty for 0 (not set).
std::string format_time(std::int64_t epoch_ms);

// HTML pieces; text arguments are escaped here, *_html arguments are HTML already.
std::string link_html(std::string_view href, std::string_view text);
std::string code_html(std::string_view text);  // an id, in <code>
std::string section_html(std::string_view heading, std::string_view content_html);

struct table_column {
    std::string_view heading;
    bool numeric = false;  // right-aligned
};
// A table with a caption and column headings (th scope="col"); each row's first cell is its row
// heading (th scope="row"). It scrolls sideways inside a focusable region named by the caption,
// so a phone's page stays its width and a keyboard can scroll it. No rows: a paragraph saying
// `empty_text` instead.
std::string table_html(std::string_view caption, const std::vector<table_column>& columns,
                       const std::vector<std::vector<std::string>>& rows_html,
                       std::string_view empty_text);
// A definition list of label and HTML value pairs (empty values are left out).
std::string details_html(const std::vector<std::pair<std::string, std::string>>& items_html);

// Form controls, each with its label; the control's id is "f-" and its name.
// `form_id` keeps ids unique when two forms of a page have a field of the same name.
std::string text_field(std::string_view name, std::string_view label, std::string_view value,
                       std::string_view type = "text", std::string_view hint = {},
                       std::string_view form_id = {});
// Options are (value, text); the empty value "" is "Any" when `any_text` is given.
std::string select_field(std::string_view name, std::string_view label,
                         const std::vector<std::pair<std::string, std::string>>& options,
                         std::string_view selected, std::string_view any_text = {},
                         std::string_view form_id = {});
std::string submit_button(std::string_view text);
// The sortOrder select of a list (newest first unless asked), and the list's caption naming the
// order it is shown in.
std::string order_field(const query_params& query);
std::string list_caption(std::string_view noun, bool descending);
// A GET filter form around `fields_html`, with an Apply button and a link clearing the filters.
std::string filter_form(std::string_view action, std::string_view legend,
                        std::string_view fields_html);

}  // namespace corridor
