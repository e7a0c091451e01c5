#pragma once
// Customers of a platform environment. Structured sub-documents (address, businessInfo,
// beneficialOwners) are validated at the edge and stored as JSON text.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <soci/soci.h>

#include "ledger/base/clock.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/store/page.hpp"
#include "ledger/base/random.hpp"
#include "ledger/base/result.hpp"
#include "ledger/base/tenant.hpp"

namespace corridor {

struct customer {
    std::string id;  // Customer:<uuid>
    tenant owner;
    std::string platform_customer_id;
    std::string customer_type;  // INDIVIDUAL or BUSINESS
    std::string uma_address;
    std::string kyc_status;
    std::optional<std::string> full_name, birth_date, nationality;
    std::optional<std::string> address_json, business_info_json, beneficial_owners_json;
    bool is_deleted = false;
    std::int64_t created_at_ms = 0;
    std::int64_t updated_at_ms = 0;
};

struct customer_fields {
    std::optional<std::string> uma_address;  // normalised "$user@domain"
    std::optional<std::string> full_name, birth_date, nationality;
    std::optional<std::string> address_json, beneficial_owners_json;
    // A JSON object. On update it holds only the keys to change, merged into the stored object
    // (PATCH may send any subset of legalName, registrationNumber, taxId).
    std::optional<std::string> business_info_json;
};

struct new_customer {
    std::optional<std::string> platform_customer_id;
    std::string customer_type;
    std::string kyc_status;
    customer_fields fields;
    // One internal account is opened per currency, in the same transaction as the customer.
    std::vector<std::string> account_currencies;
};

enum class customer_error {
    not_found,
    deleted,
    uma_address_taken,
    platform_customer_id_taken,
    customer_type_mismatch,
};

struct customer_filter {
    std::optional<std::string> platform_customer_id, customer_type, uma_address;
    std::optional<std::int64_t> created_after_ms, created_before_ms;
    std::optional<std::int64_t> updated_after_ms, updated_before_ms;
    bool include_deleted = false;
};

struct customer_services {
    id_generator& ids;
    random_source& random;
    const clock& time;
};

// uma_domain is the platform's, used to generate an address when none is given.
result<customer, customer_error> create_customer(soci::session& session,
                                                 customer_services services, const tenant& owner,
                                                 const std::string& uma_domain,
                                                 const new_customer& request);
// create_customer for the rows of a batch (the bulk import), inside the caller's transaction and
// with a few statements per batch instead of several per customer: one lookup of the addresses and
// one of the platformCustomerIds already taken, one multi-row INSERT of the customers and one of
// their accounts. Each request succeeds or fails alone with the outcome create_customer would give
// it, the requests taken in order (a later row loses to an earlier row of the batch that took its
// address or platformCustomerId). Gives the new customers' ids. Should a concurrent writer take a
// key between the lookup and the INSERT, the batch is redone one create_customer at a time.
std::vector<result<std::string, customer_error>> create_customers(
    soci::session& session, customer_services services, const tenant& owner,
    const std::string& uma_domain, const std::vector<new_customer>& requests);
// The batch as create_customers would decide it when none of its keys is held in the database yet:
// its rows go in at once, with no lookups first, in a savepoint; nullopt when a unique index
// refused a key (a row of the batch lost to a customer already stored, or to one another writer is
// adding): the savepoint is rolled back and nothing of the batch stays, and create_customers
// decides it. Where it gives outcomes they are create_customers' (rows of the batch are still
// checked against one another), at two statements (two lookups of 500 keys) less per batch. Not
// while a live customer has a shadowed address (migration 20): the index of addresses across
// environments leaves those out, so only create_customers' lookup would find them
// (shadowed_addresses_exist).
std::optional<std::vector<result<std::string, customer_error>>> insert_customers_at_once(
    soci::session& session, customer_services services, const tenant& owner,
    const std::string& uma_domain, const std::vector<new_customer>& requests);
// True when a live customer holds an address shadowed by migration 20. Reads the whole table
// (no index holds the mark): once per import job, not per batch.
bool shadowed_addresses_exist(soci::session& session);
// On PostgreSQL, refreshes the planner's statistics of the customers table (a no-op on SQLite).
// A bulk import grows the table many times over faster than autovacuum analyzes it, and with
// statistics of a much smaller table the planner takes the batch lookups of platformCustomerIds
// through the (environment, uma_address) index, reading every row of the environment per key.
void refresh_customer_statistics(soci::session& session);
page<customer> list_customers(soci::session& session, const tenant& owner,
                              const customer_filter& filter, const page_request& request);
std::optional<customer> find_customer(soci::session& session, const tenant& owner,
                                      const std::string& id);
result<customer, customer_error> update_customer(soci::session& session, const clock& time,
                                                 const tenant& owner, const std::string& id,
                                                 const std::string& customer_type,
                                                 const customer_fields& changes);
result<customer, customer_error> delete_customer(soci::session& session, const clock& time,
                                                 const tenant& owner, const std::string& id);

}  // namespace corridor
