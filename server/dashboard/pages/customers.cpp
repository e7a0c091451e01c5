// Customers: the list with the filters of GET /customers (same query names and reader), and a
// customer's page with its KYC state, internal accounts, external accounts and transactions.
#include "ledger/book/book.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/customers/external_account_store.hpp"
#include "ledger/payments/payments.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"
#include "server/api/handler_steps.hpp"
#include "server/api/html.hpp"
#include "server/dashboard/layout.hpp"
#include "server/dashboard/pages/page_kit.hpp"
#include "server/dashboard/pages/pages.hpp"

namespace corridor {
namespace {

constexpr int customer_transactions_shown = 20;

std::string status_html(std::string_view status) {
    return "<span class=\"status\">" + html_escape(status) + "</span>";
}

std::string customer_filters(const query_params& query) {
    std::string fields;
    fields += text_field("platformCustomerId", "Platform customer id",
                         shown_value(query, "platformCustomerId"));
    fields += text_field("umaAddress", "UMA address", shown_value(query, "umaAddress"), "text",
                         "$user@domain");
    fields += select_field("customerType", "Type",
                           {{"INDIVIDUAL", "Individual"}, {"BUSINESS", "Business"}},
                           shown_value(query, "customerType"), "Any type");
    fields += text_field("createdAfter", "Created from (UTC)", shown_value(query, "createdAfter"),
                         "date");
    fields += text_field("createdBefore", "Created until (UTC)",
                         shown_value(query, "createdBefore"), "date");
    fields += select_field("isIncludingDeleted", "Deleted customers",
                           {{"false", "Hide"}, {"true", "Show"}},
                           shown_value(query, "isIncludingDeleted"));
    fields += order_field(query);
    return filter_form("/dashboard/customers", "Find customers", fields);
}

std::string display_name(const customer& item) {
    if (item.full_name && !item.full_name->empty()) return *item.full_name;
    return item.platform_customer_id.empty() ? item.id : item.platform_customer_id;
}

http_response customers_page(request_context& context) {
    return run_page(context, dashboard_role::viewer, [&](const dashboard_session& who) {
        auto query = filter_query(context.request.target);
        std::string filters = customer_filters(query);
        try {
            auto filter = read_customer_filter(query);
            auto request = query.page("Customer");
            auto found = list_customers(context.session(), who.owner(), filter, request);
            std::vector<std::vector<std::string>> rows;
            for (const auto& item : found.items) {
                rows.push_back({link_html(detail_href("customers", item.id), item.id),
                                html_escape(display_name(item)), html_escape(item.customer_type),
                                html_escape(item.uma_address), status_html(item.kyc_status),
                                html_escape(item.is_deleted ? "deleted" : ""),
                                html_escape(format_time(item.created_at_ms))});
            }
            std::string body = filters + "<p class=\"count\">" + std::to_string(found.total_count) +
                               " customer" + (found.total_count == 1 ? "" : "s") + " match.</p>" +
                               table_html(list_caption("Customers", request.descending),
                                          {{"Customer"},
                                           {"Name"},
                                           {"Type"},
                                           {"UMA address"},
                                           {"KYC"},
                                           {"Deleted"},
                                           {"Created"}},
                                          rows, "No customer matches these filters.");
            if (found.has_more) {
                body += "<p>" +
                        link_html(next_page_href(context.request.target, found.next_cursor),
                                  "Next page") +
                        "</p>";
            }
            return render_page(who, "Customers", body);
        } catch (const api_error& error) {
            return error_page(who, "Customers", error, filters);
        }
    });
}

// A developer in the sandbox gets a link per account to the sandbox tools, the account filled in.
std::string internal_accounts_html(request_context& context, const dashboard_session& who,
                                   const std::string& customer_id) {
    account_filter filter;
    filter.customer_id = customer_id;
    auto found = list_internal_accounts(context.session(), who.owner(), filter,
                                        page_request{page_limit_max, std::nullopt, false});
    bool sandbox_tools = who.can(dashboard_role::developer) && who.env == environment::sandbox;
    std::vector<table_column> columns = {
        {"Account"}, {"Currency"}, {"Balance", true}, {"Reference"}};
    if (sandbox_tools) columns.push_back({"Sandbox"});
    std::vector<std::vector<std::string>> rows;
    for (const auto& account : found.items) {
        std::vector<std::string> row = {
            code_html(account.id), html_escape(account.currency),
            html_escape(
                format_money(account.balance(), account.currency, context.services.currencies)),
            code_html(account.reference)};
        if (sandbox_tools) {
            row.push_back(link_html("/dashboard/sandbox?accountId=" + url_encode(account.id),
                                    "Fund the " + account.currency + " account"));
        }
        rows.push_back(std::move(row));
    }
    return section_html("Internal accounts",
                        table_html("Internal accounts", columns, rows, "No internal account."));
}

// The last four characters of an identifier: enough to tell accounts apart on a screen.
std::string masked(std::string_view identifier) {
    if (identifier.size() <= 4) return std::string(identifier);
    return "…" + std::string(identifier.substr(identifier.size() - 4));
}

std::string external_accounts_html(request_context& context, const tenant& owner,
                                   const std::string& customer_id) {
    external_account_filter filter;
    filter.customer_id = customer_id;
    auto found = list_external_accounts(context.session(), owner, filter,
                                        page_request{page_limit_max, std::nullopt, false});
    std::vector<std::vector<std::string>> rows;
    for (const auto& account : found.items) {
        rows.push_back({code_html(account.id), html_escape(account.account_type),
                        html_escape(account.currency),
                        html_escape(masked(account.primary_identifier)),
                        html_escape(account.beneficiary_name.value_or("")),
                        status_html(account.status), html_escape(account.origin)});
    }
    return section_html("External accounts", table_html("External accounts",
                                                        {{"Account"},
                                                         {"Type"},
                                                         {"Currency"},
                                                         {"Number"},
                                                         {"Beneficiary"},
                                                         {"Status"},
                                                         {"Linked by"}},
                                                        rows, "No external account."));
}

std::string transactions_html(request_context& context, const tenant& owner,
                              const std::string& customer_id) {
    transaction_filter filter;
    filter.customer_id = customer_id;
    auto found = list_transactions(context.session(), owner, filter,
                                   page_request{customer_transactions_shown, std::nullopt, true});
    const auto& currencies = context.services.currencies;
    std::vector<std::vector<std::string>> rows;
    for (const auto& item : found.items) {
        rows.push_back(
            {link_html(detail_href("transactions", item.id), item.id), status_html(item.status),
             html_escape(item.type),
             html_escape(format_money(item.sent_amount, item.source_currency, currencies)),
             html_escape(format_money(item.received_amount, item.destination_currency, currencies)),
             html_escape(format_time(item.created_at_ms))});
    }
    std::string out = table_html("Latest transactions",
                                 {{"Transaction"},
                                  {"Status"},
                                  {"Direction"},
                                  {"Sent", true},
                                  {"Received", true},
                                  {"Created"}},
                                 rows, "No transaction.");
    if (found.total_count > 0) {
        out += "<p>" +
               link_html(
                   "/dashboard/transactions?customerId=" + url_encode(customer_id),
                   "All " + std::to_string(found.total_count) + " transactions of this customer") +
               "</p>";
    }
    return section_html("Transactions", out);
}

http_response customer_page(request_context& context) {
    return run_page(context, dashboard_role::viewer, [&](const dashboard_session& who) {
        const std::string& id = context.param(0);
        auto found = find_customer(context.session(), who.owner(), id);
        if (!found) fail(error_code::user_not_found, "no customer " + id);
        std::string body = "<p>" + code_html(found->id) + "</p>" +
                           details_html({
                               {"Name", html_escape(found->full_name.value_or(""))},
                               {"Type", html_escape(found->customer_type)},
                               {"Platform customer id", html_escape(found->platform_customer_id)},
                               {"UMA address", html_escape(found->uma_address)},
                               {"KYC status", status_html(found->kyc_status)},
                               {"Nationality", html_escape(found->nationality.value_or(""))},
                               {"Created", html_escape(format_time(found->created_at_ms))},
                               {"Updated", html_escape(format_time(found->updated_at_ms))},
                               {"Deleted", found->is_deleted ? std::string("yes") : std::string()},
                           }) +
                           internal_accounts_html(context, who, found->id) +
                           external_accounts_html(context, who.owner(), found->id) +
                           transactions_html(context, who.owner(), found->id);
        if (who.can(dashboard_role::developer) && who.env == environment::sandbox) {
            body += "<p>" +
                    link_html("/dashboard/sandbox?customerId=" + url_encode(found->id),
                              "Sandbox tools for this customer") +
                    "</p>";
        }
        body += "<p>" + link_html("/dashboard/customers", "All customers") + "</p>";
        return render_page(who, display_name(*found), body);
    });
}

}  // namespace

void register_dashboard_customer_pages(router& routes) {
    routes.add({.method = http_method::get,
                .pattern = "/dashboard/customers",
                .who = access::public_route,
                .handler = customers_page});
    routes.add({.method = http_method::get,
                .pattern = "/dashboard/customers/{customerId}",
                .who = access::public_route,
                .handler = customer_page});
}

}  // namespace corridor
