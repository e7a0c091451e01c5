#pragma once
// How quotes, transactions, internal accounts and currencies look in the interface's JSON: the one
// place that decides it, for the API's responses, the dashboard and the payloads of webhook events.
#include <cstdint>
#include <string>

#include <boost/json/object.hpp>

#include "ledger/payments/payments.hpp"

namespace corridor {

// `storage` lets a caller build a short-lived rendering in its own arena (the outbox events).
boost::json::object render_currency(const currency_registry& currencies, const std::string& code,
                                    boost::json::storage_ptr storage = {});
boost::json::object render_quote(const quote_record& quote, const currency_registry& currencies);
boost::json::object render_transaction(const transaction_record& transaction,
                                       const currency_registry& currencies,
                                       boost::json::storage_ptr storage = {});
// fundingPaymentInstructions come from the rails (funding_rails, may be null) or the directory.
boost::json::object render_internal_account(const ledger_account& account,
                                            const currency_registry& currencies,
                                            const funding_directory& funding,
                                            funding_instruction_source* funding_rails,
                                            std::int64_t now_ms);
// A price's rateDetails object as JSON text (a quote-born transaction's rate details).
std::string rate_details_json(const price& p);
// The same from the price's parts, as a transaction row reads them back from its quote's columns.
std::string rate_details_text(const rational& counterparty_multiplier,
                              std::int64_t counterparty_fixed_fee,
                              const rational& service_multiplier, std::int64_t service_fixed_fee,
                              const rational& variable_fee_rate, std::int64_t variable_fee_amount);

}  // namespace corridor
