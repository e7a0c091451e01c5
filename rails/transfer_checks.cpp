#include "rails/transfer_checks.hpp"

#include <optional>

#include "ledger/customers/kyc.hpp"

namespace corridor::rail_engine {
namespace {

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

}  // namespace

rail_payment_failure failure_of(rail_payment_error code, std::string message, std::string field) {
    return rail_payment_failure{code, std::move(message), std::move(field)};
}

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

}  // namespace corridor::rail_engine
