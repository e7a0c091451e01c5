#include "rails/payment_engine.hpp"

#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <optional>

#include "ledger/book/book.hpp"
#include "ledger/store/database.hpp"
#include "ledger/customers/kyc.hpp"
#include "ledger/base/time_format.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

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

rail_payment_failure failure_of(rail_payment_error code, std::string message,
                                std::string field = "") {
    return rail_payment_failure{code, std::move(message), std::move(field)};
}

book_services book_of(const rail_engine_services& services) {
    return book_services{services.ids, services.random, services.time};
}

// The tenant's settlement account in `currency`: where held payouts and pulled money pass through.
std::string settlement_account(soci::session& session, const rail_engine_services& services,
                               const tenant& owner, const std::string& currency) {
    return ensure_account(session, book_of(services), owner, account_kind::settlement, "",
                          currency);
}

std::string platform_customer_id(soci::session& session, const std::string& customer_id) {
    if (customer_id.empty()) return "";
    std::string out;
    soci::indicator indicator = soci::i_null;
    session << "SELECT platform_customer_id FROM customers WHERE id = :i", soci::use(customer_id),
        soci::into(out, indicator);
    return indicator == soci::i_ok ? out : "";
}

// The internal account of a transfer, with the checks both directions share.
result<ledger_account, rail_payment_failure> internal_account_for(
    soci::session& session, const tenant& owner, const std::string& id, const std::string& field,
    const external_account_ref& external) {
    if (external.status != "ACTIVE") {
        std::string external_field =
            field == "source.accountId" ? "destination.accountId" : "source.accountId";
        return failure_of(rail_payment_error::external_account_not_active,
                          external_field + ": external account " + external.id + " is " +
                              external.status +
                              "; only ACTIVE accounts can send or receive transfers",
                          external_field);
    }
    auto account = find_account(session, owner, id);
    if (!account ||
        (account->kind != account_kind::customer && account->kind != account_kind::platform)) {
        return failure_of(rail_payment_error::internal_account_not_found,
                          field + ": no internal account " + id, field);
    }
    if (account->currency != external.currency) {
        return failure_of(rail_payment_error::currency_mismatch,
                          field + ": the internal account holds " + account->currency +
                              " but external account " + external.id + " holds " +
                              external.currency,
                          field);
    }
    // A customer's money moves only to or from that customer's (or the platform's) accounts.
    if (!external.customer_id.empty() && !account->owner_id.empty() &&
        external.customer_id != account->owner_id) {
        return failure_of(rail_payment_error::customer_mismatch,
                          "external account " + external.id + " belongs to another customer",
                          field);
    }
    // KYC gating: the customer whose money moves, in either direction, must be approved.
    if (!customer_may_move_money(session, owner, account->owner_id)) {
        return failure_of(rail_payment_error::user_not_ready,
                          "customer " + account->owner_id +
                              " cannot move money until its KYC status is APPROVED; complete the "
                              "hosted KYC flow first",
                          field);
    }
    return std::move(*account);
}

// Picks the rail of the environment and lets it check the account details before anything is
// written.
result<rail_instance*, rail_payment_failure> rail_in(const rail_engine_services& services,
                                                     const std::string& env,
                                                     const external_account_ref& external,
                                                     const std::string& field,
                                                     corridor_rail_direction direction) {
    rail_instance* rail = services.rails.for_account_type(env, external.account_type);
    if (rail == nullptr) {
        std::string where =
            env == "sandbox"
                ? " in the sandbox (sandbox operations go only to the sandbox rail or to rails "
                  "that declare SERVES_SANDBOX, never to a real-money rail)"
                : "";
        return failure_of(
            rail_payment_error::no_rail,
            field + ": no payment rail serves account type " + external.account_type + where,
            field);
    }
    // Refused before the rail is asked anything: it declared it cannot move money this way.
    if (!rail->can(direction)) {
        if (direction == CORRIDOR_RAIL_PULL) {
            return failure_of(rail_payment_error::direction_unsupported,
                              field + ": money cannot be pulled from " + external.account_type +
                                  " accounts (rail " + rail->name() +
                                  " has no pull); the payer sends it to the internal account's "
                                  "fundingPaymentInstructions instead",
                              field);
        }
        return failure_of(rail_payment_error::direction_unsupported,
                          field + ": rail " + rail->name() + " cannot pay out to " +
                              external.account_type + " accounts",
                          field);
    }
    auto verdict =
        rail->validate_account(external.account_type, external.currency, external.account_json);
    switch (verdict.status) {
        case rail_status::ok: return rail;
        case rail_status::invalid_argument:
            return failure_of(rail_payment_error::account_invalid,
                              field + ": external account " + external.id +
                                  " is not valid for rail " + rail->name() + ": " + verdict.message,
                              field);
        case rail_status::unsupported:
            return failure_of(rail_payment_error::no_rail,
                              field + ": rail " + rail->name() + " does not serve " +
                                  external.account_type + " in " + external.currency,
                              field);
        default:
            return failure_of(rail_payment_error::rail_unavailable,
                              "rail " + rail->name() + " cannot take payments now", field);
    }
}

