// Transactions and quotes: the lists with the filters of GET /transactions and GET /quotes (same
// query names, same readers, same store calls), and a detail page per transaction with its ledger
// postings, its rail operations and every webhook delivery that carried it.
#include "ledger/payments/operator_views.hpp"
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

using options = std::vector<std::pair<std::string, std::string>>;

options options_of(const std::vector<std::string_view>& names) {
    options out;
    for (auto name : names) out.emplace_back(std::string(name), std::string(name));
    return out;
}

std::string status_html(std::string_view status) {
    return "<span class=\"status\">" + html_escape(status) + "</span>";
}

// A list's footer: how many match, and the next page when there is one.
template <class Item>
std::string list_footer(const page<Item>& found, std::string_view target, std::string_view noun) {
    std::string out = "<p class=\"count\">" + std::to_string(found.total_count) + " " +
                      html_escape(noun) + (found.total_count == 1 ? "" : "s") + " match.</p>";
    if (found.has_more) {
        out += "<p>" + link_html(next_page_href(target, found.next_cursor), "Next page") + "</p>";
    }
    return out;
}

std::string transaction_filters(const query_params& query) {
    std::string fields;
    fields += select_field("status", "Status", options_of(transaction_status_names()),
                           shown_value(query, "status"), "Any status");
    fields +=
        select_field("type", "Direction", {{"INCOMING", "Incoming"}, {"OUTGOING", "Outgoing"}},
                     shown_value(query, "type"), "Both");
    fields += text_field("customerId", "Customer id", shown_value(query, "customerId"));
    fields += text_field("platformCustomerId", "Platform customer id",
                         shown_value(query, "platformCustomerId"));
    fields += text_field("senderAccountIdentifier", "Sender account",
                         shown_value(query, "senderAccountIdentifier"));
    fields += text_field("receiverAccountIdentifier", "Receiver account",
                         shown_value(query, "receiverAccountIdentifier"));
    fields += text_field("reference", "Reference", shown_value(query, "reference"));
    fields += text_field("startDate", "From (UTC)", shown_value(query, "startDate"), "date");
    fields += text_field("endDate", "Until (UTC)", shown_value(query, "endDate"), "date");
    fields += order_field(query);
    return filter_form("/dashboard/transactions", "Filter transactions", fields);
}

std::vector<std::string> transaction_row(const transaction_record& item,
                                         const currency_registry& currencies) {
    return {link_html(detail_href("transactions", item.id), item.id),
            status_html(item.status),
            html_escape(item.type),
            html_escape(format_money(item.sent_amount, item.source_currency, currencies)),
            html_escape(format_money(item.received_amount, item.destination_currency, currencies)),
            item.customer_id.empty()
                ? std::string()
                : link_html(detail_href("customers", item.customer_id), item.customer_id),
            html_escape(format_time(item.created_at_ms))};
}

const std::vector<table_column> transaction_columns = {
    {"Transaction"},    {"Status"},   {"Direction"}, {"Sent", true},
    {"Received", true}, {"Customer"}, {"Created"}};

http_response transactions_page(request_context& context) {
    return run_page(context, dashboard_role::viewer, [&](const dashboard_session& who) {
        auto query = filter_query(context.request.target);
        std::string filters = transaction_filters(query);
        try {
            auto filter = read_transaction_filter(query);
            auto request = query.page("Transaction", true);
            auto found = list_transactions(context.session(), who.owner(), filter, request);
            std::vector<std::vector<std::string>> rows;
            for (const auto& item : found.items) {
                rows.push_back(transaction_row(item, context.services.currencies));
            }
            std::string body =
                filters + list_footer(found, context.request.target, "transaction") +
                table_html(list_caption("Transactions", request.descending), transaction_columns,
                           rows, "No transaction matches these filters.");
            return render_page(who, "Transactions", body);
        } catch (const api_error& error) {
            return error_page(who, "Transactions", error, filters);
        }
    });
}

std::string text_of(const view_row& row, const std::string& name) {
    return html_escape(field_text(row, name));
}

