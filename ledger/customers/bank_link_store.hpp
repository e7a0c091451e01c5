#pragma once
// The bank-linking flow. A platform asks for a link token for one of its customers; the customer
// opens the hosted page at the link, picks a bank and an account, and gets a public token; the
// public token is posted to the callback, which creates a PENDING external account (screened into
// ACTIVE later, like any other). A link token is single use and expires; both tokens are 256-bit
// random values of which only the SHA-256 is stored.
//
// The banks are the sandbox's test banks: no bank-data provider is wired in, so the same catalogue
// serves both environments. Account numbers ending 002..005 trigger the sandbox failure patterns
// of the rails.
#include <soci/soci.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/base/clock.hpp"
#include "ledger/customers/external_account_store.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/base/random.hpp"
#include "ledger/base/result.hpp"
#include "ledger/base/tenant.hpp"

namespace corridor {

struct test_bank_account {
    std::string_view id;  // the accountId a callback may name
    std::string_view name;
    std::string_view category;  // CHECKING or SAVINGS
    std::string_view number;
};

struct test_bank {
    std::string_view id;
    std::string_view name;
    std::string_view routing_number;
    std::vector<test_bank_account> accounts;
};

const std::vector<test_bank>& test_banks();
const test_bank* find_test_bank(std::string_view id);

struct bank_link_services {
    id_generator& ids;
    random_source& random;
    const clock& time;
};

struct issued_link_token {
    std::string link_token;
    std::int64_t expires_at_ms = 0;
};

// What the hosted page knows of a link token: nothing that identifies the platform's customer.
struct link_token_state {
    tenant owner;
    std::string customer_id;
    std::int64_t expires_at_ms = 0;
    bool used = false;
    std::optional<std::string> bank_id, bank_account_id;  // set once the person picked
};

enum class bank_link_error {
    customer_not_found,
    customer_deleted,
    token_not_found,  // unknown or expired
    token_used,
    public_token_mismatch,  // not the public token issued for this link (or none issued yet)
    unknown_bank_account,
    duplicate_account,
};

result<issued_link_token, bank_link_error> create_link_token(soci::session& session,
                                                             bank_link_services services,
                                                             const tenant& owner,
                                                             const std::string& customer_id,
                                                             std::int64_t ttl_ms);

// The link token's state when it exists and has not expired (used tokens are returned, marked).
std::optional<link_token_state> find_link_token(soci::session& session, const clock& time,
                                                std::string_view link_token);

// The person picked `bank_id`/`account_id` on the hosted page: returns a fresh public token,
// replacing any issued before for this link token.
result<std::string, bank_link_error> issue_public_token(soci::session& session,
                                                        bank_link_services services,
                                                        std::string_view link_token,
                                                        std::string_view bank_id,
                                                        std::string_view account_id);

// The callback: checks the public token, uses the link token up, and creates the PENDING account
// (account_id, when given, picks another account of the same bank login).
result<external_account, bank_link_error> complete_bank_link(
    soci::session& session, bank_link_services services, std::string_view link_token,
    std::string_view public_token, const std::optional<std::string>& account_id,
    std::int64_t screening_delay_ms);

}  // namespace corridor
