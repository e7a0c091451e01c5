#pragma once
// SQLite: the rows a ledger batch kept for its flush (deferred_writes.hpp), written by multi-row
// statements (sqlite_rows.hpp): the same rows, in the same order, as one INSERT per row wrote.
#include <soci/soci.h>

#include <vector>

#include "ledger/store/deferred_writes.hpp"
#include "ledger/store/outbox_handover.hpp"

namespace corridor {

void insert_transfers_sqlite(soci::session& session, const std::vector<deferred_transfer>& rows);
// Each event is recorded PENDING or already closed (NO_ENDPOINT) as outbox_event_insert_sql
// decides it: from the stored webhook endpoint of its tenant, read in the flush's transaction;
// `leases` (one per row, outbox_handover.hpp) say which are inserted leased to this process's
// delivery.
void insert_events_sqlite(soci::session& session, const std::vector<deferred_event>& rows,
                          const std::vector<outbox_lease>& leases);

}  // namespace corridor
