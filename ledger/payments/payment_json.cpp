#include "ledger/payments/payment_json.hpp"

#include <array>
#include <boost/json.hpp>
#include <cstddef>

#include "ledger/base/time_format.hpp"
#include "ledger/payments/counterparty_fields.hpp"
#include "ledger/payments/payment_rows.hpp"

namespace corridor {
namespace json = boost::json;

namespace {

// Renderers see the same few stored texts again and again (one payment renders its rate details
// four times: the quote and three transaction events). These remember the last results per thread,
// so that each text is converted or parsed once, with exactly the result a fresh conversion gives.
template <class Value, std::size_t Slots>
class recent_conversions {
public:
    template <class Convert>
    const Value& get(const std::string& text, Convert convert) {
        for (auto& slot : slots_) {
            if (slot.used && slot.text == text) return slot.value;
        }
        auto& slot = slots_[next_];
        next_ = (next_ + 1) % Slots;
        slot.value = convert(text);
        slot.text = text;
        slot.used = true;
        return slot.value;
    }

private:
    struct entry {
        bool used = false;
        std::string text;
        Value value;
    };
    std::array<entry, Slots> slots_{};
    std::size_t next_ = 0;
};

// A rate stored as "numerator/denominator", as the nearest double.
double rational_text_to_double(const std::string& text) {
    thread_local recent_conversions<double, 8> recent;
    return recent.get(text, [](const std::string& t) { return parse_rational_text(t).to_double(); });
}

// A stored JSON object (rate details), parsed; the caller copies what it keeps.
const json::value& parse_rate_details(const std::string& text) {
    thread_local recent_conversions<json::value, 8> recent;
    return recent.get(text, [](const std::string& t) { return json::parse(t); });
}

// Payment instructions as stored: "[]" (the common case) needs no parsing to know it is empty.
std::optional<json::value> parse_instructions(const std::string& text) {
    if (text.empty() || text == "[]") return std::nullopt;
    json::value instructions = json::parse(text);
    if (instructions.as_array().empty()) return std::nullopt;
    return instructions;
}

}  // namespace

// A quote-born transaction's rate details, from the quote's price.
std::string rate_details_text(const rational& counterparty_multiplier,
                              std::int64_t counterparty_fixed_fee,
                              const rational& service_multiplier, std::int64_t service_fixed_fee,
                              const rational& variable_fee_rate,
                              std::int64_t variable_fee_amount) {
    return json::serialize(json::object{
        {"counterpartyMultiplier", counterparty_multiplier.to_double()},
        {"counterpartyFixedFee", counterparty_fixed_fee},
        {"serviceApiMultiplier", service_multiplier.to_double()},
        {"serviceApiFixedFee", service_fixed_fee},
        {"serviceApiVariableFeeRate", variable_fee_rate.to_double()},
        {"serviceApiVariableFeeAmount", variable_fee_amount}});
}

std::string rate_details_json(const price& p) {
    return rate_details_text(p.counterparty_multiplier, p.counterparty_fixed_fee,
                             p.service_multiplier, p.service_fixed_fee, p.variable_fee_rate,
                             p.variable_fee_amount);
}

json::object render_currency(const currency_registry& currencies, const std::string& code,
                             json::storage_ptr storage) {
    const currency* found = currencies.find(code);
    if (!found) return json::object({{"code", code}}, std::move(storage));
    return json::object({{"code", found->code}, {"name", found->name}, {"symbol", found->symbol},
                         {"decimals", found->decimals}},
                        std::move(storage));
}

json::object render_quote(const quote_record& q, const currency_registry& currencies) {
    json::object source{{"sourceType", q.source_type}};
    if (q.source_type == "ACCOUNT") source["accountId"] = q.source_account_id;
    else source["currency"] = q.sending_currency;
    if (!q.source_customer_id.empty()) source["customerId"] = q.source_customer_id;
    json::object body{
        {"id", q.id},
        {"status", q.status},
        {"createdAt", format_timestamp_ms(q.created_at_ms)},
        {"expiresAt", format_timestamp_ms(q.expires_at_ms)},
        {"source", std::move(source)},
        {"destination", q.destination_type == "UMA_ADDRESS"
                            ? json::object{{"destinationType", q.destination_type},
                                           {"umaAddress", q.destination_account_id},
                                           {"currency", q.receiving_currency}}
                            : json::object{{"destinationType", q.destination_type},
                                           {"accountId", q.destination_account_id}}},
        {"sendingCurrency", render_currency(currencies, q.sending_currency)},
        {"receivingCurrency", render_currency(currencies, q.receiving_currency)},
        {"totalSendingAmount", q.priced.total_sending},
        {"totalReceivingAmount", q.priced.total_receiving},
        {"exchangeRate", q.priced.exchange_rate.to_double()},
        {"feesIncluded", q.priced.fees_included},
        {"transactionId", q.transaction_id},
        {"rateDetails", parse_rate_details(rate_details_json(q.priced))},
    };
    if (auto instructions = parse_instructions(q.payment_instructions)) {
        body["paymentInstructions"] = std::move(*instructions);
    }
    if (!q.description.empty()) body["description"] = q.description;
    if (!q.purpose_of_payment.empty()) body["purposeOfPayment"] = q.purpose_of_payment;
    return body;
}

json::object render_transaction(const transaction_record& t, const currency_registry& currencies,
                                json::storage_ptr sp) {
    json::object source({{"sourceType", t.source_type}, {"currency", t.source_currency}}, sp);
    if (!t.source_account_id.empty()) source["accountId"] = t.source_account_id;
    json::object destination({{"destinationType", t.destination_type}, {"currency", t.destination_currency}}, sp);
    if (t.destination_type == "UMA_ADDRESS") {
        destination["umaAddress"] = t.destination_account_id;
    } else if (!t.destination_account_id.empty()) {
        destination["accountId"] = t.destination_account_id;
    }
    json::object body({{"id", t.id},         {"status", t.status},
                       {"type", t.type},     {"source", std::move(source)},
                       {"destination", std::move(destination)},
                       {"createdAt", format_timestamp_ms(t.created_at_ms)},
                       {"updatedAt", format_timestamp_ms(t.updated_at_ms)}},
                      sp);
    if (!t.customer_id.empty()) body["customerId"] = t.customer_id;
    if (!t.platform_customer_id.empty()) body["platformCustomerId"] = t.platform_customer_id;
    if (t.settled_at_ms > 0) body["settledAt"] = format_timestamp_ms(t.settled_at_ms);
    if (!t.description.empty()) body["description"] = t.description;
    if (!t.failure_reason.empty()) body["failureReason"] = t.failure_reason;
    if (!t.quote_id.empty()) body["quoteId"] = t.quote_id;
    if (!t.counterparty_data.empty()) {
        body["counterpartyInformation"] = counterparty_information_of(t.counterparty_data, sp);
    }
    static const std::string empty_object = "{}";
    const json::value& details = parse_rate_details(t.rate_details.empty() ? empty_object : t.rate_details);
    body["receivedAmount"] = json::object(
        {{"amount", t.received_amount}, {"currency", render_currency(currencies, t.destination_currency, sp)}}, sp);
    if (t.type == "OUTGOING") {
        body["sentAmount"] = json::object(
            {{"amount", t.sent_amount}, {"currency", render_currency(currencies, t.source_currency, sp)}}, sp);
        if (!t.exchange_rate.empty()) body["exchangeRate"] = rational_text_to_double(t.exchange_rate);
        body["fees"] = t.fees;
        body["rateDetails"] = details;
        if (!t.refund.empty()) body["refund"] = json::parse(t.refund);
        if (auto instructions = parse_instructions(t.payment_instructions)) {
            body["paymentInstructions"] = std::move(*instructions);
        }
    } else {
        // Incoming transactions carry only the service's own rate details.
        json::object service_only(sp);
        for (auto key : {"serviceApiMultiplier", "serviceApiFixedFee", "serviceApiVariableFeeRate",
                         "serviceApiVariableFeeAmount"}) {
            if (auto* value = details.as_object().if_contains(key)) service_only[key] = *value;
        }
        if (!service_only.empty()) body["rateDetails"] = std::move(service_only);
        if (t.status != "CREATED") {
            body["reconciliationInstructions"] = json::object({{"reference", t.reference}}, sp);
        }
    }
    return body;
}

json::object render_internal_account(const ledger_account& account, const currency_registry& currencies,
                                     const funding_directory& funding,
                                     funding_instruction_source* funding_rails, std::int64_t now_ms) {
    auto found = select_funding_instructions(
        funding_rails, funding,
        funding_instruction_request{account.owner, account.id, account.currency, account.reference, 0, now_ms},
        "Include the reference " + account.reference + " in the transfer memo");
    json::object body{
        {"id", account.id},
        {"balance", json::object{{"amount", account.balance()}, {"currency", render_currency(currencies, account.currency)}}},
        {"fundingPaymentInstructions", std::move(found.instructions)},
        {"createdAt", format_timestamp_ms(account.created_at_ms)},
        {"updatedAt", format_timestamp_ms(account.updated_at_ms)}};
    if (!account.owner_id.empty()) body["customerId"] = account.owner_id;
    return body;
}

}  // namespace corridor
