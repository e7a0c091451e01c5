#pragma once
// Rows of rail_operations: the state of each payout or pull driven through a rail. Claiming is by
// lease (lease_until_ms), taken inside the caller's write transaction with FOR UPDATE SKIP LOCKED
// on PostgreSQL, so several processes sharing one database never initiate the same row at once.
#include <soci/soci.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ledger/base/tenant.hpp"

namespace corridor {

struct rail_operation {
    std::string id;  // RailOperation:<uuid>
    tenant owner;
    std::string rail;
    std::string direction;  // PAYOUT or PULL
    std::string status;     // INITIATING, PENDING, SETTLED, FAILED, RETURNED
    std::string transaction_id, internal_account_id, external_account_id;
    std::string account_type, account_json, currency;
    std::int64_t amount = 0;
    std::string description;
    std::string rail_reference, rail_reason_code, failure_class, failure_reason, message;
    int attempts = 0;
    std::int64_t lease_until_ms = 0, deadline_at_ms = 0, created_at_ms = 0, updated_at_ms = 0;
    // The node whose rail was handed the operation ('' = none holds it) and that node's run.
    std::string rail_node, rail_epoch;

    bool is_final() const {
        return status == "SETTLED" || status == "FAILED" || status == "RETURNED";
    }
};

void insert_rail_operation(soci::session& session, const rail_operation& operation);
// Writes the mutable columns (status through rail_epoch).
void update_rail_operation(soci::session& session, const rail_operation& operation);
// Any tenant: operation ids come back from plugins, which know no tenants. Locks the row for the
// caller's transaction on PostgreSQL.
std::optional<rail_operation> find_rail_operation(soci::session& session, const std::string& id);
std::optional<rail_operation> find_rail_operation_by_transaction(soci::session& session,
                                                                 const tenant& owner,
                                                                 const std::string& transaction_id);
// INITIATING rows whose lease has run out and that no other node's rail holds, oldest first;
// locked for the caller's transaction.
std::vector<rail_operation> claim_due_initiations(soci::session& session, std::int64_t now_ms,
                                                  int limit, const std::string& node);
// Open rows of `rails` that this node's rails were handed in an earlier run (rail_epoch is not
// `epoch`) and whose lease has run out, plus PENDING rows that no node holds (written before nodes
// were recorded); locked likewise. The caller initiates them again, as retries.
std::vector<rail_operation> claim_restarted(soci::session& session, std::int64_t now_ms, int limit,
                                            const std::string& node, const std::string& epoch,
                                            const std::vector<std::string>& rails);
// Open (INITIATING or PENDING) rows past their deadline, oldest first; locked likewise.
std::vector<rail_operation> claim_overdue(soci::session& session, std::int64_t now_ms, int limit);

}  // namespace corridor
