// The webhook events of payments: INCOMING_PAYMENT / OUTGOING_PAYMENT and ACCOUNT_STATUS.
#include <boost/json.hpp>
#include <boost/json/monotonic_resource.hpp>
#include <cstddef>

#include "ledger/base/assert.hpp"
#include "ledger/payments/payment_json.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/store/deferred_writes.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/store/outbox.hpp"
#include "ledger/store/tenant_keys.hpp"

namespace corridor {
namespace json = boost::json;

namespace {

// Event payloads live only until serialized: they are built in an arena on the stack instead of
// allocating every node.
constexpr std::size_t event_arena_bytes = 8192;

}  // namespace

void record_payment_event(soci::session& session, id_generator& ids, const clock& time,
                          const currency_registry& currencies, const transaction_record& t) {
    // Rendered and serialized off the writer's thread when the event packer gets there first
    // (the registry is never changed once loaded; the record is copied).
    record_built_event(
        session, ids, time, t.owner, t.type == "INCOMING" ? "INCOMING_PAYMENT" : "OUTGOING_PAYMENT",
        [&currencies, t] {
            alignas(std::max_align_t) unsigned char buffer[event_arena_bytes];
            json::monotonic_resource arena(buffer, sizeof buffer);
            json::storage_ptr storage(&arena);
            json::object payload(storage);
            payload.emplace("transaction", render_transaction(t, currencies, storage));
            return json::serialize(payload);
        });
}

bool note_transaction_failure_reason(soci::session& session, id_generator& ids, const clock& time,
                                     const currency_registry& currencies, const tenant& owner,
                                     const std::string& transaction_id, const std::string& reason) {
    if (!is_made_id("Transaction", transaction_id))
        return false;  // no transaction's (find_transaction)
    std::string env_name(owner.env_name());
    long long now_ms = time.now_ms();
    // Conditional, so a concurrent status change is never overwritten and the event is written
    // once.
    static const std::string sql =
        "UPDATE transactions SET failure_reason = :f, updated_at_ms = :u WHERE tenant_key = " +
        tenant_key_of(":p", ":e") + " AND id = packed_id(:i) AND failure_reason = ''";
    soci::statement update =
        (session.prepare << sql, soci::use(reason), soci::use(now_ms), soci::use(owner.platform_id),
         soci::use(env_name), soci::use(transaction_id));
    update.execute(true);
    if (update.get_affected_rows() != 1) return false;
    auto transaction = find_transaction(session, owner, transaction_id);
    CORRIDOR_ASSERT(transaction.has_value());  // updated just now, in this transaction
    record_payment_event(session, ids, time, currencies, *transaction);
    return true;
}

namespace {

std::string balance_event_payload(const currency_registry& currencies,
                                  const std::string& account_id, const std::string& customer_id,
                                  const std::string& currency, std::int64_t old_balance,
                                  std::int64_t new_balance,
                                  const std::string& platform_customer_id) {
    alignas(std::max_align_t) unsigned char buffer[event_arena_bytes];
    json::monotonic_resource arena(buffer, sizeof buffer);
    json::storage_ptr storage(&arena);
    json::object payload(
        {{"accountId", account_id},
         {"oldBalance", json::object({{"amount", old_balance},
                                      {"currency", render_currency(currencies, currency, storage)}},
                                     storage)},
         {"newBalance", json::object({{"amount", new_balance},
                                      {"currency", render_currency(currencies, currency, storage)}},
                                     storage)}},
        storage);
    if (!customer_id.empty()) payload["customerId"] = customer_id;
    if (!platform_customer_id.empty()) payload["platformCustomerId"] = platform_customer_id;
    return json::serialize(payload);
}

}  // namespace

void record_balance_event(soci::session& session, id_generator& ids, const clock& time,
                          const currency_registry& currencies, const tenant& owner,
                          const std::string& account_id, const std::string& customer_id,
                          const std::string& currency, std::int64_t old_balance,
                          std::int64_t new_balance, const std::string& platform_customer_id) {
    // Rendered and serialized off the writer's thread when the event packer gets there first, as
    // a payment's event is (the values are copied).
    record_built_event(session, ids, time, owner, "ACCOUNT_STATUS",
                       [&currencies, account_id, customer_id, currency, old_balance, new_balance,
                        platform_customer_id] {
                           return balance_event_payload(currencies, account_id, customer_id,
                                                        currency, old_balance, new_balance,
                                                        platform_customer_id);
                       });
}

bool record_balance_event_late(soci::session& session, id_generator& ids, const clock& time,
                               const currency_registry& currencies, const tenant& owner,
                               const std::string& account_id, const std::string& customer_id,
                               const std::string& currency, std::int64_t change,
                               const std::string& platform_customer_id) {
    deferred_writes* deferred = deferred_writes_of(session);
    auto slot = deferred ? deferred->unanswered_balance(account_id) : std::nullopt;
    if (!slot) return false;
    // The balance the account's last guarded statement returns is the one after this change:
    // statements of a batch run in order, each on the row as the one before left it.
    record_late_event(session, ids, time, owner, "ACCOUNT_STATUS", *slot,
                      [&currencies, account_id, customer_id, currency, change,
                       platform_customer_id](long long balance) {
                          return balance_event_payload(currencies, account_id, customer_id,
                                                       currency, balance - change, balance,
                                                       platform_customer_id);
                      });
    return true;
}

}  // namespace corridor
