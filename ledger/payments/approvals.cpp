#include "ledger/payments/approvals.hpp"

#include <boost/json.hpp>

#include "ledger/base/assert.hpp"
#include "ledger/book/book.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/payments/payment_json.hpp"
#include "ledger/store/outbox.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

approval_failure failure(approval_error code, std::string message,
                         std::vector<std::string> fields = {}) {
    return approval_failure{code, std::move(message), std::move(fields)};
}

struct approval_row {
    std::string transaction_id, platform_id, environment, state, event_id, sender, counterparty,
        requested, receiver_info, required, reason;
    long long deadline = 0, created = 0, updated = 0;
    void bind(soci::statement& statement) {
        for (auto* text : {&transaction_id, &platform_id, &environment, &state, &event_id, &sender,
                           &counterparty, &requested, &receiver_info, &required, &reason}) {
            statement.exchange(soci::into(*text));
        }
        statement.exchange(soci::into(deadline));
        statement.exchange(soci::into(created));
        statement.exchange(soci::into(updated));
    }
    incoming_approval to_record() const {
        return incoming_approval{transaction_id, tenant_of_row(platform_id, environment),
                                 state,          event_id,
                                 sender,         counterparty,
                                 requested,      receiver_info,
                                 required,       reason,
                                 deadline,       created,
                                 updated};
    }
};

constexpr const char* approval_columns =
    "SELECT transaction_id, platform_id, environment, state, event_id, sender_uma_address, "
    "counterparty_information, requested_fields, receiver_customer_info, required_fields, reason, "
    "deadline_at_ms, created_at_ms, updated_at_ms FROM incoming_approvals ";

void save_approval(soci::session& session, const incoming_approval& approval) {
    long long deadline = approval.deadline_at_ms, updated = approval.updated_at_ms;
    session
        << "UPDATE incoming_approvals SET state = :s, receiver_customer_info = :c, required_fields "
           "= :q, reason = :r, deadline_at_ms = :d, updated_at_ms = :u WHERE transaction_id = :i",
        soci::use(approval.state), soci::use(approval.receiver_customer_info),
        soci::use(approval.required_fields), soci::use(approval.reason), soci::use(deadline),
        soci::use(updated), soci::use(approval.transaction_id);
}

std::string random_reference(random_source& random) {
    static constexpr char alphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    std::array<std::uint8_t, 15> bytes{};
    random.fill(bytes);
    std::string out = "I";
    for (auto byte : bytes) out += alphabet[byte % 32];
    return out;
}

// "FULL_NAME" -> "fullName": platforms may key receiverCustomerInfo either way.
std::string camel_case(const std::string& upper_snake) {
    std::string out;
    bool upper_next = false;
    for (char c : upper_snake) {
        if (c == '_') {
            upper_next = true;
            continue;
        }
        char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        out +=
            upper_next ? static_cast<char>(std::toupper(static_cast<unsigned char>(lower))) : lower;
        upper_next = false;
    }
    return out;
}

// The mandatory requested fields absent from `info` (a JSON object, possibly empty).
std::vector<std::string> missing_mandatory(const std::string& requested_fields,
                                           const json::object& info) {
    std::vector<std::string> missing;
    json::value requested = json::parse(requested_fields);
    for (const auto& item : requested.as_array()) {
        const auto& field = item.as_object();
        if (!field.at("mandatory").as_bool()) continue;
        std::string name(field.at("name").as_string());
        auto present = [&](const std::string& key) {
            auto* value = info.if_contains(key);
            return value && !value->is_null() &&
                   !(value->is_string() && value->as_string().empty());
        };
        if (!present(name) && !present(camel_case(name))) missing.push_back(name);
    }
    return missing;
}

std::optional<json::object> parse_object(std::string_view text) {
    boost::system::error_code error;
    json::value value = json::parse(text, error);
    if (error || !value.is_object()) return std::nullopt;
    return std::move(value.as_object());
}

