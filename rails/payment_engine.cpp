#include "rails/payment_engine.hpp"

#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <optional>

#include "ledger/base/time_format.hpp"
#include "ledger/book/book.hpp"
#include "ledger/store/database.hpp"
#include "rails/engine_postings.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

using rail_engine::balance_moved;
using rail_engine::book_of;
using rail_engine::settlement_account;

constexpr std::array<std::string_view, 6> outgoing_reasons = {
    "QUOTE_EXPIRED",           "QUOTE_EXECUTION_FAILED",      "LIGHTNING_PAYMENT_FAILED",
    "FUNDING_AMOUNT_MISMATCH", "COUNTERPARTY_POST_TX_FAILED", "TIMEOUT"};
constexpr std::array<std::string_view, 8> incoming_reasons = {"LNURLP_FAILED",
                                                              "PAY_REQUEST_FAILED",
                                                              "PAYMENT_APPROVAL_WEBHOOK_ERROR",
                                                              "PAYMENT_APPROVAL_TIMED_OUT",
                                                              "OFFRAMP_FAILED",
                                                              "MISSING_MANDATORY_PAYEE_DATA",
                                                              "QUOTE_EXPIRED",
                                                              "QUOTE_EXECUTION_FAILED"};

// A payout's refund as the transaction shows it: made at once, by the engine itself.
std::string refund_json(const std::string& operation_id, std::int64_t now_ms) {
    return json::serialize(json::object{{"reference", operation_id},
                                        {"initiatedAt", format_timestamp_ms(now_ms)},
                                        {"settledAt", format_timestamp_ms(now_ms)}});
}

rail_failure failure_of_status(rail_status status) {
    switch (status) {
        case rail_status::invalid_argument: return rail_failure::account_invalid;
        case rail_status::declined: return rail_failure::rejected;
        case rail_status::timeout: return rail_failure::timeout;
        default: return rail_failure::rail_error;
    }
}

}  // namespace

std::string interface_failure_reason(const std::string& direction, rail_failure failure,
                                     const std::string& reported) {
    bool outgoing = direction == "PAYOUT";
    if (outgoing && std::find(outgoing_reasons.begin(), outgoing_reasons.end(), reported) !=
                        outgoing_reasons.end()) {
        return reported;
    }
    if (!outgoing && std::find(incoming_reasons.begin(), incoming_reasons.end(), reported) !=
                         incoming_reasons.end()) {
        return reported;
    }
    if (outgoing && failure == rail_failure::timeout) return "TIMEOUT";
    return "QUOTE_EXECUTION_FAILED";
}

payment_engine::payment_engine(rail_engine_services services)
    : services_(services), epoch_(services.ids.next("RailRun")) {
    CORRIDOR_ASSERT(!services_.settings.node.empty());
}

int payment_engine::drive(soci::session& session) {
    rail_claim claimed = claim(session);
    return claimed.closed + record(session, call(claimed));
}

rail_claim payment_engine::claim(soci::session& session) {
    const auto& settings = services_.settings;
    rail_claim out;
    out.now_ms = services_.time.now_ms();
    out.closed = close_overdue(session, out.now_ms);
    // The lease keeps other processes off the row while its rail is called; rail_node keeps
    // every other node off it for good once a rail may have it.
    auto lease = [&](rail_operation& op) {
        op.attempts += 1;
        op.lease_until_ms = out.now_ms + settings.call_timeout_ms;
        op.updated_at_ms = out.now_ms;
    };
    for (auto& op :
         claim_due_initiations(session, out.now_ms, settings.batch_operations_max, settings.node)) {
        lease(op);
        if (services_.rails.by_name(op.rail) == nullptr) {
            // The rail is not loaded in this process: leave the row to a process that has it, or
            // to its deadline.
            op.message = "rail " + op.rail + " is not loaded";
            update_rail_operation(session, op);
            continue;
        }
        op.rail_node = settings.node;
        op.rail_epoch = epoch_;
        update_rail_operation(session, op);
        out.initiations.push_back(std::move(op));
    }
    // The node's operations of earlier runs: looked for until none is left, not at every pass.
    if (out.now_ms < retries_from_ms_.load()) return out;
    std::vector<std::string> loaded;
    for (const auto& rail : services_.rails.all()) loaded.push_back(rail->name());
    out.retries = claim_restarted(session, out.now_ms, settings.batch_operations_max, settings.node,
                                  epoch_, loaded);
    out.retries_exhausted = static_cast<int>(out.retries.size()) < settings.batch_operations_max;
    for (auto& op : out.retries) {
        lease(op);
        op.rail_node = settings.node;
        op.rail_epoch = epoch_;
        update_rail_operation(session, op);
    }
    return out;
}

