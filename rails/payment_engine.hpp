#pragma once
// The payment engine: moves money between internal accounts and external accounts through rail
// plugins. A transfer begins inside a ledger-writer command (begin_transfer_out /
// begin_transfer_in): the money that must be held is held, the transaction is recorded PENDING and
// a rail_operations row is written INITIATING, all in that command's transaction.
// The payment engine then moves operations on in passes of three steps: claim (a write
// transaction: fail operations past their deadline, lease the operations due for initiation),
// call (no database: the rails' initiate and tick hooks), record (a write transaction: apply what
// the rails answered and reported: settled, failed, returned). The hooks run between the two
// transactions, so a slow rail holds up no database work. A failure puts held money back (a refund
// posting) in the same transaction that records it.
//
// State lives in the database, so a restarted process, or another process on the same PostgreSQL,
// carries on where one stopped. A rail plugin keeps state of its own (an ACH file not yet sent), so
// an operation handed to a rail stays with the node that handed it (rail_node): no other node
// initiates it, and after a restart that node initiates every such operation without a final
// outcome again (the ABI's retry), so a plugin that lost it picks it up and one that kept it
// answers with what it knows.
#include <soci/soci.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "ledger/base/clock.hpp"
#include "ledger/book/currencies.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/base/random.hpp"
#include "ledger/base/result.hpp"
#include "ledger/base/tenant.hpp"
#include "rails/incoming.hpp"
#include "rails/operation_store.hpp"
#include "rails/registry.hpp"

namespace corridor {

// What the engine needs of an external account. The external-accounts store owns the records; the
// server adapts it to external_account_directory.
struct external_account_ref {
    std::string id;           // ExternalAccount:<uuid>
    std::string customer_id;  // owner; empty when the account is the platform's
    std::string currency;
    std::string account_type;  // accountInfo.accountType
    std::string account_json;  // the accountInfo object, JSON
    std::string status =
        "ACTIVE";  // PENDING, ACTIVE, UNDER_REVIEW, INACTIVE: only ACTIVE moves money
};

class external_account_directory {
public:
    virtual ~external_account_directory() = default;
    virtual std::optional<external_account_ref> find(soci::session& session, const tenant& owner,
                                                     const std::string& id) = 0;
};

struct rail_engine_settings {
    // How long an initiation is leased to one process before another may try it again.
    std::int64_t call_timeout_ms = 10000;
    // An operation without a final report this long after it began fails with TIMEOUT.
    std::int64_t settlement_timeout_ms = 3LL * 24 * 3600 * 1000;
    // Rows handled per pass, per kind of work.
    int batch_operations_max = 64;
    // The node this engine runs as: the identity of its process's rail state (the rails data
    // folder), the same across restarts. Never empty.
    std::string node = "local";
};

struct rail_engine_services {
    id_generator& ids;
    random_source& random;
    const clock& time;
    const currency_registry& currencies;
    rail_registry& rails;
    rail_engine_settings settings;
    // Receives the arrivals rails report (ABI 1.2); without one they are dropped.
    incoming_payment_handler* incoming = nullptr;
};

enum class rail_payment_error {
    internal_account_not_found,
    currency_mismatch,
    customer_mismatch,
    external_account_not_active,
    insufficient_balance,
    no_rail,
    account_invalid,
    rail_unavailable,
    amount_out_of_range,
    user_not_ready,         // the internal account's customer may not move money (KYC)
    direction_unsupported,  // the rail cannot pull (or pay out) at all (its capabilities)
};

struct rail_payment_failure {
    rail_payment_error code;
    std::string message;  // for the client, naming the field
    std::string field;
};

struct transfer_out_request {
    tenant owner;
    std::string source_account_id;  // an internal account
    external_account_ref destination;
    std::int64_t amount = 0;  // > 0, smallest unit of the common currency
    std::string description;
};

struct transfer_in_request {
    tenant owner;
    external_account_ref source;
    std::string destination_account_id;  // an internal account
    std::int64_t amount = 0;
    std::string description;
};

// Both run inside a ledger-writer command and either apply completely or write nothing.
// transfer-out debits the internal account now (held in the currency's settlement account);
// transfer-in credits it only when the rail reports the pull settled.
result<transaction_record, rail_payment_failure> begin_transfer_out(
    soci::session& session, const rail_engine_services& services,
    const transfer_out_request& request);
result<transaction_record, rail_payment_failure> begin_transfer_in(
    soci::session& session, const rail_engine_services& services,
    const transfer_in_request& request);

// The interface's failureReason for a failed operation: the rail's mapping when it is a value the
// interface allows for the transaction's direction, otherwise the engine's default.
std::string interface_failure_reason(const std::string& direction, rail_failure failure,
                                     const std::string& reported);

// Quotes whose destination is an external account (or an UMA receiver's invoice, a LIGHTNING
// payout) pay out through the engine: the ledger's quote execution holds the payout and calls
// start(), which records the PAYOUT operation that drive() then initiates. Failures refund the
// quote's source (refund_quote_payout).
class rail_payout_gateway final : public external_payout_gateway {
public:
    rail_payout_gateway(rail_engine_services services, external_account_directory& accounts)
        : services_(services), accounts_(accounts) {}
    result<external_destination, payment_failure> check(
        soci::session& session, const tenant& owner,
        const std::string& external_account_id) override;
    result<external_destination, payment_failure> check_details(soci::session& session,
                                                                const tenant& owner,
                                                                const std::string& account_type,
                                                                const std::string& currency,
                                                                const std::string& account_json,
                                                                const std::string& field) override;
    void start(soci::session& session, const tenant& owner, const external_destination& destination,
               const std::string& transaction_id, const std::string& internal_account_id,
               std::int64_t amount, const std::string& description) override;

private:
    rail_engine_services services_;
    external_account_directory& accounts_;
};

// What the claim step of a pass took: operations to hand to their rails, with their lease taken.
struct rail_claim {
    std::int64_t now_ms = 0;
    std::vector<rail_operation> initiations;  // INITIATING, due: first try or after their lease
    std::vector<rail_operation> retries;      // this node's, handed to its rails before a restart
    bool retries_exhausted = false;           // no more to retry: later claims need not look
    int closed = 0;                           // failed at their deadline by this step
    bool empty() const { return initiations.empty() && retries.empty(); }
};

// What the rails answered in the call step; copied out of the plugins, applied by record.
struct rail_answers {
    struct initiation {
        std::string operation_id;
        bool retry = false;
        rail_call_result result;
    };
    std::vector<initiation> initiations;
    std::vector<rail_report> tick_reports;
    // What rails reported arriving (ABI 1.2), by rail, from any hook: facts, whatever its status.
    std::vector<std::pair<std::string, std::vector<rail_incoming>>> arrivals;
    bool empty() const { return initiations.empty() && tick_reports.empty() && arrivals.empty(); }
};

class payment_engine {
public:
    // A new engine is a new run of its node (a fresh rail_epoch): its first passes initiate again
    // the node's operations of earlier runs.
    explicit payment_engine(rail_engine_services services);