std::string time_of(const view_row& row, const std::string& name) {
    auto text = field_text(row, name);
    return text.empty() ? std::string() : html_escape(format_time(std::stoll(text)));
}

std::string money_of(const view_row& row, const currency_registry& currencies) {
    auto amount = field_text(row, "amount");
    if (amount.empty()) return {};
    return html_escape(format_money(std::stoll(amount), field_text(row, "currency"), currencies));
}

std::string postings_html(const payment_view& view, const currency_registry& currencies) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& posting : view.postings) {
        rows.push_back({code_html(field_text(posting, "id")), text_of(posting, "code"),
                        code_html(field_text(posting, "debit_account_id")),
                        code_html(field_text(posting, "credit_account_id")),
                        money_of(posting, currencies), time_of(posting, "created_at_ms")});
    }
    return section_html(
        "Ledger postings",
        table_html("Ledger postings of this transaction",
                   {{"Transfer"}, {"Code"}, {"Debit"}, {"Credit"}, {"Amount", true}, {"Posted"}},
                   rows, "No ledger postings."));
}

std::string rail_operations_html(const payment_view& view, const currency_registry& currencies) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& operation : view.rail_operations) {
        std::string failure = field_text(operation, "failure_reason");
        std::string code = field_text(operation, "rail_reason_code");
        if (!code.empty()) failure = code + (failure.empty() ? "" : ": " + failure);
        rows.push_back({code_html(field_text(operation, "id")), text_of(operation, "rail"),
                        text_of(operation, "direction"),
                        status_html(field_text(operation, "status")),
                        money_of(operation, currencies),
                        code_html(field_text(operation, "rail_reference")), html_escape(failure),
                        text_of(operation, "attempts"), time_of(operation, "updated_at_ms")});
    }
    return section_html(
        "Rail operation",
        table_html("Rail operations of this transaction",
                   {{"Operation"},
                    {"Rail"},
                    {"Direction"},
                    {"Status"},
                    {"Amount", true},
                    {"Rail reference"},
                    {"Failure"},
                    {"Attempts", true},
                    {"Updated"}},
                   rows, "No rail operation: this payment moved inside the ledger."));
}

// A finished event can be sent once more by a developer, through the Webhooks page's resend.
std::string resend_form(const dashboard_session& who, const view_row& event) {
    if (field_text(event, "state") == "PENDING") return {};
    std::string id = field_text(event, "id");
    return "<form class=\"inline\" method=\"post\" action=\"/dashboard/webhooks/" + url_encode(id) +
           "/resend\">" + csrf_input(who) +
           "<button class=\"secondary\" type=\"submit\" aria-label=\"Resend " +
           html_escape(field_text(event, "type")) + " " + html_escape(id) +
           "\">Resend</button></form>";
}

std::string deliveries_html(const dashboard_session& who, const payment_view& view) {
    bool can_resend = who.can(dashboard_role::developer);
    std::vector<table_column> event_columns = {{"Event"},          {"Type"},    {"State"},
                                               {"Attempts", true}, {"Created"}, {"Finished"}};
    if (can_resend) event_columns.push_back({"Actions"});
    std::vector<std::vector<std::string>> events;
    for (const auto& event : view.webhook_events) {
        std::vector<std::string> row = {
            code_html(field_text(event, "id")),      text_of(event, "type"),
            status_html(field_text(event, "state")), text_of(event, "attempts"),
            time_of(event, "created_at_ms"),         time_of(event, "finished_at_ms")};
        if (can_resend) row.push_back(resend_form(who, event));
        events.push_back(std::move(row));
    }
    std::vector<std::vector<std::string>> attempts;
    for (const auto& attempt : view.webhook_attempts) {
        std::string status = field_text(attempt, "response_status");
        attempts.push_back(
            {code_html(field_text(attempt, "event_id")) + " #" + text_of(attempt, "attempt"),
             time_of(attempt, "attempted_at_ms"), text_of(attempt, "url"),
             html_escape(status.empty() ? "no response" : status),
             status_html(field_text(attempt, "outcome")), text_of(attempt, "error"),
             text_of(attempt, "latency_ms")});
    }
    return section_html("Webhook deliveries",
                        table_html("Webhook events carrying this transaction", event_columns,
                                   events, "No webhook event carries this transaction.") +
                            table_html("Delivery attempts",
                                       {{"Attempt"},
                                        {"Time"},
                                        {"Endpoint"},
                                        {"Response", true},
                                        {"Outcome"},
                                        {"Error"},
                                        {"Latency ms", true}},
                                       attempts, "No delivery attempt yet."));
}

