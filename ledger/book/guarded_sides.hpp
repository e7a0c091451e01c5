#pragma once
// The conditional UPDATEs of transfers posted together on PostgreSQL in the ledger writer's batch
// (post_transfers): one per side that is not a service account's, guarded by tenant, currency and
// ceiling, the debit also by the overdraft guard, each returning the balance after it.
#include <soci/soci.h>

#include <string>
#include <vector>

#include "ledger/base/tenant.hpp"
#include "ledger/book/book.hpp"
#include "ledger/store/batch_send.hpp"
#include "ledger/store/deferred_writes.hpp"

namespace corridor {

// The UPDATE of one side of `request`.
pipelined_statement guarded_side_statement(const tenant& owner, const transfer_request& request,
                                           bool debit, long long now_ms);

// The optimistic attempt (deferred_writes.hpp): queues the guarded side updates of `requests`
// without waiting for their answers, the batch's pending conditions checked just before the first
// debit.
void queue_guarded_sides(soci::session& session, deferred_writes& deferred, const tenant& owner,
                         const std::vector<transfer_request>& requests, long long now_ms);

// Service accounts (liquidity, fees, settlement) have no overdraft guard, and their ids come only
// from ensure_account for the transfer's owner and currency: their postings need no check of the
// row and can wait for the batch's flush.
inline bool is_service_account(const std::string& id) {
    return id.starts_with("ServiceAccount:");
}

}  // namespace corridor
