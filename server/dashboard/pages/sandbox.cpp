// Sandbox tools (sandbox only, developer and admin): fund an internal account, simulate an
// incoming UMA payment, link a test bank account. Each form is turned into the body of its sandbox
// API route and handled by the same step (server/api/handler_steps.hpp); the bank link makes the
// calls the hosted bank-link page and its callback make, one after the other.
#include <boost/json.hpp>
#include <charconv>

#include "ledger/customers/bank_link_store.hpp"
#include "ledger/book/book.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"
#include "server/api/handler_steps.hpp"
#include "server/api/html.hpp"
#include "server/dashboard/layout.hpp"
#include "server/dashboard/pages/page_kit.hpp"
#include "server/dashboard/pages/pages.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

// As the API's sandbox routes with production credentials: refused.
void require_sandbox(const dashboard_session& who) {
    if (who.env != environment::sandbox) {
        fail(error_code::forbidden, "sandbox tools are only available in the sandbox environment");
    }
}

std::string post_form(std::string_view action, const dashboard_session& who,
                      std::string_view legend, std::string_view fields_html,
                      std::string_view button) {
    return "<form method=\"post\" action=\"" + html_escape(action) + "\">" + csrf_input(who) +
           "<fieldset><legend>" + html_escape(legend) + "</legend>" + std::string(fields_html) +
           submit_button(button) + "</fieldset></form>";
}

std::string fund_form(const dashboard_session& who, const query_params& query) {
    return post_form("/dashboard/sandbox/fund", who, "Fund an internal account",
                     text_field("accountId", "Internal account id", shown_value(query, "accountId"),
                                "text", "InternalAccount:…, from a customer's page") +
                         text_field("amount", "Amount", "", "text", "in the account's minor units"),
                     "Fund the account");
}

std::string uma_form(const dashboard_session& who, const query_params& query) {
    return post_form(
        "/dashboard/sandbox/uma-receive", who, "Simulate an incoming UMA payment",
        text_field("senderUmaAddress", "Sender UMA address", "$success.usd@sandbox.example", "text",
                   "$success.<currency>, $pending.long.<currency>, $fail.compliance.<currency> or "
                   "$non.existent.<currency> at any domain") +
            text_field("customerId", "Receiving customer id", shown_value(query, "customerId"),
                       "text", "or give the receiver's UMA address", "uma") +
            text_field("receiverUmaAddress", "Receiver UMA address", "") +
            text_field("receivingCurrencyCode", "Currency received", "USD") +
            text_field("receivingCurrencyAmount", "Amount received", "", "text", "in minor units"),
        "Simulate the payment");
}

std::string bank_form(const dashboard_session& who, const query_params& query) {
    std::vector<std::pair<std::string, std::string>> accounts;
    for (const auto& bank : test_banks()) {
        for (const auto& account : bank.accounts) {
            accounts.emplace_back(std::string(bank.id) + ":" + std::string(account.id),
                                  std::string(bank.name) + ", " + std::string(account.name));
        }
    }
    return post_form("/dashboard/sandbox/bank-link", who, "Link a test bank account",
                     text_field("customerId", "Customer id", shown_value(query, "customerId"),
                                "text", {}, "bank") +
                         select_field("account", "Test bank account", accounts,
                                      accounts.empty() ? "" : accounts.front().first),
                     "Link the account");
}

std::string tools_html(const dashboard_session& who, const query_params& query) {
    return fund_form(who, query) + uma_form(who, query) + bank_form(who, query);
}

http_response sandbox_page(request_context& context) {
    return run_page(context, dashboard_role::developer, [&](const dashboard_session& who) {
        require_sandbox(who);
        auto query = filter_query(context.request.target);
        std::string body;
        if (auto funded = shown_value(query, "funded"); !funded.empty()) {
            auto account = find_account(context.session(), who.owner(), funded);
            if (account) {
                body += notice_html("Funded " + funded + ": the balance is now " +
                                    format_money(account->balance(), account->currency,
                                                 context.services.currencies) +
                                    ".");
            }
        }
        body += tools_html(who, query);
        return render_page(who, "Sandbox tools", body);
    });
}

