#pragma once
// The ledger auditor: rebuilds every account's posted totals from the immutable transfers and
// checks them, and the other invariants of the book, against what is stored. Used by `corridor
// audit` and by the simulation tests (through audit_book in book.hpp). It only reads: run it on a
// live database, or on a restored copy before serving from it.
#include <soci/soci.h>

#include <cstdint>
#include <string>
#include <vector>

namespace corridor {

struct audit_finding {
    std::string account_id;   // the account concerned; empty for a finding about a currency
    std::string transfer_id;  // the transfer concerned, when one is
    std::string check;        // balance_mismatch, overdrawn, unknown_account, currency_mismatch,
                              // tenant_mismatch, non_positive_amount, currency_unbalanced
    std::string message;      // what differs, with the stored and the rebuilt values
};

struct audit_report {
    std::int64_t accounts = 0;
    std::int64_t transfers = 0;
    std::vector<audit_finding> findings;
    bool clean() const { return findings.empty(); }
};

// Checks that:
// - each account's debits_posted and credits_posted equal the sums of its transfers;
// - no account that must not overdraw (customer and platform accounts) is below zero;
// - each transfer names existing accounts of one tenant (the transfer's: it has no tenant columns)
//   and of its currency, and a positive amount (so its debit equals its credit in one currency);
// - each currency's stored debits equal its stored credits across all accounts.
// Reads in the caller's transaction, if any.
audit_report audit_ledger(soci::session& session);
// The same in a read-only transaction of its own on one snapshot (REPEATABLE READ on PostgreSQL,
// one read transaction on SQLite), so payments committing meanwhile never read as differences.
audit_report audit_ledger_snapshot(soci::session& session);

}  // namespace corridor
