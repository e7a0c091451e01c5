// The overview, /dashboard/ once signed in: balances by currency (the platform's own accounts and
// its customers'), the payments of the last 24 hours by status, webhook health (the backlog and the
// failures) and the rails that move money in this environment.
#include "ledger/book/book.hpp"
#include "ledger/payments/operator_views.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/webhooks/webhook_deliveries.hpp"
#include "rails/rail.hpp"
#include "server/api/app.hpp"
#include "server/api/handler_steps.hpp"
#include "server/api/html.hpp"
#include "server/dashboard/layout.hpp"
#include "server/dashboard/pages/page_kit.hpp"
#include "server/dashboard/pages/pages.hpp"

namespace corridor {
namespace {

constexpr std::int64_t day_ms = 24LL * 3600 * 1000;

std::string balances_section(request_context& context, const tenant& owner) {
    const auto& currencies = context.services.currencies;
    std::vector<std::vector<std::string>> rows;
    for (const auto& item : balances_by_currency(context.session(), owner)) {
        rows.push_back({html_escape(item.currency),
                        html_escape(format_money(item.platform_balance, item.currency, currencies)),
                        html_escape(format_money(item.customer_balance, item.currency, currencies)),
                        std::to_string(item.customer_accounts)});
    }
    return section_html(
        "Balances",
        table_html(
            "Balances by currency",
            {{"Currency"}, {"Platform", true}, {"Customers", true}, {"Customer accounts", true}},
            rows, "No internal accounts yet."));
}

// One count per status, through the list that GET /transactions serves.
std::string payments_section(request_context& context, const tenant& owner) {
    std::int64_t since_ms = context.services.time.now_ms() - day_ms;
    std::vector<std::vector<std::string>> rows;
    std::int64_t total = 0;
    for (auto status : transaction_status_names()) {
        transaction_filter filter;
        filter.status = std::string(status);
        filter.start_ms = since_ms;
        auto found = list_transactions(context.session(), owner, filter,
                                       page_request{1, std::nullopt, true});
        if (found.total_count == 0) continue;
        total += found.total_count;
        std::string href = "/dashboard/transactions?status=" + std::string(status);
        rows.push_back({link_html(href, status), std::to_string(found.total_count)});
    }
    return section_html(
        "Payments in the last 24 hours",
        "<p>" + std::to_string(total) + " in all.</p>" +
            table_html("Payments in the last 24 hours by status", {{"Status"}, {"Payments", true}},
                       rows, "No payment in the last 24 hours."));
}

std::int64_t attempts_with_outcome(request_context& context, const tenant& owner,
                                   std::string outcome) {
    delivery_attempt_filter filter;
    filter.outcome = std::move(outcome);
    return list_delivery_attempts(context.session(), owner, filter,
                                  page_request{1, std::nullopt, true})
        .total_count;
}

std::string webhooks_section(request_context& context, const tenant& owner) {
    std::string pending = "0", failing = "0", oldest;
    for (const auto& row : webhook_backlog_view(context.session(), owner.platform_id)) {
        if (field_text(row, "environment") != owner.env_name()) continue;
        pending = field_text(row, "pending");
        failing = field_text(row, "failing");
        auto created = field_text(row, "oldest_created_at_ms");
        if (!created.empty()) oldest = format_time(std::stoll(created));
    }
    std::vector<std::pair<std::string, std::string>> items = {
        {"Events waiting for delivery", html_escape(pending)},
        {"Of which failed at least once", html_escape(failing)},
        {"Oldest waiting since", html_escape(oldest)},
        {"Attempts to be retried",
         std::to_string(attempts_with_outcome(context, owner, "RETRY_SCHEDULED"))},
        {"Events given up", std::to_string(attempts_with_outcome(context, owner, "GAVE_UP"))},
    };
    return section_html("Webhook health", details_html(items));
}

// The rails that serve each account type in this environment, as payouts choose them.
std::string rails_section(request_context& context, const tenant& owner) {
    const auto& registry = context.services.rails;
    std::string env(owner.env_name());
    std::vector<std::vector<std::string>> rows;
    for (const auto& rail : registry.all()) {
        std::string types;
        for (const auto& type : rail->account_types()) {
            if (registry.for_account_type(env, type) != rail.get()) continue;
            types += (types.empty() ? "" : ", ") + type;
        }
        if (types.empty()) continue;
        rows.push_back(
            {html_escape(rail->name()), html_escape(rail->version()), html_escape(types)});
    }
    return section_html(
        "Rails in use",
        table_html("Rails moving money in this environment",
                   {{"Rail"}, {"Version"}, {"Account types"}}, rows,
                   "No rail serves this environment: payments stay inside the ledger."));
}

http_response overview_page(request_context& context) {
    return run_page(context, dashboard_role::viewer, [&](const dashboard_session& who) {
        tenant owner = who.owner();
        std::string body = balances_section(context, owner) + payments_section(context, owner) +
                           webhooks_section(context, owner) + rails_section(context, owner);
        return render_page(who, "Overview", body);
    });
}

}  // namespace

void register_dashboard_overview_page(router& routes) {
    routes.add({.method = http_method::get,
                .pattern = "/dashboard/",
                .who = access::public_route,
                .handler = overview_page});
}

}  // namespace corridor
