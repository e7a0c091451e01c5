#pragma once
// The double-entry book, after TigerBeetle: accounts hold cumulative posted debits and credits;
// transfers are immutable, each moving one amount from one account to another of the same currency
// and tenant, so every transfer balances by construction. An internal account's balance is
// credits - debits and can never go below zero: the debit is a single conditional UPDATE, which holds
// under any concurrency, across processes sharing one PostgreSQL included. Callers own the database
// transaction (the ledger writer's batch).
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

enum class account_kind { customer, platform, liquidity, fees, settlement };
std::string_view to_string(account_kind kind);

struct ledger_account {
    std::string id;  // InternalAccount:<uuid> for customer/platform, ServiceAccount:<uuid> otherwise
    tenant owner;
    account_kind kind = account_kind::customer;
    std::string owner_id;  // customer id, or empty
    std::string currency;
    std::string reference;  // identifies the account on incoming bank transfers
    bool must_not_overdraw = true;
    std::int64_t debits_posted = 0;
    std::int64_t credits_posted = 0;
    std::int64_t created_at_ms = 0;
    std::int64_t updated_at_ms = 0;

    std::int64_t balance() const { return credits_posted - debits_posted; }
};

struct book_services {
    id_generator& ids;
    random_source& random;
    const clock& time;
};

// Returns the account's id, creating it when missing (internal accounts at customer creation and
// when a currency is added; service accounts on first use).
std::string ensure_account(soci::session& session, book_services services, const tenant& owner,
                           account_kind kind, const std::string& owner_id,
                           const std::string& currency);

// Opens the internal accounts of a customer created in the same transaction, one per currency
// (listed once each). Unlike ensure_account it reads nothing back: the ids are not needed there.
void open_new_customer_accounts(soci::session& session, book_services services, const tenant& owner,
                                const std::string& customer_id,
                                const std::vector<std::string>& currencies);

// A customer just created and the currencies of its accounts (each listed once).
struct new_customer_accounts {
    const std::string* customer_id;
    const std::vector<std::string>* currencies;
};
// open_new_customer_accounts for many customers of one batch, in one multi-row INSERT per chunk
// (multi_row.hpp) instead of one statement per account.
void open_new_customers_accounts(soci::session& session, book_services services,
                                 const tenant& owner,
                                 const std::vector<new_customer_accounts>& customers);

std::optional<ledger_account> find_account(soci::session& session, const tenant& owner,
                                           const std::string& id);

// What never changes of an account once written: its owner, kind and currency.
struct account_identity {
    std::string id;
    tenant owner;
    account_kind kind = account_kind::customer;
    std::string owner_id;  // customer id, or empty
    std::string currency;
};
// find_account without the balances: in the ledger writer's batch, remembered from an earlier
// batch that read or opened the account when it can be (ledger/store/writer_facts.hpp), so no read.
std::optional<account_identity> find_account_identity(soci::session& session, const tenant& owner,
                                                      const std::string& id);

struct account_filter {
    std::optional<std::string> currency;
    std::optional<std::string> customer_id;
    bool platform_only = false;
};
page<ledger_account> list_internal_accounts(soci::session& session, const tenant& owner,
                                            const account_filter& filter,
                                            const page_request& request);

// The tenant's internal accounts summed per currency: the platform's own and its customers'.
struct currency_balance {
    std::string currency;
    std::int64_t platform_balance = 0, customer_balance = 0;
    std::int64_t customer_accounts = 0;  // how many customer accounts hold the currency
};
std::vector<currency_balance> balances_by_currency(soci::session& session, const tenant& owner);

struct transfer_request {
    std::string debit_account_id;
    std::string credit_account_id;
    std::int64_t amount = 0;
    std::string currency;
    std::string code;            // why: fund, send, fx, fee, receive, refund, ...
    std::string transaction_id;  // the business transaction it belongs to
};

enum class transfer_error { insufficient_funds, account_not_found, currency_mismatch, overflow };

// Posts one transfer. On an error nothing of it is written.
result<std::string, transfer_error> post_transfer(soci::session& session, book_services services,
                                                  const tenant& owner,
                                                  const transfer_request& request);

// A refusal among several transfers: which one, and why.
struct transfers_refusal {
    std::size_t index = 0;
    transfer_error error = transfer_error::insufficient_funds;
};

// Posts the transfers in order, as post_transfer would one after the other: on a refusal the
// transfers before it stay posted and nothing of it or of those after it is written. In the ledger
// writer's batch on PostgreSQL their conditional updates go out together, one round trip for all
// (after a refusal, those that went through after it are taken back).
result<std::vector<std::string>, transfers_refusal> post_transfers(
    soci::session& session, book_services services, const tenant& owner,
    const std::vector<transfer_request>& requests);

// An account's balance (credits - debits) as the caller's transaction sees it. Read after the
// caller's own post_transfer on the account, it is exactly what that transfer left: the row is held
// by the transaction (locked on PostgreSQL; SQLite has one writer) until it ends.
std::optional<std::int64_t> account_balance(soci::session& session, const std::string& id);

// Recomputes every account's posted totals from the transfers and compares; returns the ids of
// accounts that disagree, or are overdrawn against their flag (and a message for any other finding
// of audit_ledger, ledger/book/audit.hpp, where it is defined). The auditor of the simulation tests.
std::vector<std::string> audit_book(soci::session& session);

}  // namespace corridor
