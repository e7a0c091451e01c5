// Same-currency transfers between an internal account and an external account, through a rail:
// POST /transfer-out (internal -> external) and POST /transfer-in (external -> internal, a pull).
// Each begins the transfer in one ledger command and answers 201 with the PENDING transaction; the
// payment engine completes or fails it, and a failed transfer-out is refunded.
#include <boost/json.hpp>

#include "rails/payment_engine.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"
#include "ledger/payments/payment_json.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

// The interface's bound on amounts (lockedCurrencyAmount).
constexpr std::int64_t transfer_amount_max = 9'000'000'000'000'000;

struct transfer_body {
    std::string source_account_id, destination_account_id, description;
    std::int64_t amount = 0;
};

// Every field of the transfer bodies the interface defines (the docs' examples add a currency
// to each side; it is checked too, and otherwise ignored).
constexpr field_shape transfer_side_shape[] = {{"accountId", json_kind::string},
                                               {"currency", json_kind::string}};
constexpr field_shape transfer_shape[] = {{"source", json_kind::object, transfer_side_shape},
                                          {"destination", json_kind::object, transfer_side_shape},
                                          {"amount", json_kind::integer},
                                          {"description", json_kind::string}};

transfer_body read_transfer_body(const json::object& body) {
    check_shape(body, transfer_shape);
    json_fields fields(body);
    transfer_body out;
    const json::object* source = fields.optional_object("source");
    if (!source) fail_field("source", "is required");
    out.source_account_id = json_fields(*source, "source").required_string("accountId", 128);
    const json::object* destination = fields.optional_object("destination");
    if (!destination) fail_field("destination", "is required");
    out.destination_account_id =
        json_fields(*destination, "destination").required_string("accountId", 128);
    out.amount = fields.required_int("amount", 1, transfer_amount_max);
    out.description = fields.optional_string("description", 1024).value_or("");
    return out;
}

[[noreturn]] void fail_rail_payment(const rail_payment_failure& failure) {
    error_code code = error_code::internal_error;
    switch (failure.code) {
        case rail_payment_error::internal_account_not_found:
            code = error_code::account_not_found;
            break;
        case rail_payment_error::currency_mismatch: code = error_code::invalid_currency; break;
        case rail_payment_error::customer_mismatch:
        case rail_payment_error::external_account_not_active:
        case rail_payment_error::account_invalid:
        case rail_payment_error::direction_unsupported:
        case rail_payment_error::no_rail: code = error_code::invalid_input; break;
        case rail_payment_error::insufficient_balance:
            code = error_code::insufficient_balance;
            break;
        case rail_payment_error::amount_out_of_range: code = error_code::amount_out_of_range; break;
        case rail_payment_error::rail_unavailable: code = error_code::service_unavailable; break;
        case rail_payment_error::user_not_ready: code = error_code::user_not_ready; break;
    }
    json::object details;
    if (!failure.field.empty()) details["field"] = failure.field;
    fail(code, failure.message, std::move(details));
}

external_account_ref find_external(request_context& context, const std::string& id,
                                   const std::string& field) {
    auto* directory = context.services.external_accounts.get();
    if (directory == nullptr) {
        fail(error_code::not_implemented,
             "transfers to and from external accounts are not available yet");
    }
    auto found = directory->find(context.session(), context.owner(), id);
    if (!found)
        fail(error_code::account_not_found, field + ": no external account " + id,
             json::object{{"field", field}});
    return std::move(*found);
}

http_response transfer_out(request_context& context) {
    auto body = read_transfer_body(parse_json_body(context.request));
    auto destination = find_external(context, body.destination_account_id, "destination.accountId");
    auto begun = begin_transfer_out(context.session(), context.services.rail_payments(),
                                    {context.owner(), body.source_account_id,
                                     std::move(destination), body.amount, body.description});
    if (!begun) fail_rail_payment(begun.error());
    return json_response(201, render_transaction(begun.value(), context.services.currencies));
}

http_response transfer_in(request_context& context) {
    auto body = read_transfer_body(parse_json_body(context.request));
    auto source = find_external(context, body.source_account_id, "source.accountId");
    auto begun = begin_transfer_in(context.session(), context.services.rail_payments(),
                                   {context.owner(), std::move(source), body.destination_account_id,
                                    body.amount, body.description});
    if (!begun) fail_rail_payment(begun.error());
    return json_response(201, render_transaction(begun.value(), context.services.currencies));
}

}  // namespace

void register_transfer_routes(router& routes) {
    routes.add({.method = http_method::post,
                .pattern = versioned("/transfer-out"),
                .permission = permission_transact,
                .on_ledger_writer = true,
                .idempotent = true,
                .handler = transfer_out});
    routes.add({.method = http_method::post,
                .pattern = versioned("/transfer-in"),
                .permission = permission_transact,
                .on_ledger_writer = true,
                .idempotent = true,
                .handler = transfer_in});
}

}  // namespace corridor
