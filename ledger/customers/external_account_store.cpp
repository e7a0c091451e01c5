#include "ledger/customers/external_account_store.hpp"

#include <boost/json.hpp>

#include "ledger/base/assert.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/nullable_text.hpp"
#include "ledger/store/outbox.hpp"
#include "ledger/store/statement_cache.hpp"
#include "ledger/base/time_format.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

struct external_account_row {
    std::string id, platform_id, environment, customer_id, account_type, currency, account_info,
        identity, primary_identifier, status, verification, origin;
    nullable_text beneficiary_name, platform_account_id, verified_name;
    int default_uma_deposit = 0;
    long long screening_due_at_ms = 0;
    soci::indicator screening_indicator = soci::i_null;
    long long created_at_ms = 0, updated_at_ms = 0;

    void bind(soci::statement& statement) {
        for (auto* text :
             {&id, &platform_id, &environment, &customer_id, &account_type, &currency,
              &account_info, &identity, &primary_identifier, &status, &verification, &origin}) {
            statement.exchange(soci::into(*text));
        }
        for (auto* text : {&beneficiary_name, &platform_account_id, &verified_name}) {
            statement.exchange(soci::into(text->value, text->indicator));
        }
        statement.exchange(soci::into(default_uma_deposit));
        statement.exchange(soci::into(screening_due_at_ms, screening_indicator));
        statement.exchange(soci::into(created_at_ms));
        statement.exchange(soci::into(updated_at_ms));
    }

    external_account to_account() const {
        external_account out;
        out.id = id;
        out.owner = tenant_of_row(platform_id, environment);
        if (!customer_id.empty()) out.customer_id = customer_id;
        out.account_type = account_type;
        out.currency = currency;
        out.account_info_json = account_info;
        out.identity = identity;
        out.primary_identifier = primary_identifier;
        out.status = status;
        out.beneficiary_verification_status = verification;
        out.origin = origin;
        out.beneficiary_name = beneficiary_name.get();
        out.platform_account_id = platform_account_id.get();
        out.beneficiary_verified_name = verified_name.get();
        out.default_uma_deposit = default_uma_deposit != 0;
        if (screening_indicator == soci::i_ok) out.screening_due_at_ms = screening_due_at_ms;
        out.created_at_ms = created_at_ms;
        out.updated_at_ms = updated_at_ms;
        return out;
    }
};

constexpr const char* account_select =
    "SELECT id, platform_id, environment, customer_id, account_type, currency, account_info, "
    "identity, "
    "primary_identifier, status, beneficiary_verification_status, origin, beneficiary_name, "
    "platform_account_id, beneficiary_verified_name, default_uma_deposit, screening_due_at_ms, "
    "created_at_ms, "
    "updated_at_ms FROM external_accounts";

// Which unique index a violation hit. PostgreSQL names the index; SQLite lists its columns, and
// only the duplicate index has the identity column.
external_account_error classify_unique_violation(const soci::soci_error& error) {
    std::string text = error.get_error_message();
    return text.find("identity") != std::string::npos ? external_account_error::duplicate
                                                      : external_account_error::default_conflict;
}

bool identity_taken(soci::session& session, const tenant& owner, const std::string& customer_id,
                    const std::string& identity) {
    int count = 0;
    std::string env_name(owner.env_name());
    session
        << "SELECT COUNT(*) FROM external_accounts WHERE platform_id = :p AND environment = :e AND "
           "customer_id = :c AND identity = :i",
        soci::use(owner.platform_id), soci::use(env_name), soci::use(customer_id),
        soci::use(identity), soci::into(count);
    return count > 0;
}

// Sandbox beneficiary matching by the identifier's last digits; elsewhere a name is matched as
// given.
std::string verification_outcome(const external_account& account) {
    if (!account.beneficiary_name) return "UNSUPPORTED";
    if (account.owner.env == environment::sandbox) {
        const auto& id = account.primary_identifier;
        if (id.ends_with("102")) return "NOT_MATCHED";
        if (id.ends_with("103")) return "PARTIAL_MATCH";
        if (id.ends_with("104")) return "PENDING";
    }
    return "MATCHED";
}

