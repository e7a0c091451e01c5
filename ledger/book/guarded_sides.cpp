#include "ledger/book/guarded_sides.hpp"

#include <limits>

#include "ledger/base/assert.hpp"
#include "ledger/store/control_queue.hpp"

namespace corridor {
namespace {

constexpr std::int64_t posted_max = std::numeric_limits<std::int64_t>::max();

constexpr const char* credit_pipelined_sql =
    "UPDATE ledger_accounts SET credits_posted = credits_posted + $1, updated_at_ms = $2 WHERE "
    "id = $3 AND platform_id = $4 AND environment = $5 AND currency = $6 AND credits_posted <= $7 "
    "RETURNING credits_posted - debits_posted";
// The overdraft guard as in post_transfer: in the WHERE clause, on the row as locked.
constexpr const char* debit_pipelined_sql =
    "UPDATE ledger_accounts SET debits_posted = debits_posted + $1, updated_at_ms = $2 WHERE "
    "id = $3 AND platform_id = $4 AND environment = $5 AND currency = $6 AND debits_posted <= $7 "
    "AND (must_not_overdraw = 0 OR credits_posted - debits_posted >= $1) "
    "RETURNING credits_posted - debits_posted";

}  // namespace

pipelined_statement guarded_side_statement(const tenant& owner, const transfer_request& request,
                                           bool debit, long long now_ms) {
    CORRIDOR_ASSERT(request.amount > 0);
    CORRIDOR_ASSERT(request.debit_account_id != request.credit_account_id);
    return {debit ? debit_pipelined_sql : credit_pipelined_sql,
            {std::to_string(request.amount), std::to_string(now_ms),
             debit ? request.debit_account_id : request.credit_account_id, owner.platform_id,
             std::string(owner.env_name()), request.currency,
             std::to_string(posted_max - request.amount)},
            false,
            true};  // prepared once per connection, with an index plan (batch_send.hpp)
}

void queue_guarded_sides(soci::session& session, deferred_writes& deferred, const tenant& owner,
                         const std::vector<transfer_request>& requests, long long now_ms) {
    for (const auto& request : requests) {
        for (bool debit : {false, true}) {
            const std::string& id = debit ? request.debit_account_id : request.credit_account_id;
            if (is_service_account(id)) continue;
            // The payment's conditions (its customers' states) are checked just before its debit,
            // each a statement of its own: prepared once per connection, a lookup by primary key
            // of rows that are not hot, so that PostgreSQL does not plan it for every payment
            // (folded into the debit's WHERE clause, it doubled the debit's planning time); a
            // customer already checked ahead in the queue is not checked again.
            if (debit) queue_condition_checks(session, deferred, deferred.take_conditions());
            auto statement = guarded_side_statement(owner, request, debit, now_ms);
            std::size_t slot = deferred.add_guarded(id);
            bool queued = queue_guarded(session, std::move(statement.sql),
                                        std::move(statement.params), slot, statement.prepared);
            CORRIDOR_ASSERT(queued);  // an optimistic attempt runs inside the writer's batch
        }
    }
}

}  // namespace corridor
