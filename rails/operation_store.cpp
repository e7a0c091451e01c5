#include "rails/operation_store.hpp"

#include "ledger/store/database.hpp"

namespace corridor {
namespace {

constexpr const char* columns =
    "id, platform_id, environment, rail, direction, status, transaction_id, internal_account_id, "
    "external_account_id, account_type, account_json, currency, amount, description, "
    "rail_reference, rail_reason_code, failure_class, failure_reason, message, attempts, "
    "lease_until_ms, deadline_at_ms, created_at_ms, updated_at_ms, rail_node, rail_epoch";

struct row {
    std::string id, platform_id, environment, rail, direction, status, transaction_id,
        internal_account_id, external_account_id, account_type, account_json, currency;
    long long amount = 0;
    std::string description, rail_reference, rail_reason_code, failure_class, failure_reason,
        message;
    int attempts = 0;
    long long lease_until_ms = 0, deadline_at_ms = 0, created_at_ms = 0, updated_at_ms = 0;
    std::string rail_node, rail_epoch;

    void bind(soci::statement& s) {
        for (auto* text : {&id, &platform_id, &environment, &rail, &direction, &status,
                           &transaction_id, &internal_account_id, &external_account_id,
                           &account_type, &account_json, &currency}) {
            s.exchange(soci::into(*text));
        }
        s.exchange(soci::into(amount));
        for (auto* text : {&description, &rail_reference, &rail_reason_code, &failure_class,
                           &failure_reason, &message}) {
            s.exchange(soci::into(*text));
        }
        s.exchange(soci::into(attempts));
        for (auto* number : {&lease_until_ms, &deadline_at_ms, &created_at_ms, &updated_at_ms}) {
            s.exchange(soci::into(*number));
        }
        s.exchange(soci::into(rail_node));
        s.exchange(soci::into(rail_epoch));
    }