// Sandbox parity: the simulator plays outcomes but never widens what is allowed. With a real rail
// loaded, production's own answer for the same account (type, direction, currency, details) is
// the sandbox's answer, refusal text included; with the simulator alone, the interface's rule.
std::optional<rail_payment_failure> refused_in_production(const rail_engine_services& services,
                                                          const external_account_ref& external,
                                                          const std::string& field,
                                                          corridor_rail_direction direction) {
    if (services.rails.has_production_rails()) {
        auto production = rail_in(services, "production", external, field, direction);
        if (!production) return production.error();
        return std::nullopt;
    }
    if (direction == CORRIDOR_RAIL_PULL && !interface_can_pull(external.account_type)) {
        return failure_of(rail_payment_error::direction_unsupported,
                          field + ": money cannot be pulled from " + external.account_type +
                              " accounts (only a US_ACCOUNT has direct pull, by ACH debit); the "
                              "payer sends it to the internal account's "
                              "fundingPaymentInstructions instead",
                          field);
    }
    return std::nullopt;
}

// The rail for an operation of the owner's environment. In the sandbox, an operation the simulator
// would take is first held to what production accepts.
result<rail_instance*, rail_payment_failure> rail_for(const rail_engine_services& services,
                                                      const tenant& owner,
                                                      const external_account_ref& external,
                                                      const std::string& field,
                                                      corridor_rail_direction direction) {
    std::string env(owner.env_name());
    if (owner.env == environment::sandbox) {
        rail_instance* picked = services.rails.for_account_type(env, external.account_type);
        if (picked != nullptr && picked->name() == rail_registry::sandbox_rail_name) {
            if (auto refused = refused_in_production(services, external, field, direction))
                return *refused;
        }
    }
    return rail_in(services, env, external, field, direction);
}

rail_operation new_operation(const rail_engine_services& services, const tenant& owner,
                             const std::string& rail, const std::string& direction,
                             const std::string& transaction_id,
                             const std::string& internal_account_id,
                             const external_account_ref& external, std::int64_t amount,
                             const std::string& description, std::int64_t now_ms) {
    rail_operation op;
    op.id = services.ids.next("RailOperation");
    op.owner = owner;
    op.rail = rail;
    op.direction = direction;
    op.status = "INITIATING";
    op.transaction_id = transaction_id;
    op.internal_account_id = internal_account_id;
    op.external_account_id = external.id;
    op.account_type = external.account_type;
    op.account_json = external.account_json;
    op.currency = external.currency;
    op.amount = amount;
    op.description = description;
    op.failure_class = std::string(to_string(rail_failure::none));
    op.lease_until_ms = 0;  // due now
    op.deadline_at_ms = now_ms + services.settings.settlement_timeout_ms;
    op.created_at_ms = op.updated_at_ms = now_ms;
    return op;
}

// The ACCOUNT_STATUS event of an internal account after a posting of `delta` to it.
void balance_moved(soci::session& session, const rail_engine_services& services,
                   const tenant& owner, const std::string& account_id, std::int64_t delta) {
    auto account = find_account(session, owner, account_id);
    CORRIDOR_ASSERT(account.has_value());
    record_balance_event(session, services.ids, services.time, services.currencies, owner,
                         account->id, account->owner_id, account->currency,
                         account->balance() - delta, account->balance());
}

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

result<transaction_record, rail_payment_failure> begin_transfer_out(
    soci::session& session, const rail_engine_services& services,
    const transfer_out_request& request) {
    CORRIDOR_ASSERT(request.amount > 0);
    auto account = internal_account_for(session, request.owner, request.source_account_id,
                                        "source.accountId", request.destination);
    if (!account) return account.error();
    auto rail = rail_for(services, request.owner, request.destination, "destination.accountId",
                         CORRIDOR_RAIL_PAYOUT);
    if (!rail) return rail.error();

    std::int64_t now_ms = services.time.now_ms();
    std::string transaction_id = services.ids.next("Transaction");
    std::string settlement =
        settlement_account(session, services, request.owner, account->currency);
    // The one step that can be refused comes first, so a refusal writes nothing.
    auto held = post_transfer(
        session, book_of(services), request.owner,
        {account->id, settlement, request.amount, account->currency, "payout", transaction_id});
    if (!held) {
        if (held.error() == transfer_error::insufficient_funds) {
            return failure_of(rail_payment_error::insufficient_balance,
                              "source.accountId: the balance does not cover " +
                                  std::to_string(request.amount) + " " + account->currency,
                              "source.accountId");
        }
        return failure_of(rail_payment_error::amount_out_of_range, "amount is out of range",
                          "amount");
    }

    transaction_record t;
    t.id = transaction_id;
    t.owner = request.owner;
    t.type = "OUTGOING";
    t.status = "PENDING";
    t.customer_id = account->owner_id;
    t.platform_customer_id = platform_customer_id(session, account->owner_id);
    t.source_type = "ACCOUNT";
    t.source_account_id = account->id;
    t.source_currency = account->currency;
    t.destination_type = "EXTERNAL_ACCOUNT";
    t.destination_account_id = request.destination.id;
    t.destination_currency = request.destination.currency;
    t.sent_amount = t.received_amount = request.amount;
    t.rate_details = "{}";
    t.description = request.description;
    t.created_at_ms = t.updated_at_ms = now_ms;
    store_new_transaction(session, t);
    insert_rail_operation(
        session, new_operation(services, request.owner, rail.value()->name(), "PAYOUT",
                               transaction_id, account->id, request.destination, request.amount,
                               request.description, now_ms));
    record_payment_event(session, services.ids, services.time, services.currencies, t);
    balance_moved(session, services, request.owner, account->id, -request.amount);
    return t;
}

