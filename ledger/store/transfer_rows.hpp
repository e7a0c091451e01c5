#pragma once
// The rows of a batch's transfers as PostgreSQL's flush sends them: one INSERT ... SELECT over
// unnest() of array parameters (deferred_writes.hpp). A row stores its ids as uuids and its
// accounts by key (migration 46).
#include <vector>

#include "ledger/store/batch_send.hpp"
#include "ledger/store/deferred_writes.hpp"

namespace corridor {

// An account key the writer did not know (0, account_key_of in ledger/book/account_opening.hpp)
// is found by the statement from the account's id, sent for those rows alone.
pipelined_statement transfers_unnest_statement(const std::vector<deferred_transfer>& rows);

}  // namespace corridor
