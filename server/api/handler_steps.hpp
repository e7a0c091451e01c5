#pragma once
// Steps of the API's handlers that the dashboard's pages take too (server/dashboard/pages/), so
// that a page and its API route read the same query names, run the same validation and make the
// same domain call. Each throws api_error (server/api/errors.hpp) naming the field, as the API
// answers it.
#include <boost/json/object.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/customers/bank_link_store.hpp"
#include "ledger/book/book.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/platforms/platform_store.hpp"

namespace corridor {

class query_params;
struct request_context;

// GET /transactions, GET /quotes and GET /customers: their filters from the query.
const std::vector<std::string_view>& transaction_status_names();
const std::vector<std::string_view>& quote_status_names();
transaction_filter read_transaction_filter(const query_params& query);
quote_filter read_quote_filter(const query_params& query);
customer_filter read_customer_filter(const query_params& query);

// PATCH /config: the names a requiredCounterpartyFields entry may take; the body read into a patch,
// then applied to the caller's configuration.
const std::vector<std::string_view>& counterparty_field_names();
config_patch read_config_patch(const boost::json::object& body, const request_context& context);
platform_config apply_config_patch(request_context& context, const config_patch& patch);

// POST /sandbox/internal-accounts/{accountId}/fund with its body {"amount": ...}.
ledger_account sandbox_fund_account(request_context& context, const std::string& account_id,
                                    const boost::json::object& body);
// POST /sandbox/uma/receive with its body.
transaction_record sandbox_receive_uma(request_context& context, const boost::json::object& body);

// The bank-link store's refusals as the API answers them.
[[noreturn]] void fail_link(bank_link_error error);

}  // namespace corridor