result<transaction_record, rail_payment_failure> begin_transfer_in(
    soci::session& session, const rail_engine_services& services,
    const transfer_in_request& request) {
    CORRIDOR_ASSERT(request.amount > 0);
    auto account = internal_account_for(session, request.owner, request.destination_account_id,
                                        "destination.accountId", request.source);
    if (!account) return account.error();
    if (account->balance() > INT64_MAX - request.amount) {
        return failure_of(rail_payment_error::amount_out_of_range,
                          "amount would overflow the destination account's balance", "amount");
    }
    auto rail =
        rail_for(services, request.owner, request.source, "source.accountId", CORRIDOR_RAIL_PULL);
    if (!rail) return rail.error();

    std::int64_t now_ms = services.time.now_ms();
    transaction_record t;
    t.id = services.ids.next("Transaction");
    t.owner = request.owner;
    t.type = "INCOMING";
    t.status = "PENDING";
    t.customer_id = account->owner_id;
    t.platform_customer_id = platform_customer_id(session, account->owner_id);
    t.source_type = "EXTERNAL_ACCOUNT";
    t.source_account_id = request.source.id;
    t.source_currency = request.source.currency;
    t.destination_type = "ACCOUNT";
    t.destination_account_id = account->id;
    t.destination_currency = account->currency;
    t.received_amount = request.amount;
    t.rate_details = "{}";
    t.description = request.description;
    t.reference = account->reference;
    t.created_at_ms = t.updated_at_ms = now_ms;
    store_new_transaction(session, t);
    insert_rail_operation(session, new_operation(services, request.owner, rail.value()->name(),
                                                 "PULL", t.id, account->id, request.source,
                                                 request.amount, request.description, now_ms));
    record_payment_event(session, services.ids, services.time, services.currencies, t);
    return t;
}

result<external_destination, payment_failure> rail_payout_gateway::check(
    soci::session& session, const tenant& owner, const std::string& external_account_id) {
    const std::string field = "destination.accountId";
    auto found = accounts_.find(session, owner, external_account_id);
    if (!found) {
        return payment_failure{payment_error::destination_account_not_found,
                               field + ": no external account " + external_account_id, field};
    }
    if (found->status != "ACTIVE") {
        return payment_failure{payment_error::destination_not_payable,
                               field + ": external account " + found->id + " is " + found->status +
                                   "; only ACTIVE accounts can receive payouts",
                               field};
    }
    auto rail = rail_for(services_, owner, *found, field, CORRIDOR_RAIL_PAYOUT);
    if (!rail) {
        auto code = rail.error().code == rail_payment_error::rail_unavailable
                        ? payment_error::rail_unavailable
                        : payment_error::destination_not_payable;
        return payment_failure{code, rail.error().message, field};
    }
    external_destination out;
    out.account_id = found->id;
    out.customer_id = found->customer_id;
    out.currency = found->currency;
    out.account_type = found->account_type;
    out.account_json = found->account_json;
    out.rail = rail.value()->name();
    return out;
}

result<external_destination, payment_failure> rail_payout_gateway::check_details(
    soci::session& session, const tenant& owner, const std::string& account_type,
    const std::string& currency, const std::string& account_json, const std::string& field) {
    (void)session;
    external_account_ref details{"", "", currency, account_type, account_json, "ACTIVE"};
    auto rail = rail_for(services_, owner, details, field, CORRIDOR_RAIL_PAYOUT);
    if (!rail) {
        auto code = rail.error().code == rail_payment_error::rail_unavailable
                        ? payment_error::rail_unavailable
                    : rail.error().code == rail_payment_error::account_invalid
                        ? payment_error::destination_not_payable
                        : payment_error::external_payouts_unavailable;
        return payment_failure{code, rail.error().message, field};
    }
    external_destination out;
    out.currency = currency;
    out.account_type = account_type;
    out.account_json = account_json;
    out.rail = rail.value()->name();
    return out;
}

void rail_payout_gateway::start(soci::session& session, const tenant& owner,
                                const external_destination& destination,
                                const std::string& transaction_id,
                                const std::string& internal_account_id, std::int64_t amount,
                                const std::string& description) {
    CORRIDOR_ASSERT(amount > 0);
    external_account_ref external{destination.account_id,   destination.customer_id,
                                  destination.currency,     destination.account_type,
                                  destination.account_json, "ACTIVE"};
    insert_rail_operation(session, new_operation(services_, owner, destination.rail, "PAYOUT",
                                                 transaction_id, internal_account_id, external,
                                                 amount, description, services_.time.now_ms()));
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
