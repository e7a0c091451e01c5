#pragma once
// The bulk customer CSV: its columns, how one record becomes the body of POST /customers (so the
// import applies exactly that route's rules), and how a job renders.
#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ledger/customers/bulk_import_store.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "server/api/errors.hpp"

namespace corridor {

// Column positions by name, from the header record.
struct bulk_csv_columns {
    std::vector<std::string> names;
    std::optional<std::size_t> find(std::string_view name) const;
};

// The columns of a header record; an api_error (400) when a required column is missing, a name is
// repeated or empty, or the header is not UTF-8. Unknown columns are ignored, like unknown JSON
// fields.
bulk_csv_columns read_bulk_csv_header(const std::vector<std::string>& header);

// The POST /customers body of a record; throws api_error naming the CSV column.
boost::json::object bulk_csv_record_body(const bulk_csv_columns& columns,
                                         const std::vector<std::string>& fields);

// Validates and converts a record into the customer POST /customers would create; throws api_error
// whose details.field names the CSV column.
new_customer read_bulk_csv_customer(const bulk_csv_columns& columns,
                                    const std::vector<std::string>& fields,
                                    const platform_config& config, std::int64_t now_ms);

// The row's error entry: correlationId is its platformCustomerId when it has one, else its number.
bulk_import_row_error bulk_row_error(const api_error& error, std::int64_t row_number,
                                     const std::string& platform_customer_id);

// BulkCustomerImportJob: {id, status, progress, errors?, completedAt?}.
boost::json::object render_bulk_import_job(const bulk_import_job& job,
                                           const std::vector<bulk_import_row_error>& errors);

}  // namespace corridor
