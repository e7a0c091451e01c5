#include "server/uma/uma_quote.hpp"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <cmath>
#include <limits>

#include "ledger/book/book.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/customers/kyc.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/base/time_format.hpp"
#include "ledger/base/uma_address.hpp"
#include "ledger/payments/uma_pricing.hpp"
#include "server/api/app.hpp"
#include "server/uma/uma_identity.hpp"
#include "server/uma/uma_lookup.hpp"
#include "uma/pay_sender.hpp"
#include "uma/sql_stores.hpp"

namespace corridor {
namespace {

namespace json = boost::json;

[[noreturn]] void fail_lookup(const std::string& message) {
    fail(error_code::invalid_input, "lookupId: " + message, json::object{{"field", "lookupId"}});
}

// The stored lookup the quote names, still fresh, about the receiver the quote pays.
uma_lookup_record lookup_of(soci::session& session, const app_services& services,
                            const tenant& owner, const uma_quote_input& input) {
    if (!input.lookup_id || input.lookup_id->empty()) {
        fail_lookup(
            "is required for UMA_ADDRESS destinations; look the receiver up first "
            "(GET /receiver/uma/{receiverUmaAddress})");
    }
    auto lookup = find_uma_lookup(session, owner, *input.lookup_id);
    if (!lookup) fail_lookup("no lookup " + *input.lookup_id);
    std::int64_t expires_at_ms =
        lookup->created_at_ms + services.config.uma_lookup_ttl_seconds * 1000;
    if (services.time.now_ms() >= expires_at_ms) {
        fail_lookup("lookup " + lookup->id + " expired at " + format_timestamp_ms(expires_at_ms) +
                    "; look the receiver up again");
    }
    auto receiver = parse_uma_address(input.uma_address);
    if (!receiver) {
        fail(error_code::invalid_uma_address, "destination.umaAddress: must be $user@domain",
             json::object{{"field", "destination.umaAddress"}});
    }
    if (receiver->text() != lookup->receiver_uma_address) {
        fail(error_code::invalid_input,
             "destination.umaAddress: lookup " + lookup->id + " is about " +
                 lookup->receiver_uma_address + ", not " + receiver->text(),
             json::object{{"field", "destination.umaAddress"}});
    }
    if (!lookup->response.compliance || !lookup->response.currencies) {
        fail_lookup("lookup " + lookup->id + " found no UMA receiver");
    }
    return std::move(*lookup);
}

// The source: an internal account of the customer the lookup was made for, who may move money.
ledger_account source_of(soci::session& session, const tenant& owner, const quote_request& request,
                         const uma_lookup_record& lookup, customer& sender) {
    if (request.source_type != "ACCOUNT") {
        fail(error_code::invalid_input,
             "source.sourceType: a payment to an UMA address is paid from an internal account "
             "(ACCOUNT)",
             json::object{{"field", "source.sourceType"}});
    }
    auto account = find_account(session, owner, request.source_account_id);
    if (!account ||
        (account->kind != account_kind::customer && account->kind != account_kind::platform)) {
        fail(error_code::account_not_found,
             "source.accountId: no internal account " + request.source_account_id,
             json::object{{"field", "source.accountId"}});
    }
    if (account->owner_id != lookup.sender_customer_id) {
        fail(error_code::invalid_input,
             "source.accountId: lookup " + lookup.id + " was made for customer " +
                 lookup.sender_customer_id + "; the account is not theirs",
             json::object{{"field", "source.accountId"}});
    }
    auto found = find_customer(session, owner, lookup.sender_customer_id);
    if (!found || found->is_deleted) {
        fail(error_code::customer_deleted,
             "the sending customer " + lookup.sender_customer_id + " is deleted",
             json::object{{"field", "source.accountId"}});
    }
    if (!kyc_allows_money_movement(found->kyc_status)) {
        fail(error_code::user_not_ready,
             "customer " + found->id + " cannot move money while its KYC status is " +
                 found->kyc_status + "; complete the hosted KYC flow first");
    }
    sender = std::move(*found);
    return std::move(*account);
}

// The receiving currency: the one asked for, else the first the receiver offers that the service
// knows. Either way one the receiver offers, with the decimals the service knows it by.
const uma::uma_currency& receiving_currency_of(const app_services& services,
                                               const uma_lookup_record& lookup,
                                               const uma_quote_input& input) {
    const auto& offered = *lookup.response.currencies;
    auto known = [&](const uma::uma_currency& item) {
        const currency* ours = services.currencies.find(item.code);
        return ours != nullptr && ours->decimals == item.decimals && item.multiplier > 0;
    };
    if (!input.currency) {
        auto first = std::find_if(offered.begin(), offered.end(), known);
        if (first == offered.end()) {
            fail(error_code::invalid_currency,
                 "destination.currency: the receiver offers no currency the service knows",
                 json::object{{"field", "destination.currency"}});
        }
        return *first;
    }
    auto asked = std::find_if(offered.begin(), offered.end(), [&](const uma::uma_currency& item) {
        return item.code == *input.currency;
    });
    if (asked == offered.end() || !known(*asked)) {
        fail(error_code::invalid_currency,
             "destination.currency: the receiver does not take " + *input.currency,
             json::object{{"field", "destination.currency"}});
    }
    return *asked;
}

bool has_value(const json::value* value) {
    if (value == nullptr || value->is_null()) return false;
    if (value->is_string()) return !value->as_string().empty();
    return true;
}

// The payer data the receiver asked for, from senderCustomerInfo (keys are UserInfoFieldNames);
// every field it marked mandatory must be there.
json::object payer_fields_of(const uma_lookup_record& lookup, const json::object& info) {
    for (const auto& [key, value] : info) {
        bool name_like = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
            return (c >= 'A' && c <= 'Z') || c == '_';
        });
        if (!name_like) {
            fail_field("senderCustomerInfo." + std::string(key),
                       "keys are UserInfoFieldNames such as FULL_NAME");
        }
        if (value.is_array()) {
            fail_field("senderCustomerInfo." + std::string(key), "must be a string or an object");
        }
    }
    json::object fields;
    json::array missing;
    for (const auto& option :
         lookup.response.payer_data.value_or(std::vector<uma::counterparty_option>{})) {
        if (option.key == "identifier" || option.key == "compliance") continue;
        auto name = customer_info_field(option.key).value_or(option.key);
        const json::value* value = info.if_contains(name);
        if (has_value(value)) {
            fields[option.key] = *value;
        } else if (option.mandatory) {
            missing.emplace_back(name);
        }
    }
    if (!missing.empty()) {
        std::string names;
        for (const auto& name : missing)
            names += (names.empty() ? "" : ", ") + std::string(name.as_string());
        fail(error_code::missing_mandatory_user_info,
             "senderCustomerInfo: the receiver requires " + names,
             json::object{{"field", "senderCustomerInfo"}, {"missingFields", std::move(missing)}});
    }
    return fields;
}