std::string transaction_summary(const transaction_record& item,
                                const currency_registry& currencies) {
    auto account = [](const std::string& type, const std::string& id) {
        if (id.empty()) return html_escape(type);
        return html_escape(type) + " " + code_html(id);
    };
    return details_html({
        {"Status", status_html(item.status)},
        {"Direction", html_escape(item.type)},
        {"Sent", html_escape(format_money(item.sent_amount, item.source_currency, currencies))},
        {"Received",
         html_escape(format_money(item.received_amount, item.destination_currency, currencies))},
        {"Fees", html_escape(format_money(item.fees, item.source_currency, currencies))},
        {"Exchange rate", html_escape(item.exchange_rate)},
        {"Customer", item.customer_id.empty()
                         ? std::string()
                         : link_html(detail_href("customers", item.customer_id), item.customer_id)},
        {"Platform customer id", html_escape(item.platform_customer_id)},
        {"Source", account(item.source_type, item.source_account_id)},
        {"Destination", account(item.destination_type, item.destination_account_id)},
        {"Quote", item.quote_id.empty()
                      ? std::string()
                      : link_html(detail_href("quotes", item.quote_id), item.quote_id)},
        {"Reference", html_escape(item.reference)},
        {"Description", html_escape(item.description)},
        {"Failure reason", html_escape(item.failure_reason)},
        {"Created", html_escape(format_time(item.created_at_ms))},
        {"Settled", html_escape(format_time(item.settled_at_ms))},
    });
}

http_response transaction_page(request_context& context) {
    return run_page(context, dashboard_role::viewer, [&](const dashboard_session& who) {
        const std::string& id = context.param(0);
        // The tenant's own look-up first: another platform's (or environment's) id is not found.
        auto found = find_transaction(context.session(), who.owner(), id);
        if (!found) fail(error_code::transaction_not_found, "no transaction " + id);
        auto view = find_payment_view(context.session(), found->id);
        const auto& currencies = context.services.currencies;
        std::string body =
            "<p>" + code_html(found->id) + "</p>" + transaction_summary(*found, currencies);
        if (view) {
            body += postings_html(*view, currencies) + rail_operations_html(*view, currencies) +
                    deliveries_html(who, *view);
        }
        body += "<p>" + link_html("/dashboard/transactions", "All transactions") + "</p>";
        return render_page(who, "Transaction", body);
    });
}

std::string quote_filters(const query_params& query) {
    std::string fields;
    fields += select_field("status", "Status", options_of(quote_status_names()),
                           shown_value(query, "status"), "Any status");
    fields += text_field("customerId", "Customer id", shown_value(query, "customerId"));
    fields +=
        text_field("sendingAccountId", "Sending account", shown_value(query, "sendingAccountId"));
    fields += text_field("receivingAccountId", "Receiving account",
                         shown_value(query, "receivingAccountId"));
    fields += text_field("sendingUmaAddress", "Sending UMA address",
                         shown_value(query, "sendingUmaAddress"));
    fields += text_field("receivingUmaAddress", "Receiving UMA address",
                         shown_value(query, "receivingUmaAddress"));
    fields += text_field("createdAfter", "Created from (UTC)", shown_value(query, "createdAfter"),
                         "date");
    fields += text_field("createdBefore", "Created until (UTC)",
                         shown_value(query, "createdBefore"), "date");
    fields += order_field(query);
    return filter_form("/dashboard/quotes", "Filter quotes", fields);
}

