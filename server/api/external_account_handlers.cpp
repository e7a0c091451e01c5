// External accounts: POST/GET /customers/external-accounts, POST/GET /platform/external-accounts,
// GET of one account under either path, and the receiver lookup GET
// /receiver/external-account/{id}.
#include <boost/json.hpp>
#include <cctype>

#include "ledger/customers/account_details.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/customers/external_account_store.hpp"
#include "ledger/payments/payment_json.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/base/uma_address.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

constexpr std::size_t platform_account_id_chars_max = 256;

// Every field of the external account bodies the interface defines, over all account types: a
// field of the wrong type is refused even when the chosen accountType does not read it.
constexpr field_shape address_shape[] = {
    {"line1", json_kind::string},      {"line2", json_kind::string},
    {"city", json_kind::string},       {"state", json_kind::string},
    {"postalCode", json_kind::string}, {"country", json_kind::string}};
constexpr field_shape beneficiary_shape[] = {{"beneficiaryType", json_kind::string},
                                             {"fullName", json_kind::string},
                                             {"birthDate", json_kind::string},
                                             {"nationality", json_kind::string},
                                             {"legalName", json_kind::string},
                                             {"registrationNumber", json_kind::string},
                                             {"taxId", json_kind::string},
                                             {"email", json_kind::string},
                                             {"phoneNumber", json_kind::string},
                                             {"countryOfResidence", json_kind::string},
                                             {"address", json_kind::object, address_shape}};
constexpr field_shape account_info_shape[] = {
    {"accountType", json_kind::string},
    {"paymentRails", json_kind::array, {}, json_kind::string},
    {"accountNumber", json_kind::string},
    {"routingNumber", json_kind::string},
    {"accountCategory", json_kind::string},
    {"bankName", json_kind::string},
    {"clabeNumber", json_kind::string},
    {"pixKey", json_kind::string},
    {"pixKeyType", json_kind::string},
    {"taxId", json_kind::string},
    {"iban", json_kind::string},
    {"swiftBic", json_kind::string},
    {"swiftCode", json_kind::string},
    {"vpa", json_kind::string},
    {"purposeOfPayment", json_kind::string},
    {"bankCode", json_kind::string},
    {"branchCode", json_kind::string},
    {"sortCode", json_kind::string},
    {"address", json_kind::string},
    {"assetType", json_kind::string},
    {"invoice", json_kind::string},
    {"bolt12", json_kind::string},
    {"lightningAddress", json_kind::string},
    {"beneficiary", json_kind::object, beneficiary_shape}};
constexpr field_shape external_account_shape[] = {
    {"currency", json_kind::string},
    {"customerId", json_kind::string},
    {"platformAccountId", json_kind::string},
    {"defaultUmaDepositAccount", json_kind::boolean},
    {"accountInfo", json_kind::object, account_info_shape}};

std::string read_currency(const request_context& context, const json_fields& fields) {
    auto code = fields.optional_string("currency", 16);
    if (!code) fail_field("currency", "is required");
    if (!context.services.currencies.find(*code)) {
        fail(error_code::invalid_currency, "currency: " + *code + " is not a supported currency",
             json::object{{"field", "currency"}});
    }
    return *code;
}

validated_details read_details(const request_context& context, const json::object& body,
                               const std::string& currency) {
    const json::value* info = body.if_contains("accountInfo");
    if (!info || info->is_null()) fail_field("accountInfo", "is required");
    auto details = validate_account_details(*info, currency, context.services.time.now_ms());
    if (!details) {
        const auto& error = details.error();
        auto code = error.problem == details_problem::invalid_identifier
                        ? error_code::invalid_bank_account
                        : error_code::invalid_input;
        fail(code, error.field + ": " + error.message, json::object{{"field", error.field}});
    }
    return std::move(details.value());
}

// The field a rail's message names: its leading path ("pixKey must be ...", "accountInfo.taxId:
// ..."), under accountInfo; accountInfo itself when the message starts otherwise.
std::string field_named_by(const std::string& message) {
    std::size_t end = 0;
    while (end < message.size() && (std::isalnum(static_cast<unsigned char>(message[end])) ||
                                    message[end] == '.' || message[end] == '_')) {
        ++end;
    }
    std::string token = message.substr(0, end);
    while (!token.empty() && token.back() == '.') token.pop_back();
    if (token.empty() || !std::islower(static_cast<unsigned char>(token[0]))) return "accountInfo";
    return token.starts_with("accountInfo") ? token : "accountInfo." + token;
}