std::optional<std::string> verified_name(const std::string& outcome,
                                         const std::optional<std::string>& name) {
    if (outcome == "MATCHED") return name;
    // A partial match reports the name as the rail has it: here its first word.
    if (outcome == "PARTIAL_MATCH" && name) return name->substr(0, name->find(' '));
    return std::nullopt;
}

void record_status_event(soci::session& session, external_account_services services,
                         const external_account& account, const std::string& previous_status) {
    json::object payload{{"accountId", account.id},
                         {"status", account.status},
                         {"previousStatus", previous_status},
                         {"account", render_external_account(account)}};
    if (account.customer_id) {
        payload["customerId"] = *account.customer_id;
        if (auto customer = find_customer(session, account.owner, *account.customer_id)) {
            payload["platformCustomerId"] = customer->platform_customer_id;
        }
    }
    record_event(session, services.ids, services.time, account.owner, "ACCOUNT_STATUS",
                 json::serialize(payload));
}

}  // namespace

std::optional<external_account> find_external_account(soci::session& session, const tenant& owner,
                                                      const std::string& id) {
    static const std::string sql =
        std::string(account_select) + " WHERE platform_id = :p AND environment = :e AND id = :i";
    external_account_row row;
    std::string env_name(owner.env_name());
    if (!fetch_prepared(session, sql.c_str(), row, owner.platform_id, env_name, id))
        return std::nullopt;
    return row.to_account();
}

result<external_account, external_account_error> create_external_account(
    soci::session& session, external_account_services services, const tenant& owner,
    const new_external_account& request) {
    CORRIDOR_ASSERT(!request.default_uma_deposit || request.customer_id.has_value());
    CORRIDOR_ASSERT(request.screening_delay_ms >= 0);
    std::string id = services.ids.next("ExternalAccount");
    std::string customer_id = request.customer_id.value_or("");
    std::string env_name(owner.env_name());
    long long now_ms = services.time.now_ms();
    try {
        write_transaction transaction(session);
        if (request.customer_id) {
            auto customer = find_customer(session, owner, *request.customer_id);
            if (!customer) return external_account_error::customer_not_found;
            if (customer->is_deleted) return external_account_error::customer_deleted;
        }
        const auto& details = request.details;
        if (identity_taken(session, owner, customer_id, details.identity))
            return external_account_error::duplicate;
        if (request.default_uma_deposit) {
            session
                << "UPDATE external_accounts SET default_uma_deposit = 0, updated_at_ms = :t WHERE "
                   "platform_id = :p AND environment = :e AND customer_id = :c AND "
                   "default_uma_deposit = 1",
                soci::use(now_ms), soci::use(owner.platform_id), soci::use(env_name),
                soci::use(customer_id);
        }
        std::string info = json::serialize(details.account_info);
        std::string verification = details.has_beneficiary ? "PENDING" : "UNSUPPORTED";
        nullable_text beneficiary(details.beneficiary_name),
            platform_account_id(request.platform_account_id);
        int is_default = request.default_uma_deposit ? 1 : 0;
        long long due_ms = now_ms + request.screening_delay_ms;
        session
            << "INSERT INTO external_accounts (id, platform_id, environment, customer_id, "
               "account_type, "
               "currency, account_info, identity, primary_identifier, status, "
               "beneficiary_verification_status, origin, beneficiary_name, platform_account_id, "
               "default_uma_deposit, screening_due_at_ms, created_at_ms, updated_at_ms) VALUES "
               "(:i, :p, "
               ":e, :c, :y, :cu, :ai, :id, :pr, 'PENDING', :v, :o, :bn, :pa, :d, :due, :t, :t2)",
            soci::use(id), soci::use(owner.platform_id), soci::use(env_name),
            soci::use(customer_id), soci::use(details.account_type), soci::use(request.currency),
            soci::use(info), soci::use(details.identity), soci::use(details.primary_identifier),
            soci::use(verification), soci::use(request.origin),
            soci::use(beneficiary.value, beneficiary.indicator),
            soci::use(platform_account_id.value, platform_account_id.indicator),
            soci::use(is_default), soci::use(due_ms), soci::use(now_ms), soci::use(now_ms);
        auto created = find_external_account(session, owner, id);
        CORRIDOR_ASSERT(created.has_value());
        transaction.commit();
        return std::move(*created);
    } catch (const soci::soci_error& error) {
        if (is_unique_violation(error)) return classify_unique_violation(error);
        throw;
    }
}

