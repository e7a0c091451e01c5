#pragma once
// External accounts: payout and funding destinations outside the service (bank accounts, wallets),
// owned by a customer or by the platform itself, tenant-scoped like every store.
//
// Lifecycle: an account is created PENDING with a screening time; the upkeep loop turns due
// accounts ACTIVE (screen_due_external_accounts), writing an ACCOUNT_STATUS event in the same
// transaction. Screening is automatic: no screening provider is wired in, so every account passes
// after external_accounts.screening_delay_ms. In the sandbox the beneficiary check follows the
// primary identifier's last digits (102 NOT_MATCHED, 103 PARTIAL_MATCH, 104 stays PENDING).
#include <soci/soci.h>

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "ledger/customers/account_details.hpp"
#include "ledger/base/clock.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/store/page.hpp"
#include "ledger/base/result.hpp"
#include "ledger/base/tenant.hpp"

namespace corridor {

struct external_account {
    std::string id;  // ExternalAccount:<uuid>
    tenant owner;
    std::optional<std::string> customer_id;  // none: the platform's own account
    std::string account_type;
    std::string currency;
    std::string account_info_json;  // the normalised accountInfo document
    std::string identity;           // see validated_details::identity
    std::string primary_identifier;
    std::optional<std::string> beneficiary_name;
    std::optional<std::string> platform_account_id;
    std::string status;  // PENDING, ACTIVE, UNDER_REVIEW, INACTIVE
    std::string beneficiary_verification_status;
    std::optional<std::string> beneficiary_verified_name;
    bool default_uma_deposit = false;
    std::string origin;  // API or BANK_LINK
    std::optional<std::int64_t> screening_due_at_ms;
    std::int64_t created_at_ms = 0;
    std::int64_t updated_at_ms = 0;
};

struct new_external_account {
    std::optional<std::string> customer_id;
    std::string currency;
    validated_details details;
    std::optional<std::string> platform_account_id;
    bool default_uma_deposit = false;  // only for customer accounts
    std::string origin = "API";
    std::int64_t screening_delay_ms = 0;
};

enum class external_account_error {
    customer_not_found,
    customer_deleted,
    duplicate,         // the owner already has this destination
    default_conflict,  // another default UMA deposit account was set concurrently
};

struct external_account_filter {
    bool platform_owned = false;  // true: the platform's accounts; false: customers' accounts
    std::optional<std::string> currency;
    std::optional<std::string> customer_id;
};

struct external_account_services {
    id_generator& ids;
    const clock& time;
};

// Creates a PENDING account. Setting default_uma_deposit clears the owner's previous default in
// the same transaction; a unique index keeps it to one per customer under any concurrency.
result<external_account, external_account_error> create_external_account(
    soci::session& session, external_account_services services, const tenant& owner,
    const new_external_account& request);

// Any account of the tenant, customer's or platform's; another tenant's id reads as not found.
std::optional<external_account> find_external_account(soci::session& session, const tenant& owner,
                                                      const std::string& id);

page<external_account> list_external_accounts(soci::session& session, const tenant& owner,
                                              const external_account_filter& filter,
                                              const page_request& request);

// Turns at most `limit` PENDING accounts whose screening time has come ACTIVE, each with its
// ACCOUNT_STATUS event. A conditional update claims each row, so any number of processes may run
// it at once. Returns how many turned ACTIVE.
int screen_due_external_accounts(soci::session& session, external_account_services services,
                                 int limit);

// The ExternalAccount resource of the interface.
boost::json::object render_external_account(const external_account& account);

}  // namespace corridor
