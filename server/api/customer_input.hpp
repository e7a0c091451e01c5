#pragma once
// Reading, rendering and refusing customers, shared by every route that makes or changes one
// (POST/PATCH /customers, the bulk CSV import, the hosted KYC page), so all apply the same rules.
// Invalid input throws api_error (400 naming the field).
#include <boost/json/object.hpp>
#include <cstdint>
#include <string>

#include "ledger/customers/customer_store.hpp"
#include "ledger/platforms/platform_store.hpp"

namespace corridor {

// Type-checks every field the interface defines for customer bodies (400 naming the field).
void check_customer_shape(const boost::json::object& body);
// The shape-specific fields of a body; `create` makes the ones required at creation required.
customer_fields read_customer_fields(const boost::json::object& body,
                                     const std::string& customer_type,
                                     const std::string& uma_domain, bool create,
                                     std::int64_t now_ms);
// Everything POST /customers reads: type, platformCustomerId, fields, initial KYC status, accounts.
new_customer read_new_customer(const boost::json::object& body, const platform_config& config,
                               std::int64_t now_ms);
boost::json::object render_customer(const customer& item);
// Throws the api_error of a store refusal (404, 409, 410).
[[noreturn]] void fail_customer(customer_error error, const std::string& id);

}  // namespace corridor
