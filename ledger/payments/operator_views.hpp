#pragma once
// What the operator's command-line tools show (`corridor platform list`, `token list`, `payment
// show`, `rails operations`, `webhooks backlog`): read-only views across every tenant, as rows of
// named fields. They never read a secret (token hashes, private keys) nor account details in
// clear (rail operations' account_json). The one write here, revoke_token_any_tenant, is the
// operator's `token revoke`.
#include <soci/soci.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ledger/base/clock.hpp"

namespace corridor {

// One column of a row: its name (snake_case, as stored), whether it holds an integer, and its
// value as text (nullopt for SQL NULL).
struct view_field {
    std::string name;
    bool integer = false;
    std::optional<std::string> value;
};
using view_row = std::vector<view_field>;

// The text of a field, or "" when the row has no such field or it is NULL.
std::string field_text(const view_row& row, const std::string& name);

std::vector<view_row> platforms_view(soci::session& session);
// Every token of the platform, both environments, revoked ones included (is_deleted = 1).
std::vector<view_row> tokens_view(soci::session& session, const std::string& platform_id);

enum class revoke_outcome { revoked, already_revoked, not_found };
revoke_outcome revoke_token_any_tenant(soci::session& session, const clock& time,
                                       const std::string& token_id);

// A transaction with everything recorded about it: its ledger postings, its rail operations and
// the webhook events that carry it, with their delivery attempts.
struct payment_view {
    view_row transaction;
    std::vector<view_row> postings;
    std::vector<view_row> rail_operations;
    std::vector<view_row> webhook_events;
    std::vector<view_row> webhook_attempts;
};
std::optional<payment_view> find_payment_view(soci::session& session,
                                              const std::string& transaction_id);

// The reads of find_payment_view that take a range of a primary key (the transaction's transfers
// and webhook events), as it sends them for this transaction, with their parameters in order:
// what a plan check EXPLAINs. Empty when there is no such transaction.
struct view_statement {
    std::string sql;
    std::vector<std::string> params;
};
std::vector<view_statement> payment_view_range_reads(soci::session& session,
                                                     const std::string& transaction_id);

// Rail operations, newest first (at most `limit`). With stuck_only, the open ones (INITIATING or
// PENDING) that are overdue (past deadline_at_ms) or still INITIATING call_timeout_ms after
// their last change: a rail that never answered. Each row gets a `stuck_reason` field
// (OVERDUE, NO_RAIL_ANSWER or '').
std::vector<view_row> rail_operations_view(soci::session& session, bool stuck_only,
                                           std::int64_t now_ms, std::int64_t call_timeout_ms,
                                           int limit);

// Undelivered webhook events (state PENDING) per platform environment: how many, the oldest's
// creation time, how many have failed at least one attempt and the failed attempts in all.
std::vector<view_row> webhook_backlog_view(soci::session& session,
                                           const std::optional<std::string>& platform_id);

}  // namespace corridor