    // The three steps of a pass. claim and record run in the caller's write transaction, call
    // touches no database. One pass at a time; call only after claim's transaction committed,
    // record with call's answers.
    rail_claim claim(soci::session& session);
    rail_answers call(const rail_claim& claimed);
    // Returns how many operations changed state.
    int record(soci::session& session, const rail_answers& answers);

    // A whole pass in the caller's one write transaction (tests, tools); returns how many
    // operations changed state.
    int drive(soci::session& session);

    // Applies one report, as record does with what rails report; false when it was ignored
    // (unknown operation, already final, or not a valid transition).
    bool apply_report(soci::session& session, const rail_report& report);

    const std::string& epoch() const { return epoch_; }

private:
    int close_overdue(soci::session& session, std::int64_t now_ms);
    int record_initiation(soci::session& session, const rail_answers::initiation& answer);
    int apply_reports(soci::session& session, const std::vector<rail_report>& reports);
    // apply_report on an operation already read (and locked) in this transaction.
    bool apply_to(soci::session& session, rail_operation& op, const rail_report& report);
    int hand_over_incoming(soci::session& session, const std::string& rail,
                           const std::vector<rail_incoming>& arrivals);

    void settle(soci::session& session, rail_operation& operation, const rail_report& report);
    void fail(soci::session& session, rail_operation& operation, rail_failure failure,
              const std::string& reason_code, const std::string& reported_reason,
              const std::string& message, bool returned);

    rail_engine_services services_;
    std::string epoch_;
    // From when claims look for operations of earlier runs: at once in a new run; never again
    // once a claim found fewer than a batch (set by call, after that claim committed); when its
    // lease runs out after a retry the rail could not take (set by record).
    std::atomic<std::int64_t> retries_from_ms_{0};
    std::map<std::string, std::int64_t> last_tick_ms_;  // by rail name; used by call only
};

}  // namespace corridor