    rail_operation to_operation() const {
        return rail_operation{id,
                              tenant_of_row(platform_id, environment),
                              rail,
                              direction,
                              status,
                              transaction_id,
                              internal_account_id,
                              external_account_id,
                              account_type,
                              account_json,
                              currency,
                              amount,
                              description,
                              rail_reference,
                              rail_reason_code,
                              failure_class,
                              failure_reason,
                              message,
                              attempts,
                              lease_until_ms,
                              deadline_at_ms,
                              created_at_ms,
                              updated_at_ms,
                              rail_node,
                              rail_epoch};
    }
};

// Runs a SELECT of all columns with the given tail and parameters (then `more`, bound in the
// order they appear after them); returns every row.
template <class... Params>
std::vector<rail_operation> select(soci::session& session, const std::string& tail,
                                   const std::vector<std::string>& more, Params&... params) {
    std::vector<rail_operation> out;
    row r;
    soci::statement statement(session);
    statement.alloc();
    std::string sql = std::string("SELECT ") + columns + " FROM rail_operations " + tail;
    statement.prepare(sql);
    r.bind(statement);
    (statement.exchange(soci::use(params)), ...);
    for (const auto& text : more) statement.exchange(soci::use(text));
    statement.define_and_bind();
    statement.execute(false);
    while (statement.fetch()) out.push_back(r.to_operation());
    return out;
}

// The row-locking suffix of a SELECT on PostgreSQL; SQLite's single writer needs none.
std::string locking(soci::session& session, const char* clause) {
    return backend_of(session) == database_backend::postgresql ? clause : "";
}

// Claims up to `limit` rows matching `where_and_order` (parameters: :n is now_ms, then `texts` in
// order), skipping rows another process holds.
std::vector<rail_operation> claim(soci::session& session, const std::string& where_and_order,
                                  std::int64_t now_ms, int limit,
                                  const std::vector<std::string>& texts = {}) {
    long long now = now_ms;
    std::string sql = where_and_order + " LIMIT " + std::to_string(limit) +
                      locking(session, " FOR UPDATE SKIP LOCKED");
    return select(session, sql, texts, now);
}

}  // namespace

void insert_rail_operation(soci::session& session, const rail_operation& o) {
    std::string env(o.owner.env_name());
    long long amount = o.amount, lease = o.lease_until_ms, deadline = o.deadline_at_ms,
              created = o.created_at_ms, updated = o.updated_at_ms;
    int attempts = o.attempts;
    session << std::string("INSERT INTO rail_operations (") + columns +
                   ") VALUES (:c1, :c2, :c3, :c4, :c5, :c6, :c7, :c8, :c9, :c10, :c11, :c12, :c13, "
                   ":c14, :c15, :c16, :c17, :c18, :c19, :c20, :c21, :c22, :c23, :c24, :c25, :c26)",
        soci::use(o.id), soci::use(o.owner.platform_id), soci::use(env), soci::use(o.rail),
        soci::use(o.direction), soci::use(o.status), soci::use(o.transaction_id),
        soci::use(o.internal_account_id), soci::use(o.external_account_id),
        soci::use(o.account_type), soci::use(o.account_json), soci::use(o.currency),
        soci::use(amount), soci::use(o.description), soci::use(o.rail_reference),
        soci::use(o.rail_reason_code), soci::use(o.failure_class), soci::use(o.failure_reason),
        soci::use(o.message), soci::use(attempts), soci::use(lease), soci::use(deadline),
        soci::use(created), soci::use(updated), soci::use(o.rail_node), soci::use(o.rail_epoch);
}

void update_rail_operation(soci::session& session, const rail_operation& o) {
    long long lease = o.lease_until_ms, updated = o.updated_at_ms;
    int attempts = o.attempts;
    session
        << "UPDATE rail_operations SET status = :s, rail_reference = :r, rail_reason_code = :c, "
           "failure_class = :f, failure_reason = :fr, message = :m, attempts = :a, "
           "lease_until_ms = :l, updated_at_ms = :u, rail_node = :n, rail_epoch = :e WHERE id = :i",
        soci::use(o.status), soci::use(o.rail_reference), soci::use(o.rail_reason_code),
        soci::use(o.failure_class), soci::use(o.failure_reason), soci::use(o.message),
        soci::use(attempts), soci::use(lease), soci::use(updated), soci::use(o.rail_node),
        soci::use(o.rail_epoch), soci::use(o.id);
}

std::optional<rail_operation> find_rail_operation(soci::session& session, const std::string& id) {
    std::string key = id;
    // Locked (PostgreSQL) so that a report and another process closing the row at its deadline
    // are applied one after the other, the second seeing what the first wrote.
    auto found = select(session, "WHERE id = :i" + locking(session, " FOR UPDATE"), {}, key);
    if (found.empty()) return std::nullopt;
    return found.front();
}

std::optional<rail_operation> find_rail_operation_by_transaction(
    soci::session& session, const tenant& owner, const std::string& transaction_id) {
    std::string platform = owner.platform_id, env(owner.env_name()), key = transaction_id;
    auto found =
        select(session, "WHERE platform_id = :p AND environment = :e AND transaction_id = :t", {},
               platform, env, key);
    if (found.empty()) return std::nullopt;
    return found.front();
}

std::vector<rail_operation> claim_due_initiations(soci::session& session, std::int64_t now_ms,
                                                  int limit, const std::string& node) {
    return claim(session,
                 "WHERE status = 'INITIATING' AND lease_until_ms <= :n AND rail_node IN ('', :o) "
                 "ORDER BY created_at_ms, id",
                 now_ms, limit, {node});
}

std::vector<rail_operation> claim_restarted(soci::session& session, std::int64_t now_ms, int limit,
                                            const std::string& node, const std::string& epoch,
                                            const std::vector<std::string>& rails) {
    if (rails.empty()) return {};
    std::string names;
    for (std::size_t i = 0; i < rails.size(); ++i)
        names += (i == 0 ? ":r" : ", :r") + std::to_string(i);
    std::vector<std::string> texts{node, epoch};
    texts.insert(texts.end(), rails.begin(), rails.end());
    return claim(session,
                 "WHERE lease_until_ms <= :n AND ((status IN ('INITIATING', 'PENDING') AND "
                 "rail_node = :o AND rail_epoch <> :e) OR (status = 'PENDING' AND rail_node = '')) "
                 "AND rail IN (" +
                     names + ") ORDER BY created_at_ms, id",
                 now_ms, limit, texts);
}

std::vector<rail_operation> claim_overdue(soci::session& session, std::int64_t now_ms, int limit) {
    return claim(session,
                 "WHERE status IN ('INITIATING', 'PENDING') AND deadline_at_ms <= :n "
                 "ORDER BY deadline_at_ms, id",
                 now_ms, limit);
}

}  // namespace corridor