// After the host's structural checks, the rail that will move money for this account type checks
// the details by its own rules (ACH routing, PIX key against taxId, ...). Without a rail for the
// type the structural checks stand alone; a rail that cannot answer now does not block creation
// (payouts and pulls ask it again).
void check_with_rail(request_context& context, const validated_details& details,
                     const std::string& currency) {
    std::string env(context.owner().env_name());
    rail_instance* rail = context.services.rails.for_account_type(env, details.account_type);
    // The sandbox simulator has no rules of its own beyond the host's (it reads identifiers only
    // for its failure patterns). Sandbox parity: the rail that would serve the type in production,
    // if one is loaded, checks sandbox accounts by its rules, so the sandbox takes no account
    // production would refuse.
    if (rail != nullptr && rail->name() == rail_registry::sandbox_rail_name)
        rail = context.services.rails.for_account_type("production", details.account_type);
    if (rail == nullptr) return;
    auto verdict = rail->validate_account(details.account_type, currency,
                                          json::serialize(details.account_info));
    if (verdict.status == rail_status::invalid_argument) {
        std::string field = field_named_by(verdict.message);
        fail(error_code::invalid_bank_account,
             field + ": refused by rail " + rail->name() + ": " + verdict.message,
             json::object{{"field", field}});
    }
    if (verdict.status == rail_status::unsupported) {
        fail(error_code::invalid_input,
             "accountInfo.accountType: rail " + rail->name() + " does not serve " +
                 details.account_type + " in " + currency + ": " + verdict.message,
             json::object{{"field", "accountInfo.accountType"}});
    }
}

[[noreturn]] void fail_create(external_account_error error, const std::string& customer_id) {
    switch (error) {
        case external_account_error::customer_not_found:
            fail(error_code::user_not_found, "no customer " + customer_id,
                 json::object{{"field", "customerId"}});
        case external_account_error::customer_deleted:
            fail(error_code::customer_deleted, "customer " + customer_id + " is deleted");
        case external_account_error::duplicate:
            fail(error_code::external_account_exists,
                 "this owner already has an external account with these details");
        case external_account_error::default_conflict:
            fail(error_code::conflict,
                 "another default UMA deposit account was set at the same time; retry",
                 json::object{{"field", "defaultUmaDepositAccount"}});
    }
    fail(error_code::internal_error, "internal error");
}

http_response create_account(request_context& context, bool for_customer) {
    auto body = parse_json_body(context.request);
    check_shape(body, external_account_shape);
    json_fields fields(body);
    std::string currency = read_currency(context, fields);
    new_external_account request;
    request.currency = currency;
    if (for_customer) {
        request.customer_id = fields.required_string("customerId", 128);
        request.default_uma_deposit =
            fields.optional_bool("defaultUmaDepositAccount").value_or(false);
    } else {
        for (auto key : {"customerId", "defaultUmaDepositAccount"}) {
            if (fields.has(key))
                fail_field(key,
                           "does not apply to platform accounts; use /customers/external-accounts");
        }
    }
    request.platform_account_id =
        fields.optional_string("platformAccountId", platform_account_id_chars_max);
    if (request.platform_account_id && request.platform_account_id->empty()) {
        fail_field("platformAccountId", "must not be empty");
    }
    request.details = read_details(context, body, currency);
    check_with_rail(context, request.details, currency);
    request.screening_delay_ms = context.services.config.external_accounts_screening_delay_ms;
    auto created = create_external_account(
        context.session(), {context.services.ids, context.services.time}, context.owner(), request);
    if (!created) fail_create(created.error(), request.customer_id.value_or(""));
    return json_response(201, render_external_account(created.value()));
}

http_response list_accounts(request_context& context, bool for_customer) {
    external_account_filter filter;
    filter.platform_owned = !for_customer;
    filter.currency = context.query.currency("currency", context.services.currencies);
    if (for_customer) filter.customer_id = context.query.get("customerId");
    auto found = list_external_accounts(context.session(), context.owner(), filter,
                                        context.query.page("ExternalAccount"));
    return page_response(
        found, [](const external_account& item) { return render_external_account(item); });
}

external_account require_account(const request_context& context, const std::string& id) {
    auto found = find_external_account(context.session(), context.owner(), id);
    if (!found) fail(error_code::account_not_found, "no external account " + id);
    return std::move(*found);
}

http_response get_account(request_context& context, bool for_customer) {
    auto account = require_account(context, context.param(0));
    // Each path shows its own kind: a platform account is not a customer's account.
    if (account.customer_id.has_value() != for_customer) {
        fail(error_code::account_not_found, "no external account " + context.param(0));
    }
    return json_response(200, render_external_account(account));
}