rail_answers payment_engine::call(const rail_claim& claimed) {
    if (claimed.retries_exhausted) {
        // Not when a retry the rail could not take has asked for a later look.
        std::int64_t from = retries_from_ms_.load();
        while (from <= claimed.now_ms && !retries_from_ms_.compare_exchange_weak(from, INT64_MAX)) {
        }
    }
    rail_answers out;
    auto initiate = [&](const rail_operation& op, bool retry) {
        rail_instance* rail = services_.rails.by_name(op.rail);
        if (rail == nullptr) return;  // claim hands over only rows of loaded rails
        rail_operation_input input;
        input.direction = op.direction == "PAYOUT" ? CORRIDOR_RAIL_PAYOUT : CORRIDOR_RAIL_PULL;
        input.operation_id = op.id;
        input.environment = std::string(op.owner.env_name());
        input.account_type = op.account_type;
        input.account_json = op.account_json;
        input.currency = op.currency;
        input.amount_minor = op.amount;
        input.now_ms = claimed.now_ms;
        input.reference = op.description;
        auto started = rail->initiate(input);
        // Arrivals are facts whatever the initiation's own outcome.
        if (!started.incoming.empty())
            out.arrivals.push_back({rail->name(), std::move(started.incoming)});
        out.initiations.push_back({op.id, retry, std::move(started)});
    };
    for (const auto& op : claimed.initiations) initiate(op, false);
    for (const auto& op : claimed.retries) initiate(op, true);
    for (const auto& rail : services_.rails.all()) {
        if (rail->tick_interval_ms() == 0) continue;
        auto& last = last_tick_ms_[rail->name()];
        if (last != 0 &&
            claimed.now_ms - last < static_cast<std::int64_t>(rail->tick_interval_ms()))
            continue;
        last = claimed.now_ms;
        auto ticked = rail->tick(claimed.now_ms);
        // Reports and arrivals are applied even when the tick's status is not OK: they are facts.
        for (auto& report : ticked.reports) out.tick_reports.push_back(std::move(report));
        if (!ticked.incoming.empty())
            out.arrivals.push_back({rail->name(), std::move(ticked.incoming)});
    }
    return out;
}

int payment_engine::record(soci::session& session, const rail_answers& answers) {
    int changed = 0;
    for (const auto& answer : answers.initiations) changed += record_initiation(session, answer);
    changed += apply_reports(session, answers.tick_reports);
    for (const auto& [rail, arrivals] : answers.arrivals)
        changed += hand_over_incoming(session, rail, arrivals);
    return changed;
}