const currency& btc_of(const app_services& services) {
    const currency* btc = services.currencies.find("BTC");
    if (btc == nullptr || btc->decimals != 8) {
        fail(error_code::not_implemented,
             "payments to UMA addresses need BTC (8 decimals) among the service's currencies");
    }
    return *btc;
}

[[noreturn]] void fail_amount(const std::string& message) {
    fail(error_code::amount_out_of_range, message, json::object{{"field", "lockedCurrencyAmount"}});
}

// What the pay request asks for (see ledger/payments/uma_pricing.hpp).
uma::invoice_order order_of(const currency& sending, const currency& btc,
                            const corridor_terms& terms, const quote_request& request,
                            const uma::uma_currency& receiving, const uma::uma_version& version) {
    uma::invoice_order order;
    order.receiving_currency = receiving.code;
    if (request.side == locked_side::receiving) {
        order.amount = request.locked_amount;
        return order;
    }
    auto budget = uma_sats_budget(sending, btc, terms, request.locked_amount);
    if (!budget) fail_amount("lockedCurrencyAmount is too small to cover fees and buy one satoshi");
    if (budget.value() > std::numeric_limits<std::int64_t>::max() / 1000) {
        fail_amount("lockedCurrencyAmount is too large");
    }
    std::int64_t msats = budget.value() * 1000;
    if (version.major >= 1) {
        order.amount = msats;
        order.amount_in_msats = true;
        return order;
    }
    // v0 takes amounts in the receiving currency only: what the millisatoshis convert to at the
    // receiver's multiplier, rounded down.
    order.amount =
        static_cast<std::int64_t>(std::floor(static_cast<double>(msats) / receiving.multiplier));
    if (order.amount <= 0) fail_amount("lockedCurrencyAmount buys less than one " + receiving.code);
    return order;
}

