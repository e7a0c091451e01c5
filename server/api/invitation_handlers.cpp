// UMA invitations: POST /invitations (a customer of the platform invites someone), GET
// /invitations/{code}, POST /invitations/{code}/claim, POST /invitations/{code}/cancel, and the
// hosted page at {public_base_url}/invite/{code} that the invitation's url opens.
//
// Who claims: the claim body names the invitee by UMA address (`inviteeUma`, any UMA provider's
// address, not necessarily a customer here). Through the API the inviter's platform claims (its
// app collected the invitee's address); through the hosted page the invitee types it in. Either
// way the claim writes the INVITATION_CLAIMED event for the inviter's platform in its transaction.
//
// Tenancy: an invitation belongs to the platform environment that created it; another tenant's
// code reads as INVITATION_NOT_FOUND, except cancel by another platform of the same environment,
// which the interface answers 403. The page takes no credentials: the unguessable code is one.
#include <boost/json.hpp>

#include "ledger/customers/customer_store.hpp"
#include "ledger/store/database.hpp"
#include "ledger/customers/invitation_store.hpp"
#include "ledger/payments/payment_json.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/base/time_format.hpp"
#include "ledger/base/uma_address.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"
#include "server/api/invitation_page.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

constexpr std::size_t first_name_chars_max = 100;
constexpr std::int64_t amount_max = 9'000'000'000'000'000;
constexpr std::int64_t expiry_horizon_ms = 366LL * 24 * 3600 * 1000;  // a year ahead at most

std::string invitation_url(const app_services& services, const std::string& code) {
    std::string base = services.config.public_base_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    return base + "/invite/" + code;
}

json::object render_invitation(const invitation& item, const app_services& services) {
    json::object out{{"code", item.code},
                     {"createdAt", format_timestamp_ms(item.created_at_ms)},
                     {"url", invitation_url(services, item.code)},
                     {"inviterUma", item.inviter_uma},
                     {"status", item.status}};
    if (item.claimed_at_ms) out["claimedAt"] = format_timestamp_ms(*item.claimed_at_ms);
    if (item.expires_at_ms) out["expiresAt"] = format_timestamp_ms(*item.expires_at_ms);
    if (item.invitee_uma) out["inviteeUma"] = *item.invitee_uma;
    if (item.first_name) out["firstName"] = *item.first_name;
    if (item.amount_to_send) {
        out["amountToSend"] =
            json::object{{"amount", *item.amount_to_send},
                         {"currency", render_currency(services.currencies, *item.currency)}};
    }
    return out;
}

invitation_services services_of(request_context& context) {
    return {context.services.ids, context.services.random, context.services.time};
}

[[noreturn]] void fail_invitation(invitation_error error) {
    switch (error) {
        case invitation_error::not_found:
            fail(error_code::invitation_not_found, "no such invitation");
        case invitation_error::other_platform:
            fail(error_code::forbidden,
                 "only the platform that created the invitation can cancel it");
        case invitation_error::already_claimed:
            fail(error_code::invitation_already_claimed, "the invitation has already been claimed");
        case invitation_error::cancelled:
            fail(error_code::invitation_cancelled, "the invitation has been cancelled");
        case invitation_error::expired:
            fail(error_code::invitation_expired, "the invitation has expired");
        case invitation_error::self_claim:
            fail_field("inviteeUma", "cannot be the inviter's own address");
    }
    fail(error_code::internal_error, "internal error");
}

std::string read_uma(const json_fields& fields, std::string_view key) {
    auto text = fields.required_string(key, 256);
    auto parsed = parse_uma_address(text);
    if (!parsed) {
        fail(error_code::invalid_uma_address,
             fields.path(key) + ": must be an UMA address $user@domain",
             json::object{{"field", fields.path(key)}});
    }
    return parsed->text();
}

// The inviter: a customer of this platform environment, not deleted.
const customer find_inviter(request_context& context, const std::string& uma) {
    customer_filter filter;
    filter.uma_address = uma;
    page_request one;
    one.limit = 1;
    auto found = list_customers(context.session(), context.owner(), filter, one);
    if (found.items.empty()) {
        fail(error_code::invalid_uma_address,
             "inviterUma: is not the UMA address of a customer of this platform",
             json::object{{"field", "inviterUma"}});
    }
    return found.items.front();
}