// An integer form field as JSON, or its text for the API's reader to refuse naming it.
json::value integer_value(const std::string& text) {
    std::int64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc() && end == text.data() + text.size() && !text.empty()) return value;
    return json::value(text);
}

// A failed tool shows the tools again under the error.
template <class Act>
http_response run_tool(request_context& context, Act act) {
    return run_form_post(context, dashboard_role::developer,
                         [&](const dashboard_session& who, const form_fields& form) {
                             require_sandbox(who);
                             try {
                                 return act(who, form);
                             } catch (const api_error& error) {
                                 return error_page(
                                     who, "Sandbox tools", error,
                                     tools_html(who, filter_query("/dashboard/sandbox")));
                             }
                         });
}

http_response fund_tool(request_context& context) {
    return run_tool(context, [&](const dashboard_session& who, const form_fields& form) {
        auto account_id = form_value(form, "accountId");
        if (account_id.empty()) fail_field("accountId", "is required");
        json::object body{{"amount", integer_value(form_value(form, "amount"))}};
        auto funded = sandbox_fund_account(context, account_id, body);
        record_dashboard_action(context, who, "sandbox.fund",
                                funded.id + " " + form_value(form, "amount"));
        return redirect_after_post("/dashboard/sandbox?funded=" + url_encode(funded.id));
    });
}

http_response uma_receive_tool(request_context& context) {
    return run_tool(context, [&](const dashboard_session& who, const form_fields& form) {
        json::object body{{"senderUmaAddress", form_value(form, "senderUmaAddress")},
                          {"receivingCurrencyCode", form_value(form, "receivingCurrencyCode")},
                          {"receivingCurrencyAmount",
                           integer_value(form_value(form, "receivingCurrencyAmount"))}};
        for (const char* name : {"customerId", "receiverUmaAddress"}) {
            if (auto value = form_value(form, name); !value.empty()) body[name] = value;
        }
        auto transaction = sandbox_receive_uma(context, body);
        record_dashboard_action(context, who, "sandbox.uma_receive", transaction.id);
        return redirect_after_post(detail_href("transactions", transaction.id));
    });
}

http_response bank_link_tool(request_context& context) {
    return run_tool(context, [&](const dashboard_session& who, const form_fields& form) {
        auto customer_id = form_value(form, "customerId");
        if (customer_id.empty()) fail_field("customerId", "is required");
        auto choice = form_value(form, "account");
        auto colon = choice.find(':');
        if (colon == std::string::npos) fail_field("account", "choose a test bank account");
        auto& services = context.services;
        bank_link_services link{services.ids, services.random, services.time};
        auto issued = create_link_token(context.session(), link, who.owner(), customer_id,
                                        services.config.bank_link_token_ttl_seconds * 1000);
        if (!issued) fail_link(issued.error());
        auto public_token = issue_public_token(context.session(), link, issued->link_token,
                                               choice.substr(0, colon), choice.substr(colon + 1));
        if (!public_token) fail_link(public_token.error());
        auto linked =
            complete_bank_link(context.session(), link, issued->link_token, public_token.value(),
                               std::nullopt, services.config.external_accounts_screening_delay_ms);
        if (!linked) fail_link(linked.error());
        record_dashboard_action(context, who, "sandbox.bank_link", linked->id);
        return redirect_after_post(detail_href("customers", customer_id));
    });
}

}  // namespace

void register_dashboard_sandbox_pages(router& routes) {
    routes.add({.method = http_method::get,
                .pattern = "/dashboard/sandbox",
                .who = access::public_route,
                .handler = sandbox_page});
    // Money and ledger rows: on the ledger writer, as the sandbox API routes.
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/sandbox/fund",
                .who = access::public_route,
                .on_ledger_writer = true,
                .handler = fund_tool});
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/sandbox/uma-receive",
                .who = access::public_route,
                .on_ledger_writer = true,
                .handler = uma_receive_tool});
    routes.add({.method = http_method::post,
                .pattern = "/dashboard/sandbox/bank-link",
                .who = access::public_route,
                .on_ledger_writer = true,
                .handler = bank_link_tool});
}

}  // namespace corridor
