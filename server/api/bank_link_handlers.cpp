// The bank-link flow: POST /bank-link/link-tokens (the platform), the hosted page at
// {public_base_url}/bank-link/{linkToken} (the person: GET shows the banks, POST picks an account
// and shows the public token), and POST /bank-link/callback/{linkToken}, which the page's form or
// the platform calls with the public token. In the sandbox, POST /sandbox/bank-link/public-token
// stands in for the page.
//
// The page and the callback carry no platform credentials: the link token in the path is the
// credential (256 random bits, single use, expiring), as the callback URL handed to the platform is
// meant to be posted to from wherever the bank-linking UI ran.
#include <boost/json.hpp>

#include "ledger/customers/bank_link_store.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/base/time_format.hpp"
#include "server/api/app.hpp"
#include "server/api/bank_link_page.hpp"
#include "server/api/errors.hpp"
#include "server/api/handler_steps.hpp"

namespace corridor {
namespace json = boost::json;

[[noreturn]] void fail_link(bank_link_error error) {
    switch (error) {
        case bank_link_error::customer_not_found:
            fail(error_code::user_not_found, "no such customer",
                 json::object{{"field", "customerId"}});
        case bank_link_error::customer_deleted:
            fail(error_code::customer_deleted, "the customer is deleted");
        case bank_link_error::token_not_found:
            fail(error_code::link_token_not_found, "this link token is unknown or has expired");
        case bank_link_error::token_used:
            fail(error_code::link_token_used, "this link token has already been used");
        case bank_link_error::public_token_mismatch:
            fail_field("publicToken", "is not the public token issued for this link");
        case bank_link_error::unknown_bank_account:
            fail_field("accountId", "is not an account of the linked bank");
        case bank_link_error::duplicate_account:
            fail(error_code::external_account_exists,
                 "this bank account is already linked for the customer");
    }
    fail(error_code::internal_error, "internal error");
}

namespace {

std::string callback_path(std::string_view link_token) {
    return versioned("/bank-link/callback/") + std::string(link_token);
}

std::string public_url(const app_services& services, const std::string& path) {
    std::string base = services.config.public_base_url;
    while (base.ends_with('/')) base.pop_back();
    return base + path;
}

bank_link_services link_services(request_context& context) {
    return {context.services.ids, context.services.random, context.services.time};
}

http_response html_response(int status, std::string body) {
    http_response response;
    response.status = status;
    response.body = std::move(body);
    response.content_type = "text/html; charset=utf-8";
    // The link token is in the address: keep it out of caches and referrers, and the page out of
    // frames.
    response.headers.emplace_back("Cache-Control", "no-store");
    response.headers.emplace_back("Referrer-Policy", "no-referrer");
    response.headers.emplace_back("X-Content-Type-Options", "nosniff");
    response.headers.emplace_back(
        "Content-Security-Policy",
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'");
    return response;
}

bool is_form_post(const http_request& request) {
    auto type = request.header("content-type");
    if (!type) return false;
    std::string media(type->substr(0, type->find(';')));
    for (auto& c : media) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return media == "application/x-www-form-urlencoded";
}

// A form body read with the query-string decoder ('+' is not a space there; no field we read has
// one).
query_params form_fields(const http_request& request) {
    if (request.body.size() > 4096) fail_field("body", "is too large for this form");
    return query_params("/?" + request.body);
}

// The JSON bodies of the bank-link routes as the interface defines them.
constexpr field_shape link_token_shape[] = {{"customerId", json_kind::string}};
constexpr field_shape callback_shape[] = {{"publicToken", json_kind::string},
                                          {"accountId", json_kind::string}};
constexpr field_shape sandbox_public_token_shape[] = {{"linkToken", json_kind::string},
                                                      {"bankId", json_kind::string},
                                                      {"accountId", json_kind::string}};

http_response create_link_token_handler(request_context& context) {
    auto body = parse_json_body(context.request);
    check_shape(body, link_token_shape);
    json_fields fields(body);
    auto customer_id = fields.required_string("customerId", 128);
    auto ttl_ms = context.services.config.bank_link_token_ttl_seconds * 1000;
    auto issued = create_link_token(context.session(), link_services(context), context.owner(),
                                    customer_id, ttl_ms);
    if (!issued) fail_link(issued.error());
    const auto& token = issued->link_token;
    json::object out{{"linkToken", token},
                     {"expiration", format_timestamp_ms(issued->expires_at_ms)},
                     {"callbackUrl", public_url(context.services, callback_path(token))},
                     {"linkUrl", public_url(context.services, "/bank-link/" + token)}};
    if (!context.request.request_id.empty()) out["requestId"] = context.request.request_id;
    return json_response(200, out);
}

http_response problem_page(const api_error& error) {
    int status = http_status_of(error.code);
    if (error.code == error_code::link_token_not_found) {
        return html_response(status, render_problem_page("Link expired",
                                                         "This link is not valid or has expired. "
                                                         "Ask for a new one where you started."));
    }
    if (error.code == error_code::link_token_used) {
        return html_response(
            status, render_problem_page("Link already used", "This link has already been used."));
    }
    return html_response(status, render_problem_page("Something is wrong", error.message));
}

http_response show_picker(request_context& context) {
    auto state = find_link_token(context.session(), context.services.time, context.param(0));
    if (!state) return problem_page({error_code::link_token_not_found, "", {}});
    if (state->used) return problem_page({error_code::link_token_used, "", {}});
    return html_response(200, render_bank_picker_page(state->owner.env == environment::sandbox));
}

http_response pick_account(request_context& context) {
    try {
        auto form = form_fields(context.request);
        auto choice = form.get("account");
        if (!choice || choice->find(':') == std::string::npos)
            fail_field("account", "choose an account");
        std::string bank_id = choice->substr(0, choice->find(':'));
        std::string account_id = choice->substr(choice->find(':') + 1);
        const std::string& link_token = context.param(0);
        auto issued = issue_public_token(context.session(), link_services(context), link_token,
                                         bank_id, account_id);
        if (!issued) fail_link(issued.error());
        const test_bank* bank = find_test_bank(bank_id);
        std::string_view account_name;
        for (const auto& account : bank->accounts) {
            if (account.id == account_id) account_name = account.name;
        }
        return html_response(200, render_public_token_page(bank->name, account_name, issued.value(),
                                                           account_id, callback_path(link_token)));
    } catch (const api_error& error) {
        return problem_page(error);
    }
}

http_response callback_handler(request_context& context) {
    bool form = is_form_post(context.request);
    try {
        std::optional<std::string> public_token, account_id;
        if (form) {
            auto fields = form_fields(context.request);
            public_token = fields.get("publicToken");
            account_id = fields.get("accountId");
        } else {
            auto body = parse_json_body(context.request);
            check_shape(body, callback_shape);
            json_fields fields(body);
            public_token = fields.optional_string("publicToken", 256);
            account_id = fields.optional_string("accountId", 128);
        }
        if (!public_token || public_token->empty()) fail_field("publicToken", "is required");
        if (account_id && account_id->empty()) account_id.reset();
        auto linked = complete_bank_link(
            context.session(), link_services(context), context.param(0), *public_token, account_id,
            context.services.config.external_accounts_screening_delay_ms);
        if (!linked) fail_link(linked.error());
        if (form) return html_response(202, render_linked_page(linked->id));
        return json_response(202, render_external_account(linked.value()));
    } catch (const api_error& error) {
        if (form) return problem_page(error);
        throw;
    }
}

// POST /sandbox/bank-link/public-token: what the hosted page does when a person picks an account,
// without a browser, so that a platform's own tests can link accounts. The link token must be one
// of the caller's (another tenant's, or production's, is not found); the bank and account default
// to the first test bank's checking account.
http_response sandbox_public_token_handler(request_context& context) {
    auto body = parse_json_body(context.request);
    check_shape(body, sandbox_public_token_shape);
    json_fields fields(body);
    std::string link_token = fields.required_string("linkToken", 256);
    std::string bank_id =
        fields.optional_string("bankId", 128).value_or(std::string(test_banks().front().id));
    const test_bank* bank = find_test_bank(bank_id);
    if (bank == nullptr) fail_field("bankId", "is not a test bank");
    std::string account_id =
        fields.optional_string("accountId", 128).value_or(std::string(bank->accounts.front().id));
    auto state = find_link_token(context.session(), context.services.time, link_token);
    if (!state || state->owner != context.owner()) fail_link(bank_link_error::token_not_found);
    if (state->used) fail_link(bank_link_error::token_used);
    auto issued = issue_public_token(context.session(), link_services(context), link_token, bank_id,
                                     account_id);
    if (!issued) fail_link(issued.error());
    return json_response(
        200,
        json::object{{"publicToken", issued.value()},
                     {"bankId", bank_id},
                     {"accountId", account_id},
                     {"callbackUrl", public_url(context.services, callback_path(link_token))}});
}

}  // namespace

void register_bank_link_routes(router& routes) {
    routes.add({.method = http_method::post,
                .pattern = versioned("/sandbox/bank-link/public-token"),
                .permission = permission_manage,
                .sandbox_only = true,
                .on_ledger_writer = true,
                .handler = sandbox_public_token_handler});
    routes.add({.method = http_method::post,
                .pattern = versioned("/bank-link/link-tokens"),
                .permission = permission_manage,
                .on_ledger_writer = true,
                .handler = create_link_token_handler});
    routes.add({.method = http_method::post,
                .pattern = versioned("/bank-link/callback/{linkToken}"),
                .who = access::public_route,
                .on_ledger_writer = true,
                .handler = callback_handler});
    routes.add({.method = http_method::get,
                .pattern = "/bank-link/{linkToken}",
                .who = access::public_route,
                .handler = show_picker});
    routes.add({.method = http_method::post,
                .pattern = "/bank-link/{linkToken}",
                .who = access::public_route,
                .on_ledger_writer = true,
                .handler = pick_account});
}

}  // namespace corridor