std::string string_field(const json::object& body, std::string_view key) {
    auto* value = body.if_contains(key);
    return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

struct open_payment {
    transaction_record transaction;
    incoming_approval approval;
};

// The transaction and approval when the approval exists for this tenant; not open is the caller's
// business.
result<open_payment, approval_failure> load(soci::session& session, const tenant& owner,
                                            const std::string& transaction_id) {
    auto transaction = find_transaction(session, owner, transaction_id);
    if (!transaction)
        return failure(approval_error::transaction_not_found, "no transaction " + transaction_id);
    auto approval = find_incoming_approval(session, owner, transaction_id);
    if (!approval) {
        return failure(approval_error::not_pending_platform_approval,
                       "transaction " + transaction_id + " was never pending platform approval");
    }
    return open_payment{std::move(*transaction), std::move(*approval)};
}

// Ends the payment: the transaction moves to `status` (with `failure_reason` when FAILED) and its
// event is written; the approval records `state` and `reason`.
void close(soci::session& session, const payment_services& services, open_payment& payment,
           const std::string& state, const std::string& status, const std::string& failure_reason,
           const std::string& reason) {
    std::int64_t now_ms = services.time.now_ms();
    payment.approval.state = state;
    payment.approval.reason = reason;
    payment.approval.updated_at_ms = now_ms;
    save_approval(session, payment.approval);
    payment.transaction.status = status;
    payment.transaction.failure_reason = failure_reason;
    payment.transaction.updated_at_ms = now_ms;
    store_transaction_outcome(session, payment.transaction);
    record_payment_event(session, services.ids, services.time, services.currencies, payment.transaction);
}

}  // namespace

result<transaction_record, approval_failure> begin_incoming_approval(
    soci::session& session, const payment_services& services,
    const incoming_payment_request& request) {
    const tenant& owner = request.owner;
    auto account = find_account(session, owner, request.destination_account_id);
    if (!account ||
        (account->kind != account_kind::customer && account->kind != account_kind::platform)) {
        return failure(approval_error::account_not_found,
                       "no internal account " + request.destination_account_id,
                       {"destinationAccountId"});
    }
    if (!account->owner_id.empty()) {
        auto receiver = find_customer(session, owner, account->owner_id);
        if (!receiver || receiver->is_deleted) {
            return failure(approval_error::account_not_found, "the receiving customer is deleted",
                           {"destinationAccountId"});
        }
    }
    if (request.amount <= 0)
        return failure(approval_error::invalid_request, "amount must be positive", {"amount"});
    auto counterparty = parse_object(request.counterparty_information);
    if (!counterparty) {
        return failure(approval_error::invalid_request,
                       "counterpartyInformation must be a JSON object",
                       {"counterpartyInformation"});
    }
    std::int64_t now_ms = services.time.now_ms();
    transaction_record t;
    t.id = services.ids.next("Transaction");
    t.owner = owner;
    t.type = "INCOMING";
    t.status = "PENDING";
    t.customer_id = account->owner_id;
    if (!t.customer_id.empty()) {
        t.platform_customer_id = find_customer(session, owner, t.customer_id)->platform_customer_id;
    }
    t.source_type = "UMA_ADDRESS";
    t.source_currency =
        request.source_currency.empty() ? account->currency : request.source_currency;
    t.destination_type = "ACCOUNT";
    t.destination_account_id = account->id;
    t.destination_currency = account->currency;
    t.received_amount = request.amount;
    t.rate_details = request.rate_details.empty() ? "{}" : request.rate_details;
    t.description = request.description;
    t.reference = random_reference(services.random);
    t.created_at_ms = t.updated_at_ms = now_ms;
    store_new_transaction(session, t);

    json::array requested;
    for (const auto& field : request.requested_fields) {
        requested.push_back(json::object{{"name", field.name}, {"mandatory", field.mandatory}});
    }
    json::object transaction_json = render_transaction(t, services.currencies);
    transaction_json["source"].as_object()["umaAddress"] = request.sender_uma_address;
    transaction_json["counterpartyInformation"] = *counterparty;
    json::object payload{{"transaction", std::move(transaction_json)}};
    if (!requested.empty()) payload["requestedReceiverCustomerInfoFields"] = requested;
    std::string event_id =
        record_event(session, services.ids, services.time, owner, "INCOMING_PAYMENT",
                     json::serialize(payload), event_purpose::approval);

    std::string env_name(owner.env_name());
    std::string requested_text = json::serialize(requested);
    std::string counterparty_text = json::serialize(*counterparty);
    long long now = now_ms;
    session
        << "INSERT INTO incoming_approvals (transaction_id, platform_id, environment, state, "
           "event_id, sender_uma_address, counterparty_information, requested_fields, "
           "receiver_customer_info, required_fields, reason, deadline_at_ms, created_at_ms, "
           "updated_at_ms) VALUES (:i, :p, :e, 'AWAITING_WEBHOOK', :v, :s, :c, :q, '{}', '[]', '', "
           "0, :t, :u)",
        soci::use(t.id), soci::use(owner.platform_id), soci::use(env_name), soci::use(event_id),
        soci::use(request.sender_uma_address), soci::use(counterparty_text),
        soci::use(requested_text), soci::use(now), soci::use(now);
    return t;
}

