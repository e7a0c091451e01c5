// The start of a transfer through a rail: begin_transfer_out and begin_transfer_in (a transfer
// between an internal and an external account) and the payout gateway of quotes. Each checks
// (rails/transfer_checks.hpp), holds what must be held, records the transaction PENDING and
// writes the rail operation INITIATING, all in the caller's transaction; the payment engine
// (rails/payment_engine.cpp) takes it from there.
#include "ledger/base/assert.hpp"
#include "ledger/book/book.hpp"
#include "rails/engine_postings.hpp"
#include "rails/payment_engine.hpp"
#include "rails/transfer_checks.hpp"

namespace corridor {
namespace {

using rail_engine::balance_moved;
using rail_engine::book_of;
using rail_engine::failure_of;
using rail_engine::internal_account_for;
using rail_engine::rail_for;
using rail_engine::settlement_account;

std::string platform_customer_id(soci::session& session, const std::string& customer_id) {
    if (customer_id.empty()) return "";
    std::string out;
    soci::indicator indicator = soci::i_null;
    session << "SELECT platform_customer_id FROM customers WHERE id = :i", soci::use(customer_id),
        soci::into(out, indicator);
    return indicator == soci::i_ok ? out : "";
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

}  // namespace

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

}  // namespace corridor