page<external_account> list_external_accounts(soci::session& session, const tenant& owner,
                                              const external_account_filter& filter,
                                              const page_request& request) {
    sql_filter where = tenant_filter(owner);
    if (filter.platform_owned) {
        where.equals("customer_id", std::string());
    } else {
        where.raw("customer_id <> ''");
        if (filter.customer_id) where.equals("customer_id", *filter.customer_id);
    }
    if (filter.currency) where.equals("currency", *filter.currency);
    return list_page<external_account, external_account_row>(
        session, "external_accounts", account_select, where, request,
        [](const external_account_row& row) { return row.to_account(); });
}

int screen_due_external_accounts(soci::session& session, external_account_services services,
                                 int limit) {
    CORRIDOR_ASSERT(limit > 0);
    long long now_ms = services.time.now_ms();
    std::vector<std::pair<std::string, tenant>> due;
    {
        std::string id, platform_id, env_name;
        soci::statement select =
            (session.prepare
                 << "SELECT id, platform_id, environment FROM external_accounts WHERE status = "
                    "'PENDING' AND screening_due_at_ms IS NOT NULL AND screening_due_at_ms <= :t "
                    "ORDER BY screening_due_at_ms LIMIT " +
                        std::to_string(limit),
             soci::use(now_ms), soci::into(id), soci::into(platform_id), soci::into(env_name));
        select.execute(false);
        while (select.fetch()) due.emplace_back(id, tenant_of_row(platform_id, env_name));
    }
    int activated = 0;
    for (const auto& [id, owner] : due) {
        auto current = find_external_account(session, owner, id);
        if (!current || current->status != "PENDING" || !current->screening_due_at_ms) continue;
        std::string outcome = current->beneficiary_verification_status == "PENDING"
                                  ? verification_outcome(*current)
                                  : current->beneficiary_verification_status;
        nullable_text verified(verified_name(outcome, current->beneficiary_name));
        long long updated_ms = std::max<long long>(now_ms, current->updated_at_ms);
        std::string env_name(owner.env_name());
        soci::statement update =
            (session.prepare
                 << "UPDATE external_accounts SET status = 'ACTIVE', screening_due_at_ms = NULL, "
                    "beneficiary_verification_status = :v, beneficiary_verified_name = :n, "
                    "updated_at_ms = :t WHERE id = :i AND platform_id = :p AND environment = :e "
                    "AND "
                    "status = 'PENDING' AND screening_due_at_ms IS NOT NULL",
             soci::use(outcome), soci::use(verified.value, verified.indicator),
             soci::use(updated_ms), soci::use(id), soci::use(owner.platform_id),
             soci::use(env_name));
        update.execute(true);
        // Another process claimed it between the read and the update.
        if (update.get_affected_rows() != 1) continue;
        auto screened = find_external_account(session, owner, id);
        CORRIDOR_ASSERT(screened.has_value() && screened->status == "ACTIVE");
        record_status_event(session, services, *screened, "PENDING");
        ++activated;
    }
    return activated;
}

json::object render_external_account(const external_account& account) {
    json::value info = json::parse(account.account_info_json);
    json::object body{{"id", account.id},
                      {"status", account.status},
                      {"currency", account.currency},
                      {"accountInfo", info}};
    body["customerId"] =
        account.customer_id ? json::value(*account.customer_id) : json::value(nullptr);
    if (account.platform_account_id) body["platformAccountId"] = *account.platform_account_id;
    if (auto* beneficiary = info.as_object().if_contains("beneficiary"))
        body["beneficiary"] = *beneficiary;
    body["defaultUmaDepositAccount"] = account.default_uma_deposit;
    body["beneficiaryVerificationStatus"] = account.beneficiary_verification_status;
    if (account.beneficiary_verified_name) {
        body["beneficiaryVerifiedData"] =
            json::object{{"fullName", *account.beneficiary_verified_name}};
    }
    body["createdAt"] = format_timestamp_ms(account.created_at_ms);
    body["updatedAt"] = format_timestamp_ms(account.updated_at_ms);
    return body;
}

}  // namespace corridor