// amountToSend is in minor units of `amountToSendCurrency` (a Corridor addition), by default the
// first currency the platform has enabled for OUTGOING payments: the inviter sends it later.
std::string amount_currency(request_context& context, const json_fields& fields,
                            std::int64_t amount) {
    auto config = load_platform_config(context.session(), context.owner());
    if (!config) fail(error_code::internal_error, "the platform has no configuration");
    auto code = fields.optional_string("amountToSendCurrency", 8);
    const supported_currency* terms = nullptr;
    if (code) {
        if (!is_currency_code_shape(*code) || !context.services.currencies.find(*code)) {
            fail(error_code::invalid_currency, "amountToSendCurrency: unknown currency " + *code,
                 json::object{{"field", "amountToSendCurrency"}});
        }
        terms = find_supported_currency(*config, *code);
    } else {
        for (const auto& item : config->supported_currencies) {
            if (enabled_for(item, "OUTGOING")) {
                terms = &item;
                break;
            }
        }
    }
    if (!terms || !enabled_for(*terms, "OUTGOING")) {
        fail(error_code::currency_not_enabled,
             "the platform has not enabled " + code.value_or(std::string("any currency")) +
                 " for outgoing payments",
             json::object{{"field", "amountToSendCurrency"}});
    }
    if (amount < terms->min_amount || amount > terms->max_amount) {
        fail(
            error_code::amount_out_of_range,
            "amountToSend must be between " + std::to_string(terms->min_amount) + " and " +
                std::to_string(terms->max_amount) + " " + terms->currency_code,
            json::object{
                {"field", "amountToSend"}, {"min", terms->min_amount}, {"max", terms->max_amount}});
    }
    return terms->currency_code;
}

// Every field of POST /invitations, type-checked even when another decides it is not read (the
// currency of an amount that is not given).
constexpr field_shape invitation_shape[] = {{"inviterUma", json_kind::string},
                                            {"firstName", json_kind::string},
                                            {"amountToSend", json_kind::integer},
                                            {"amountToSendCurrency", json_kind::string},
                                            {"expiresAt", json_kind::string}};

http_response create_handler(request_context& context) {
    auto body = parse_json_body(context.request);
    check_shape(body, invitation_shape);
    json_fields fields(body);
    new_invitation request;
    request.inviter_uma = read_uma(fields, "inviterUma");
    request.first_name = fields.optional_string("firstName", first_name_chars_max);
    if (request.first_name && request.first_name->find_first_not_of(" \t") == std::string::npos) {
        fail_field("firstName", "must not be blank");
    }
    request.amount_to_send = fields.optional_int("amountToSend", 1, amount_max);
    if (auto expires = fields.optional_string("expiresAt", 64)) {
        auto ms = parse_timestamp_ms(*expires);
        if (!ms)
            fail_field("expiresAt", "must be an ISO 8601 date-time such as 2025-10-13T00:00:00Z");
        auto now_ms = context.services.time.now_ms();
        if (*ms <= now_ms) fail_field("expiresAt", "must be in the future");
        if (*ms > now_ms + expiry_horizon_ms) fail_field("expiresAt", "must be within a year");
        request.expires_at_ms = *ms;
    }
    auto inviter = find_inviter(context, request.inviter_uma);
    request.inviter_customer_id = inviter.id;
    if (request.amount_to_send) {
        request.currency = amount_currency(context, fields, *request.amount_to_send);
    }
    invitation created;
    {
        write_transaction transaction(context.session());
        created =
            create_invitation(context.session(), services_of(context), context.owner(), request);
        transaction.commit();
    }
    return json_response(201, render_invitation(created, context.services));
}

http_response get_handler(request_context& context) {
    auto found = find_invitation(context.session(), context.services.time, context.owner(),
                                 context.param(0));
    if (!found) fail_invitation(invitation_error::not_found);
    return json_response(200, render_invitation(*found, context.services));
}

// Claims in one transaction with its event; the payload is the claimed invitation.
result<invitation, invitation_error> claim(request_context& context, const tenant& owner,
                                           const std::string& code, const std::string& invitee) {
    write_transaction transaction(context.session());
    const app_services& services = context.services;
    auto claimed = claim_invitation(
        context.session(), services_of(context), owner, code, invitee,
        [&services](const invitation& item) {
            return json::serialize(json::object{{"invitation", render_invitation(item, services)}});
        });
    if (claimed) transaction.commit();
    return claimed;
}

constexpr field_shape claim_shape[] = {{"inviteeUma", json_kind::string}};

http_response claim_handler(request_context& context) {
    auto body = parse_json_body(context.request);
    check_shape(body, claim_shape);
    json_fields fields(body);
    auto invitee = read_uma(fields, "inviteeUma");
    auto claimed = claim(context, context.owner(), context.param(0), invitee);
    if (!claimed) fail_invitation(claimed.error());
    return json_response(200, render_invitation(claimed.value(), context.services));
}