// The payee data to ask the receiver for: the counterparty fields the platform requires for the
// sending currency and, when it lists it too, the receiving one; mandatory if either says so.
std::vector<uma::counterparty_option> requested_payee_data_of(const platform_config& config,
                                                              const std::string& sending,
                                                              const std::string& receiving) {
    std::vector<uma::counterparty_option> out;
    for (const std::string* code : {&sending, &receiving}) {
        const supported_currency* terms = find_supported_currency(config, *code);
        if (terms == nullptr) continue;
        for (const auto& field : terms->required_counterparty_fields) {
            std::string key = payer_data_key(field.name);
            auto found = std::find_if(out.begin(), out.end(),
                                      [&](const auto& option) { return option.key == key; });
            if (found == out.end()) {
                out.push_back({key, field.mandatory});
            } else {
                found->mandatory = found->mandatory || field.mandatory;
            }
        }
    }
    return out;
}

std::string utxo_callback_of(const uma::pay_response& response) {
    if (!response.compliance || !response.compliance->utxo_callback) return "";
    const std::string& url = *response.compliance->utxo_callback;
    bool web = url.starts_with("https://") || url.starts_with("http://");
    return web && url.size() <= 2048 ? url : "";
}

}  // namespace

uma_quote_terms prepare_uma_quote(soci::session& session, app_services& services,
                                  const tenant& owner, const quote_request& request,
                                  const uma_quote_input& input) {
    auto lookup = lookup_of(session, services, owner, input);
    customer sender;
    auto source = source_of(session, owner, request, lookup, sender);
    const uma::uma_currency& receiving = receiving_currency_of(services, lookup, input);
    json::object payer_fields = payer_fields_of(lookup, input.sender_customer_info);

    auto config = load_platform_config(session, owner);
    if (!config) fail(error_code::not_found, "platform configuration not found");
    const supported_currency* sending_terms = find_supported_currency(*config, source.currency);
    if (sending_terms == nullptr) {
        fail(error_code::invalid_currency,
             source.currency + " is not a supported currency of this platform",
             json::object{{"field", "source"}});
    }
    if (!enabled_for(*sending_terms, "OUTGOING")) {
        fail(error_code::currency_not_enabled,
             source.currency + " is not enabled for OUTGOING transactions",
             json::object{{"field", "source"}});
    }
    if (request.side == locked_side::sending &&
        (request.locked_amount < sending_terms->min_amount ||
         request.locked_amount > sending_terms->max_amount)) {
        fail_amount("lockedCurrencyAmount " + std::to_string(request.locked_amount) +
                    " is outside " + source.currency + " limits " +
                    std::to_string(sending_terms->min_amount) + " to " +
                    std::to_string(sending_terms->max_amount));
    }
    const currency& btc = btc_of(services);
    const currency* sending = services.currencies.find(source.currency);
    CORRIDOR_ASSERT(sending != nullptr);  // accounts are opened only in known currencies
    auto terms = services.rates_for(owner.env).terms(*sending, btc);
    if (!terms) {
        fail(error_code::invalid_currency, "no exchange rate for " + source.currency + " to BTC",
             json::object{{"field", "source"}});
    }
    // Nothing is asked of the receiver for a payment no rail here could make.
    std::string env(owner.env_name());
    rail_instance* rail = services.rails.for_account_type(env, "LIGHTNING");
    if (rail == nullptr || !rail->can(CORRIDOR_RAIL_PAYOUT)) {
        fail(error_code::not_implemented,
             "no rail pays Lightning invoices in the " + env +
                 " environment, so UMA addresses cannot be paid here",
             json::object{{"field", "destination.destinationType"}});
    }
    auto version = uma::parse_version(lookup.uma_version).value_or(uma::current_version);
    auto order = order_of(*sending, btc, *terms, request, receiving, version);
    order.requested_payee_data = requested_payee_data_of(*config, source.currency, receiving.code);

    uma::payer_details payer;
    payer.identifier = sender.uma_address;
    payer.fields = payer_fields;
    if (lookup.response.compliance->is_subject_to_travel_rule) {
        json::object travel_rule = payer_fields;
        travel_rule["identifier"] = sender.uma_address;
        payer.travel_rule_info = json::serialize(travel_rule);
    }
    uma::sender_identity identity = sender_identity_of(session, services, *config);
    uma::sql_nonce_store nonces(session, services.time, uma::default_nonce_window_s);
    uma::receiver_lookup receiver{lookup.response, lookup.receiver_keys, version};
    // No transaction is open: the session holds nothing while the receiver's provider answers.
    auto invoiced =
        uma::request_invoice(receiver, payer, order, identity,
                             uma::sender_services{*services.uma_transport, *services.uma_keys,
                                                  nonces, services.time, services.random});
    if (!invoiced) throw pay_request_failure(invoiced.error());
    const auto& converted = *invoiced->response.converted;  // request_invoice checked it
    if (converted.decimals != receiving.decimals) {
        fail(error_code::invalid_payreq_response, "the receiver's answer gives " + receiving.code +
                                                      " " + std::to_string(converted.decimals) +
                                                      " decimals, not " +
                                                      std::to_string(receiving.decimals));
    }

    uma_quote_terms out;
    out.sending_currency = source.currency;
    out.receiving_currency = receiving.code;
    auto& payment = out.payment;
    payment.lookup_id = lookup.id;
    payment.receiver_uma_address = lookup.receiver_uma_address;
    payment.payee_identifier = lookup.response.compliance->receiver_identifier;
    payment.uma_version = version.text();
    payment.vasp_domain = identity.vasp_domain;
    payment.invoice = invoiced->invoice;
    payment.payment_hash = invoiced->payment_hash;
    payment.amount_msats = invoiced->amount_msats;
    payment.payout_sats = payout_sats_for(invoiced->amount_msats);
    payment.invoice_expires_at_ms = invoiced->expires_at_s * 1000;
    payment.receiver_multiplier = json::serialize(json::value(converted.multiplier));
    payment.receiver_fee_msats = converted.fee_msats;
    payment.utxo_callback = utxo_callback_of(invoiced->response);
    payment.payee_data = json::serialize(invoiced->response.payee_data);

    const currency* receiving_currency = services.currencies.find(receiving.code);
    auto priced = price_uma_payment(*sending, btc, *receiving_currency, *terms, request.side,
                                    request.locked_amount, payment.payout_sats, *converted.amount);
    if (!priced) fail_amount("the receiver's invoice is too large to price");
    out.priced = priced.value();
    return out;
}