// The estimated rate of the account's currency per unit of the sending currency, after the spread.
double estimated_rate(const request_context& context, const std::string& sending_code,
                      const std::string& receiving_code) {
    if (sending_code == receiving_code) return 1.0;
    const currency* sending = context.services.currencies.find(sending_code);
    const currency* receiving = context.services.currencies.find(receiving_code);
    CORRIDOR_ASSERT(sending && receiving);
    auto terms = context.services.rates_for(context.owner().env).terms(*sending, *receiving);
    if (!terms) {
        fail(error_code::invalid_currency,
             "no exchange rate from " + sending_code + " to " + receiving_code,
             json::object{{"field", "sendingCurrency"}});
    }
    return (terms->mid_rate * rational(10000 - terms->spread_bps, 10000)).to_double();
}

http_response lookup_account(request_context& context) {
    const auto& query = context.query;
    auto customer_id = query.get("customerId");
    auto sender_address = query.get("senderUmaAddress");
    if (customer_id && sender_address)
        fail_field("customerId", "give customerId or senderUmaAddress, not both");
    if (customer_id) {
        auto sender = find_customer(context.session(), context.owner(), *customer_id);
        if (!sender || sender->is_deleted) {
            fail(error_code::user_not_found, "no customer " + *customer_id,
                 json::object{{"field", "customerId"}});
        }
    }
    if (sender_address && !parse_uma_address(*sender_address)) {
        fail(error_code::invalid_uma_address, "senderUmaAddress: must be $user@domain",
             json::object{{"field", "senderUmaAddress"}});
    }
    std::string sending_code = query.get("sendingCurrency").value_or("USD");
    if (!context.services.currencies.find(sending_code)) {
        fail(error_code::invalid_currency,
             "sendingCurrency: " + sending_code + " is not a supported currency",
             json::object{{"field", "sendingCurrency"}});
    }
    auto account = require_account(context, context.param(0));
    if (account.status != "ACTIVE") {
        fail(error_code::invalid_receiver, "external account " + account.id + " is " +
                                               account.status +
                                               "; only ACTIVE accounts can receive");
    }
    auto config = load_platform_config(context.session(), context.owner());
    if (!config) fail(error_code::not_found, "platform configuration not found");
    const supported_currency* limits = nullptr;
    for (const auto& item : config->supported_currencies) {
        if (item.currency_code == account.currency) limits = &item;
    }
    if (!limits) {
        fail(error_code::currency_not_enabled,
             "the account's currency " + account.currency + " is not enabled for this platform");
    }
    json::object entry{
        {"currency", render_currency(context.services.currencies, account.currency)},
        {"estimatedExchangeRate", estimated_rate(context, sending_code, account.currency)},
        {"min", limits->min_amount},
        {"max", limits->max_amount}};
    json::object body{{"accountId", account.id},
                      {"lookupId", context.services.ids.next("Lookup")},
                      {"supportedCurrencies", json::array{std::move(entry)}}};
    return json_response(200, body);
}

http_response create_customer_account(request_context& context) {
    return create_account(context, true);
}
http_response create_platform_account(request_context& context) {
    return create_account(context, false);
}
http_response list_customer_accounts(request_context& context) {
    return list_accounts(context, true);
}
http_response list_platform_accounts(request_context& context) {
    return list_accounts(context, false);
}
http_response get_customer_account(request_context& context) {
    return get_account(context, true);
}
http_response get_platform_account(request_context& context) {
    return get_account(context, false);
}

}  // namespace

void register_external_account_routes(router& routes) {
    // Writes share the ledger writer's batches, as customer writes do: group commit instead of
    // contending for SQLite's single write lock.
    routes.add({.method = http_method::post,
                .pattern = versioned("/customers/external-accounts"),
                .permission = permission_manage,
                .on_ledger_writer = true,
                .handler = create_customer_account});
    routes.add({.method = http_method::get,
                .pattern = versioned("/customers/external-accounts"),
                .permission = permission_view,
                .handler = list_customer_accounts});
    routes.add({.method = http_method::get,
                .pattern = versioned("/customers/external-accounts/{accountId}"),
                .permission = permission_view,
                .handler = get_customer_account});
    routes.add({.method = http_method::post,
                .pattern = versioned("/platform/external-accounts"),
                .permission = permission_manage,
                .on_ledger_writer = true,
                .handler = create_platform_account});
    routes.add({.method = http_method::get,
                .pattern = versioned("/platform/external-accounts"),
                .permission = permission_view,
                .handler = list_platform_accounts});
    routes.add({.method = http_method::get,
                .pattern = versioned("/platform/external-accounts/{accountId}"),
                .permission = permission_view,
                .handler = get_platform_account});
    routes.add({.method = http_method::get,
                .pattern = versioned("/receiver/external-account/{accountId}"),
                .permission = permission_view,
                .handler = lookup_account});
}

}  // namespace corridor