int payment_engine::record_initiation(soci::session& session,
                                      const rail_answers::initiation& answer) {
    const rail_call_result& started = answer.result;
    auto op = find_rail_operation(session, answer.operation_id);
    // Closed meanwhile (its deadline): what the rail says now changes nothing but late reports.
    if (!op || op->is_final()) return started.ok() ? apply_reports(session, started.reports) : 0;
    std::int64_t now_ms = services_.time.now_ms();
    if (started.status == rail_status::unavailable) {
        // Nothing was started: tried again when the lease runs out. A first try goes back to
        // every node; a retry stays with this node (its rail may hold it) for a later run.
        op->message = started.message;
        op->updated_at_ms = now_ms;
        if (answer.retry) {
            op->rail_epoch.clear();
            // Look again once its lease has run out.
            std::int64_t wanted = retries_from_ms_.load();
            while (op->lease_until_ms < wanted &&
                   !retries_from_ms_.compare_exchange_weak(wanted, op->lease_until_ms)) {
            }
        } else {
            op->rail_node.clear();
            op->rail_epoch.clear();
        }
        update_rail_operation(session, *op);
        return 0;
    }
    if (!started.ok()) {
        // Nothing was started, and a retry the rail refuses is an operation it does not hold.
        fail(session, *op, failure_of_status(started.status), "", "", started.message, false);
        return 1;
    }
    // Accepted: PENDING, written once together with what the rail reported of it right away (the
    // row is read once; a rail that settles at once costs one update).
    int changed = 0;
    bool unwritten = false;
    if (op->status == "INITIATING") {
        op->status = "PENDING";
        op->message.clear();
        op->updated_at_ms = now_ms;
        unwritten = true;
        ++changed;
    }
    for (const auto& report : started.reports) {
        if (report.operation_id != op->id) {
            changed += apply_report(session, report) ? 1 : 0;
        } else if (apply_to(session, *op, report)) {
            unwritten = false;  // apply_to wrote the row
            ++changed;
        }
    }
    if (unwritten) update_rail_operation(session, *op);
    return changed;
}

int payment_engine::close_overdue(soci::session& session, std::int64_t now_ms) {
    int changed = 0;
    for (auto& op : claim_overdue(session, now_ms, services_.settings.batch_operations_max)) {
        fail(session, op, rail_failure::timeout, "", "TIMEOUT",
             "no outcome from rail " + op.rail + " before the settlement deadline", false);
        ++changed;
    }
    return changed;
}

int payment_engine::apply_reports(soci::session& session, const std::vector<rail_report>& reports) {
    int changed = 0;
    for (const auto& report : reports) changed += apply_report(session, report) ? 1 : 0;
    return changed;
}

int payment_engine::hand_over_incoming(soci::session& session, const std::string& rail,
                                       const std::vector<rail_incoming>& arrivals) {
    if (arrivals.empty() || services_.incoming == nullptr) return 0;
    return services_.incoming->receive(session, rail, arrivals);
}

bool payment_engine::apply_report(soci::session& session, const rail_report& report) {
    auto op = find_rail_operation(session, report.operation_id);
    if (!op) return false;
    return apply_to(session, *op, report);
}

bool payment_engine::apply_to(soci::session& session, rail_operation& op,
                              const rail_report& report) {
    bool returned_after_settling =
        report.outcome == rail_outcome::returned && op.status == "SETTLED";
    if (op.is_final() && !returned_after_settling)
        return false;  // late or repeated: already closed
    switch (report.outcome) {
        case rail_outcome::pending:
            if (op.status == "PENDING" && op.rail_reference == report.rail_reference) return false;
            op.status = "PENDING";
            if (!report.rail_reference.empty()) op.rail_reference = report.rail_reference;
            op.updated_at_ms = services_.time.now_ms();
            update_rail_operation(session, op);
            return true;
        case rail_outcome::settled: settle(session, op, report); return true;
        case rail_outcome::failed:
        case rail_outcome::returned:
            if (!report.rail_reference.empty()) op.rail_reference = report.rail_reference;
            fail(session, op, report.failure, report.rail_reason_code, report.failure_reason,
                 report.message, report.outcome == rail_outcome::returned);
            return true;
    }
    return false;
}

