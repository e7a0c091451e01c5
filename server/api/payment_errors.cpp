#include "server/api/payment_errors.hpp"

#include <boost/json.hpp>

#include "server/api/errors.hpp"

namespace corridor {

void fail_payment(const payment_failure& failure) {
    error_code code = error_code::internal_error;
    switch (failure.code) {
        case payment_error::source_account_not_found:
        case payment_error::destination_account_not_found:
        case payment_error::account_not_found: code = error_code::account_not_found; break;
        case payment_error::customer_not_found: code = error_code::user_not_found; break;
        case payment_error::customer_deleted: code = error_code::customer_deleted; break;
        case payment_error::customer_account_mismatch: code = error_code::invalid_input; break;
        case payment_error::same_currency: code = error_code::same_currency; break;
        case payment_error::currency_not_supported:
        case payment_error::no_funding_instructions:
        case payment_error::funding_currency_mismatch: code = error_code::invalid_currency; break;
        case payment_error::currency_not_enabled: code = error_code::currency_not_enabled; break;
        case payment_error::amount_out_of_range: code = error_code::amount_out_of_range; break;
        case payment_error::insufficient_balance: code = error_code::insufficient_balance; break;
        case payment_error::quote_not_found: code = error_code::quote_not_found; break;
        case payment_error::quote_not_pending: code = error_code::quote_not_pending; break;
        case payment_error::quote_expired: code = error_code::quote_expired; break;
        case payment_error::quote_not_executable: code = error_code::quote_not_executable; break;
        case payment_error::user_not_ready: code = error_code::user_not_ready; break;
        case payment_error::destination_not_payable: code = error_code::invalid_input; break;
        case payment_error::external_payouts_unavailable: code = error_code::not_implemented; break;
        case payment_error::rail_unavailable: code = error_code::service_unavailable; break;
    }
    boost::json::object details;
    if (!failure.field.empty()) details["field"] = failure.field;
    fail(code, failure.message, std::move(details));
}

}  // namespace corridor