result<incoming_approval, approval_failure> apply_approval_answer(
    soci::session& session, const payment_services& services, const tenant& owner,
    const std::string& transaction_id, int response_status, std::string_view response_body,
    std::int64_t approval_timeout_ms) {
    auto loaded = load(session, owner, transaction_id);
    if (!loaded) return loaded.error();
    open_payment payment = std::move(loaded.value());
    if (payment.approval.state != "AWAITING_WEBHOOK") return payment.approval;
    auto body = parse_object(response_body).value_or(json::object{});
    std::int64_t now_ms = services.time.now_ms();
    if (response_status == 200) {
        json::object info;
        if (auto* given = body.if_contains("receiverCustomerInfo"); given && given->is_object()) {
            info = given->as_object();
        }
        auto missing = missing_mandatory(payment.approval.requested_fields, info);
        if (!missing.empty()) {
            close(session, services, payment, "FAILED", "FAILED", "MISSING_MANDATORY_PAYEE_DATA",
                  "the approval lacked mandatory receiver information");
            return payment.approval;
        }
        payment.approval.state = "APPROVED";
        payment.approval.receiver_customer_info = json::serialize(info);
        payment.approval.updated_at_ms = now_ms;
        save_approval(session, payment.approval);
    } else if (response_status == 403) {
        std::string reason = string_field(body, "reason");
        if (reason.empty()) reason = string_field(body, "message");
        close(session, services, payment, "REJECTED", "REJECTED", "", reason);
    } else if (response_status == 422) {
        json::array required;
        if (auto* fields = body.if_contains("requiredFields"); fields && fields->is_array()) {
            for (const auto& field : fields->as_array()) {
                if (field.is_string()) required.push_back(field);
            }
        }
        payment.approval.required_fields = json::serialize(required);
        close(session, services, payment, "NEEDS_INFORMATION", "REJECTED", "",
              string_field(body, "message"));
    } else if (response_status == 202) {
        payment.approval.state = "DEFERRED";
        payment.approval.deadline_at_ms = now_ms + approval_timeout_ms;
        payment.approval.updated_at_ms = now_ms;
        save_approval(session, payment.approval);
    } else {
        close(session, services, payment, "FAILED", "FAILED", "PAYMENT_APPROVAL_WEBHOOK_ERROR",
              response_status == 0
                  ? "the webhook endpoint did not answer"
                  : "the webhook endpoint answered " + std::to_string(response_status));
    }
    return payment.approval;
}

namespace {

// Loads an approval the platform may still decide through the API.
result<open_payment, approval_failure> load_decidable(soci::session& session,
                                                      const payment_services& services,
                                                      const tenant& owner,
                                                      const std::string& transaction_id) {
    auto loaded = load(session, owner, transaction_id);
    if (!loaded) return loaded.error();
    const auto& approval = loaded.value().approval;
    bool timed_out =
        approval.state == "DEFERRED" && services.time.now_ms() >= approval.deadline_at_ms;
    if (!approval.open() || timed_out) {
        return failure(approval_error::not_pending_platform_approval,
                       "transaction " + transaction_id + " is not pending platform approval (" +
                           (timed_out ? std::string("approval timed out") : approval.state) + ")");
    }
    return loaded;
}

}  // namespace