void payment_engine::settle(soci::session& session, rail_operation& op, const rail_report& report) {
    std::int64_t now_ms = services_.time.now_ms();
    if (op.direction == "PULL") {
        // The pulled money has arrived: credit the internal account from the settlement account.
        std::string settlement = settlement_account(session, services_, op.owner, op.currency);
        auto posted = post_transfer(session, book_of(services_), op.owner,
                                    {settlement, op.internal_account_id, op.amount, op.currency,
                                     "pull", op.transaction_id});
        if (!posted) {
            fail(session, op, rail_failure::rail_error, report.rail_reason_code, "",
                 "the pulled amount cannot be credited (balance overflow)", false);
            return;
        }
        balance_moved(session, services_, op.owner, op.internal_account_id, op.amount);
    }
    op.status = "SETTLED";
    if (!report.rail_reference.empty()) op.rail_reference = report.rail_reference;
    op.message = report.message;
    op.updated_at_ms = now_ms;
    update_rail_operation(session, op);
    auto t = find_transaction(session, op.owner, op.transaction_id);
    CORRIDOR_ASSERT(t.has_value());
    t->status = "COMPLETED";
    t->settled_at_ms = t->updated_at_ms = now_ms;
    store_transaction_outcome(session, *t);
    if (!t->quote_id.empty()) complete_quote_payout(session, services_.time, op.owner, t->quote_id);
    record_payment_event(session, services_.ids, services_.time, services_.currencies, *t);
}

void payment_engine::fail(soci::session& session, rail_operation& op, rail_failure failure,
                          const std::string& reason_code, const std::string& reported_reason,
                          const std::string& message, bool returned) {
    std::int64_t now_ms = services_.time.now_ms();
    bool was_settled = op.status == "SETTLED";
    auto t = find_transaction(session, op.owner, op.transaction_id);
    CORRIDOR_ASSERT(t.has_value());
    std::string note = message;
    if (op.direction == "PAYOUT" && !t->quote_id.empty()) {
        // A quote's payout: the quote is unwound and its source refunded in the sending currency.
        refund_quote_payout(session, services_.ids, services_.random, services_.time,
                            services_.currencies, op.owner, t->quote_id);
        t->refund = refund_json(op.id, now_ms);
    } else if (op.direction == "PAYOUT") {
        // The held money goes back to the internal account it came from.
        std::string settlement = settlement_account(session, services_, op.owner, op.currency);
        auto refunded = post_transfer(session, book_of(services_), op.owner,
                                      {settlement, op.internal_account_id, op.amount, op.currency,
                                       "refund", op.transaction_id});
        CORRIDOR_ASSERT(refunded.ok());  // the settlement account has no overdraft guard
        balance_moved(session, services_, op.owner, op.internal_account_id, op.amount);
        t->refund = refund_json(op.id, now_ms);
    } else if (was_settled) {
        // A pull that came back after it settled: take the credited money back if it is still
        // there.
        std::string settlement = settlement_account(session, services_, op.owner, op.currency);
        auto reversed = post_transfer(session, book_of(services_), op.owner,
                                      {op.internal_account_id, settlement, op.amount, op.currency,
                                       "return", op.transaction_id});
        if (!reversed) {
            note += " (the internal account no longer holds the amount; reconcile by hand)";
        } else {
            balance_moved(session, services_, op.owner, op.internal_account_id, -op.amount);
        }
    }
    op.status = returned ? "RETURNED" : "FAILED";
    op.failure_class = std::string(to_string(failure));
    op.rail_reason_code = reason_code;
    // A Lightning or Spark payout that failed without saying why failed as a Lightning payment.
    std::string reason = reported_reason;
    bool lightning = op.account_type == "LIGHTNING" || op.account_type == "SPARK_WALLET";
    if (reason.empty() && lightning && op.direction == "PAYOUT" && failure != rail_failure::timeout)
        reason = "LIGHTNING_PAYMENT_FAILED";
    op.failure_reason = interface_failure_reason(op.direction, failure, reason);
    op.message = note;
    op.updated_at_ms = now_ms;
    update_rail_operation(session, op);
    // A payout returned after it settled fails too (ABI 1.1): its money is back with the payer.
    t->status = "FAILED";
    t->failure_reason = op.failure_reason;
    t->updated_at_ms = now_ms;
    store_transaction_outcome(session, *t);
    record_payment_event(session, services_.ids, services_.time, services_.currencies, *t);
}

}  // namespace corridor
