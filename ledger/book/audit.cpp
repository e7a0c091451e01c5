#include "ledger/book/audit.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include "ledger/book/book.hpp"
#include "ledger/store/database.hpp"

namespace corridor {
namespace {

struct stored_account {
    std::string platform_id, environment, currency;
    bool must_not_overdraw = true;
    long long debits = 0, credits = 0;
    long long rebuilt_debits = 0, rebuilt_credits = 0;
};

std::map<std::string, stored_account> read_accounts(soci::session& session) {
    std::map<std::string, stored_account> accounts;
    std::string id;
    stored_account row;
    int guard = 0;
    soci::statement select =
        (session.prepare << "SELECT id, platform_id, environment, currency, must_not_overdraw, "
                            "debits_posted, credits_posted FROM ledger_accounts",
         soci::into(id), soci::into(row.platform_id), soci::into(row.environment),
         soci::into(row.currency), soci::into(guard), soci::into(row.debits),
         soci::into(row.credits));
    select.execute(false);
    while (select.fetch()) {
        row.must_not_overdraw = guard != 0;
        accounts[id] = row;
    }
    return accounts;
}

void check_leg(audit_report& report, std::map<std::string, stored_account>& accounts,
               const std::string& transfer_id, const std::string& account_id,
               const std::string& currency, long long amount, bool debit) {
    auto found = accounts.find(account_id);
    if (found == accounts.end()) {
        report.findings.push_back(
            {account_id, transfer_id, "unknown_account",
             fmt::format("transfer {} {} account {}, which does not exist", transfer_id,
                         debit ? "debits" : "credits", account_id)});
        return;
    }
    auto& account = found->second;
    (debit ? account.rebuilt_debits : account.rebuilt_credits) += amount;
    if (account.currency != currency) {
        report.findings.push_back(
            {account_id, transfer_id, "currency_mismatch",
             fmt::format("transfer {} moves {} but account {} holds {}", transfer_id, currency,
                         account_id, account.currency)});
    }
}

// A transfer's tenant is its accounts' (ledger_transfers has no tenant columns): both of one.
void check_tenant(audit_report& report, const std::map<std::string, stored_account>& accounts,
                  const std::string& transfer_id, const std::string& debit,
                  const std::string& credit) {
    auto from = accounts.find(debit), to = accounts.find(credit);
    if (from == accounts.end() || to == accounts.end()) return;  // unknown_account already
    if (from->second.platform_id == to->second.platform_id &&
        from->second.environment == to->second.environment)
        return;
    report.findings.push_back(
        {credit, transfer_id, "tenant_mismatch",
         fmt::format("transfer {} moves money from account {} of {} ({}) to account {} of {} ({})",
                     transfer_id, debit, from->second.platform_id, from->second.environment, credit,
                     to->second.platform_id, to->second.environment)});
}

void rebuild_from_transfers(soci::session& session, audit_report& report,
                            std::map<std::string, stored_account>& accounts) {
    std::string id, debit, credit, currency;
    long long amount = 0;
    soci::statement select =
        // A posting names its accounts by key (migration 46); one whose key names no account
        // keeps it in the key's text, which no account's id is (unknown_account).
        (session.prepare << "SELECT typed_id('Transfer', t.id), COALESCE(d.id, 'AccountKey:' || "
                            "CAST(t.debit_account_key AS TEXT)), COALESCE(c.id, 'AccountKey:' || "
                            "CAST(t.credit_account_key AS TEXT)), t.amount, t.currency FROM "
                            "ledger_transfers t LEFT JOIN ledger_accounts d ON d.account_key = "
                            "t.debit_account_key LEFT JOIN ledger_accounts c ON c.account_key = "
                            "t.credit_account_key",
         soci::into(id), soci::into(debit), soci::into(credit), soci::into(amount),
         soci::into(currency));
    select.execute(false);
    while (select.fetch()) {
        ++report.transfers;
        if (amount <= 0 || debit == credit) {
            report.findings.push_back(
                {debit, id, "non_positive_amount",
                 fmt::format("transfer {} moves {} from {} to {}", id, amount, debit, credit)});
        }
        check_leg(report, accounts, id, debit, currency, amount, true);
        check_leg(report, accounts, id, credit, currency, amount, false);
        check_tenant(report, accounts, id, debit, credit);
    }
}

void compare_accounts(audit_report& report, const std::map<std::string, stored_account>& accounts) {
    std::map<std::string, std::pair<long long, long long>> by_currency;  // debits, credits
    for (const auto& [id, account] : accounts) {
        ++report.accounts;
        by_currency[account.currency].first += account.debits;
        by_currency[account.currency].second += account.credits;
        if (account.debits != account.rebuilt_debits ||
            account.credits != account.rebuilt_credits) {
            report.findings.push_back(
                {id, "", "balance_mismatch",
                 fmt::format("account {} ({}) stores debits {} and credits {} (balance {}); its "
                             "transfers give debits {} and credits {} (balance {})",
                             id, account.currency, account.debits, account.credits,
                             account.credits - account.debits, account.rebuilt_debits,
                             account.rebuilt_credits,
                             account.rebuilt_credits - account.rebuilt_debits)});
        }
        if (account.must_not_overdraw && account.debits > account.credits) {
            report.findings.push_back(
                {id, "", "overdrawn",
                 fmt::format("internal account {} ({}) is overdrawn: balance {}", id,
                             account.currency, account.credits - account.debits)});
        }
    }
    for (const auto& [currency, totals] : by_currency) {
        if (totals.first != totals.second) {
            report.findings.push_back(
                {"", "", "currency_unbalanced",
                 fmt::format("{}: the accounts store debits {} but credits {}", currency,
                             totals.first, totals.second)});
        }
    }
}

}  // namespace

audit_report audit_ledger(soci::session& session) {
    audit_report report;
    auto accounts = read_accounts(session);
    rebuild_from_transfers(session, report, accounts);
    compare_accounts(report, accounts);
    return report;
}

audit_report audit_ledger_snapshot(soci::session& session) {
    session.begin();
    try {
        if (backend_of(session) == database_backend::postgresql) {
            session << "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY";
        }
        auto report = audit_ledger(session);
        session.rollback();
        return report;
    } catch (...) {
        session.rollback();
        throw;
    }
}

std::vector<std::string> audit_book(soci::session& session) {
    std::vector<std::string> wrong;
    std::set<std::string> seen;
    for (const auto& finding : audit_ledger(session).findings) {
        std::string key = finding.account_id.empty() ? finding.message : finding.account_id;
        if (seen.insert(key).second) wrong.push_back(key);
    }
    return wrong;
}

}  // namespace corridor