result<transaction_record, approval_failure> approve_incoming_payment(
    soci::session& session, const payment_services& services, const tenant& owner,
    const std::string& transaction_id, const std::string& receiver_customer_info) {
    auto loaded = load_decidable(session, services, owner, transaction_id);
    if (!loaded) return loaded.error();
    open_payment payment = std::move(loaded.value());
    json::object info;
    if (!receiver_customer_info.empty()) {
        auto parsed = parse_object(receiver_customer_info);
        if (!parsed) {
            return failure(approval_error::invalid_request,
                           "receiverCustomerInfo must be an object", {"receiverCustomerInfo"});
        }
        info = std::move(*parsed);
    }
    auto missing = missing_mandatory(payment.approval.requested_fields, info);
    if (!missing.empty()) {
        std::string names;
        for (const auto& name : missing) names += (names.empty() ? "" : ", ") + name;
        return failure(approval_error::missing_mandatory_fields,
                       "receiverCustomerInfo lacks mandatory fields: " + names, missing);
    }
    payment.approval.state = "APPROVED";
    payment.approval.receiver_customer_info = json::serialize(info);
    payment.approval.updated_at_ms = services.time.now_ms();
    save_approval(session, payment.approval);
    return payment.transaction;
}

result<transaction_record, approval_failure> reject_incoming_payment(
    soci::session& session, const payment_services& services, const tenant& owner,
    const std::string& transaction_id, const std::string& reason) {
    auto loaded = load_decidable(session, services, owner, transaction_id);
    if (!loaded) return loaded.error();
    open_payment payment = std::move(loaded.value());
    close(session, services, payment, "REJECTED", "REJECTED", "", reason);
    return payment.transaction;
}

result<transaction_record, approval_failure> fail_incoming_payment(
    soci::session& session, const payment_services& services, const tenant& owner,
    const std::string& transaction_id, const std::string& failure_reason,
    const std::string& reason) {
    auto loaded = load(session, owner, transaction_id);
    if (!loaded) return loaded.error();
    open_payment payment = std::move(loaded.value());
    if (!payment.approval.open() && payment.approval.state != "APPROVED") {
        return failure(approval_error::not_pending_platform_approval,
                       "transaction " + transaction_id + " is already " + payment.approval.state);
    }
    close(session, services, payment, "FAILED", "FAILED", failure_reason, reason);
    return payment.transaction;
}

int expire_due_approvals(soci::session& session, const payment_services& services, int limit) {
    CORRIDOR_ASSERT(limit > 0);
    long long now = services.time.now_ms();
    std::vector<incoming_approval> due;
    {
        approval_row row;
        soci::statement statement(session);
        row.bind(statement);
        statement.exchange(soci::use(now));
        statement.exchange(soci::use(limit));
        statement.alloc();
        statement.prepare(
            std::string(approval_columns) +
            "WHERE state = 'DEFERRED' AND deadline_at_ms <= :n ORDER BY deadline_at_ms "
            "LIMIT :l");
        statement.define_and_bind();
        statement.execute(false);
        while (statement.fetch()) due.push_back(row.to_record());
    }
    int expired = 0;
    for (const auto& approval : due) {
        auto transaction = find_transaction(session, approval.owner, approval.transaction_id);
        CORRIDOR_ASSERT(transaction.has_value());
        open_payment payment{std::move(*transaction), approval};
        close(session, services, payment, "FAILED", "FAILED", "PAYMENT_APPROVAL_TIMED_OUT",
              "the platform did not decide within the approval time-out");
        ++expired;
    }
    return expired;
}

std::optional<incoming_approval> find_incoming_approval(soci::session& session, const tenant& owner,
                                                        const std::string& transaction_id) {
    approval_row row;
    std::string env_name(owner.env_name());
    soci::statement statement(session);
    row.bind(statement);
    statement.exchange(soci::use(owner.platform_id));
    statement.exchange(soci::use(env_name));
    statement.exchange(soci::use(transaction_id));
    statement.alloc();
    statement.prepare(std::string(approval_columns) +
                      "WHERE platform_id = :p AND environment = :e AND transaction_id = :i");
    statement.define_and_bind();
    if (!statement.execute(true)) return std::nullopt;
    return row.to_record();
}

}  // namespace corridor
