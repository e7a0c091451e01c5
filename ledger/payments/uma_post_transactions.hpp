#pragma once
// Post-transaction callbacks (UMAD-07) owed to the providers of UMA receivers we paid. The row is
// written in the transaction that completes the payment, so a callback exists exactly when its
// payment completed; a background worker claims due rows (in the database: FOR UPDATE SKIP LOCKED
// on PostgreSQL, and a lease in next_attempt_at_ms), sends them, and records each attempt. A
// worker that dies mid-attempt leaves the row to be claimed again when the lease runs out, so a
// callback may be sent more than once (at least once), never an unbounded number of times.
#include <soci/soci.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ledger/base/tenant.hpp"

namespace corridor {

struct uma_post_transaction {
    std::string transaction_id;
    tenant owner;
    std::string quote_id;
    std::string url;          // the receiver's utxoCallback
    std::string vasp_domain;  // ours, as the receiver knows us
    std::int64_t amount_msats = 0;
    std::string state = "PENDING";  // PENDING, DELIVERED, GAVE_UP
    int attempts = 0;
    std::int64_t next_attempt_at_ms = 0;
    std::string last_error;
    std::int64_t created_at_ms = 0, updated_at_ms = 0;
};

// A PENDING callback, due at once.
void enqueue_uma_post_transaction(soci::session& session, const uma_post_transaction& callback);
// Up to `limit` PENDING callbacks due at now_ms (any tenant), oldest first; each is leased for
// lease_ms (its next_attempt_at_ms moves there) in the caller's transaction.
std::vector<uma_post_transaction> claim_due_uma_post_transactions(soci::session& session,
                                                                  std::int64_t now_ms,
                                                                  std::int64_t lease_ms, int limit);
// Writes state, attempts, next_attempt_at_ms, last_error and updated_at_ms.
void update_uma_post_transaction(soci::session& session, const uma_post_transaction& callback);
std::optional<uma_post_transaction> find_uma_post_transaction(soci::session& session,
                                                              const tenant& owner,
                                                              const std::string& transaction_id);

}  // namespace corridor