http_response quotes_page(request_context& context) {
    return run_page(context, dashboard_role::viewer, [&](const dashboard_session& who) {
        auto query = filter_query(context.request.target);
        std::string filters = quote_filters(query);
        const auto& currencies = context.services.currencies;
        try {
            auto filter = read_quote_filter(query);
            auto request = query.page("Quote");
            auto found = list_quotes(context.session(), who.owner(), filter, request);
            std::vector<std::vector<std::string>> rows;
            for (const auto& quote : found.items) {
                rows.push_back({link_html(detail_href("quotes", quote.id), quote.id),
                                status_html(quote.status),
                                html_escape(format_money(quote.priced.total_sending,
                                                         quote.sending_currency, currencies)),
                                html_escape(format_money(quote.priced.total_receiving,
                                                         quote.receiving_currency, currencies)),
                                html_escape(format_time(quote.created_at_ms)),
                                html_escape(format_time(quote.expires_at_ms))});
            }
            std::string body = filters + list_footer(found, context.request.target, "quote") +
                               table_html(list_caption("Quotes", request.descending),
                                          {{"Quote"},
                                           {"Status"},
                                           {"Sending", true},
                                           {"Receiving", true},
                                           {"Created"},
                                           {"Expires"}},
                                          rows, "No quote matches these filters.");
            return render_page(who, "Quotes", body);
        } catch (const api_error& error) {
            return error_page(who, "Quotes", error, filters);
        }
    });
}

http_response quote_page(request_context& context) {
    return run_page(context, dashboard_role::viewer, [&](const dashboard_session& who) {
        const std::string& id = context.param(0);
        auto quote = find_quote(context.session(), who.owner(), id);
        if (!quote) fail(error_code::quote_not_found, "no quote " + id);
        const auto& currencies = context.services.currencies;
        auto endpoint = [](const std::string& type, const std::string& account_id) {
            return account_id.empty() ? html_escape(type)
                                      : html_escape(type) + " " + code_html(account_id);
        };
        std::string body =
            "<p>" + code_html(quote->id) + "</p>" +
            details_html({
                {"Status", status_html(quote->status)},
                {"Total sending", html_escape(format_money(quote->priced.total_sending,
                                                           quote->sending_currency, currencies))},
                {"Fees included", html_escape(format_money(quote->priced.fees_included,
                                                           quote->sending_currency, currencies))},
                {"Total receiving",
                 html_escape(format_money(quote->priced.total_receiving, quote->receiving_currency,
                                          currencies))},
                {"Locked side", html_escape(quote->locked_side)},
                {"Source", endpoint(quote->source_type, quote->source_account_id)},
                {"Destination", endpoint(quote->destination_type, quote->destination_account_id)},
                {"Customer", quote->source_customer_id.empty()
                                 ? std::string()
                                 : link_html(detail_href("customers", quote->source_customer_id),
                                             quote->source_customer_id)},
                {"Transaction", quote->transaction_id.empty()
                                    ? std::string()
                                    : link_html(detail_href("transactions", quote->transaction_id),
                                                quote->transaction_id)},
                {"Purpose", html_escape(quote->purpose_of_payment)},
                {"Description", html_escape(quote->description)},
                {"Created", html_escape(format_time(quote->created_at_ms))},
                {"Expires", html_escape(format_time(quote->expires_at_ms))},
            }) +
            "<p>" + link_html("/dashboard/quotes", "All quotes") + "</p>";
        return render_page(who, "Quote", body);
    });
}

}  // namespace

void register_dashboard_transaction_pages(router& routes) {
    routes.add({.method = http_method::get,
                .pattern = "/dashboard/transactions",
                .who = access::public_route,
                .handler = transactions_page});
    routes.add({.method = http_method::get,
                .pattern = "/dashboard/transactions/{transactionId}",
                .who = access::public_route,
                .handler = transaction_page});
    routes.add({.method = http_method::get,
                .pattern = "/dashboard/quotes",
                .who = access::public_route,
                .handler = quotes_page});
    routes.add({.method = http_method::get,
                .pattern = "/dashboard/quotes/{quoteId}",
                .who = access::public_route,
                .handler = quote_page});
}

}  // namespace corridor