api_error pay_request_failure(const uma::uma_error& error) {
    using uma::error_kind;
    json::object details{{"umaCode", uma::code_of(error.kind)}};
    for (const auto& [key, value] : error.extra) details[key] = value;
    switch (error.kind) {
        case error_kind::invalid_currency:
            details["field"] = "destination.currency";
            return {error_code::invalid_currency, "destination.currency: " + error.reason,
                    std::move(details)};
        case error_kind::amount_out_of_range:
            details["field"] = "lockedCurrencyAmount";
            return {error_code::amount_out_of_range, "lockedCurrencyAmount: " + error.reason,
                    std::move(details)};
        case error_kind::missing_mandatory_payer_data:
            details["field"] = "senderCustomerInfo";
            return {error_code::missing_mandatory_user_info, "senderCustomerInfo: " + error.reason,
                    std::move(details)};
        case error_kind::parse_payreq_response_error:
            return {error_code::parse_payreq_response_error,
                    "the receiver's provider answered something other than a pay response: " +
                        error.reason,
                    std::move(details)};
        case error_kind::invalid_payreq_response:
            return {error_code::invalid_payreq_response,
                    "the receiver's provider answered a pay response that breaks the request: " +
                        error.reason,
                    std::move(details)};
        case error_kind::counterparty_pubkey_fetch_error:
        case error_kind::parse_pubkey_response_error:
        case error_kind::invalid_pubkey_format:
        case error_kind::cert_chain_invalid:
            return {error_code::counterparty_pubkey_fetch_error,
                    "the receiver's provider keys cannot be used: " + error.reason,
                    std::move(details)};
        default:
            // Unreachable, an HTTP error, a bad signature, a replayed nonce: the counterparty
            // failed, not the request.
            return {error_code::payreq_request_failed,
                    "the pay request to the receiver's provider failed: " + error.reason,
                    std::move(details)};
    }
}

}  // namespace corridor