http_response cancel_handler(request_context& context) {
    std::optional<result<invitation, invitation_error>> cancelled;
    {
        write_transaction transaction(context.session());
        cancelled = cancel_invitation(context.session(), context.services.time, context.owner(),
                                      context.param(0));
        if (*cancelled) transaction.commit();
    }
    if (!*cancelled) fail_invitation(cancelled->error());
    return json_response(200, render_invitation(cancelled->value(), context.services));
}

// The page carries the code in its address: nothing loads from elsewhere, no Referer leaks it.
http_response html_response(int status, std::string body) {
    http_response response;
    response.status = status;
    response.content_type = "text/html; charset=utf-8";
    response.body = std::move(body);
    response.headers.emplace_back("Cache-Control", "no-store");
    response.headers.emplace_back("Referrer-Policy", "no-referrer");
    response.headers.emplace_back("X-Content-Type-Options", "nosniff");
    response.headers.emplace_back(
        "Content-Security-Policy",
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'");
    return response;
}

// The page for an invitation that cannot be claimed any more, or nullopt while it is PENDING.
std::optional<http_response> closed_page(const std::optional<invitation>& found) {
    if (!found) {
        return html_response(404, render_invitation_message(
                                      "Invitation not found",
                                      "This invitation link is not valid. Check the link you were "
                                      "sent."));
    }
    if (found->status == "CLAIMED")
        return html_response(410, render_invitation_claimed_page(*found, false));
    if (found->status == "CANCELLED") {
        return html_response(410, render_invitation_message(
                                      "Invitation cancelled",
                                      "The person who invited you has cancelled this invitation."));
    }
    if (found->status == "EXPIRED") {
        return html_response(
            410, render_invitation_message("Invitation expired",
                                           "This invitation has expired. Ask for a new one."));
    }
    return std::nullopt;
}

http_response page_handler(request_context& context) {
    auto found =
        find_invitation_by_code(context.session(), context.services.time, context.param(0));
    if (auto closed = closed_page(found)) return std::move(*closed);
    return html_response(
        200, render_invitation_page(*found, context.services.currencies, std::nullopt, ""));
}

http_response page_claim_handler(request_context& context) {
    auto found =
        find_invitation_by_code(context.session(), context.services.time, context.param(0));
    if (auto closed = closed_page(found)) return std::move(*closed);
    if (context.request.body.size() > 4096) {
        return html_response(413, render_invitation_message("Too large", "The form is too large."));
    }
    // Form encoding writes a space as '+', which the query decoder keeps; no UMA address has one.
    query_params form("/?" + context.request.body);
    std::string entered = form.get("inviteeUma").value_or("");
    while (!entered.empty() && (entered.back() == ' ' || entered.back() == '+')) entered.pop_back();
    auto parsed = parse_uma_address(entered);
    if (!parsed) {
        return html_response(
            400, render_invitation_page(*found, context.services.currencies,
                                        "Enter an UMA address like $you@example.com.", entered));
    }
    auto claimed = claim(context, found->owner, found->code, parsed->text());
    if (!claimed) {
        if (claimed.error() == invitation_error::self_claim) {
            return html_response(
                400, render_invitation_page(*found, context.services.currencies,
                                            "That is the address of the person who invited you.",
                                            entered));
        }
        // Claimed, cancelled or expired since the page was read.
        auto now = find_invitation_by_code(context.session(), context.services.time, found->code);
        if (auto closed = closed_page(now)) return std::move(*closed);
        return html_response(
            409, render_invitation_message("Try again", "The invitation changed; reload it."));
    }
    return html_response(200, render_invitation_claimed_page(claimed.value(), true));
}

}  // namespace

void register_invitation_routes(router& routes) {
    routes.add({.method = http_method::post,
                .pattern = versioned("/invitations"),
                .permission = permission_manage,
                .handler = create_handler});
    routes.add({.method = http_method::get,
                .pattern = versioned("/invitations/{invitationCode}"),
                .permission = permission_view,
                .handler = get_handler});
    routes.add({.method = http_method::post,
                .pattern = versioned("/invitations/{invitationCode}/claim"),
                .permission = permission_manage,
                .handler = claim_handler});
    routes.add({.method = http_method::post,
                .pattern = versioned("/invitations/{invitationCode}/cancel"),
                .permission = permission_manage,
                .handler = cancel_handler});
    routes.add({.method = http_method::get,
                .pattern = "/invite/{invitationCode}",
                .who = access::public_route,
                .handler = page_handler});
    routes.add({.method = http_method::post,
                .pattern = "/invite/{invitationCode}",
                .who = access::public_route,
                .handler = page_claim_handler});
}

}  // namespace corridor
