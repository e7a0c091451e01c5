#include "ledger/payments/uma_post_transactions.hpp"

#include "ledger/store/database.hpp"

namespace corridor {
namespace {

constexpr const char* columns =
    "transaction_id, platform_id, environment, quote_id, url, vasp_domain, amount_msats, state, "
    "attempts, next_attempt_at_ms, last_error, created_at_ms, updated_at_ms";

struct row {
    std::string transaction_id, platform_id, environment, quote_id, url, vasp_domain;
    long long amount_msats = 0;
    std::string state;
    int attempts = 0;
    long long next_attempt_at_ms = 0;
    std::string last_error;
    long long created_at_ms = 0, updated_at_ms = 0;

    void bind(soci::statement& s) {
        for (auto* text :
             {&transaction_id, &platform_id, &environment, &quote_id, &url, &vasp_domain})
            s.exchange(soci::into(*text));
        s.exchange(soci::into(amount_msats));
        s.exchange(soci::into(state));
        s.exchange(soci::into(attempts));
        s.exchange(soci::into(next_attempt_at_ms));
        s.exchange(soci::into(last_error));
        s.exchange(soci::into(created_at_ms));
        s.exchange(soci::into(updated_at_ms));
    }

    uma_post_transaction to_record() const {
        return uma_post_transaction{transaction_id,
                                    tenant_of_row(platform_id, environment),
                                    quote_id,
                                    url,
                                    vasp_domain,
                                    amount_msats,
                                    state,
                                    attempts,
                                    next_attempt_at_ms,
                                    last_error,
                                    created_at_ms,
                                    updated_at_ms};
    }
};

template <class... Params>
std::vector<uma_post_transaction> select(soci::session& session, const std::string& tail,
                                         Params&... params) {
    std::vector<uma_post_transaction> out;
    row r;
    soci::statement statement(session);
    statement.alloc();
    statement.prepare(std::string("SELECT ") + columns + " FROM uma_post_transactions " + tail);
    r.bind(statement);
    (statement.exchange(soci::use(params)), ...);
    statement.define_and_bind();
    statement.execute(false);
    while (statement.fetch()) out.push_back(r.to_record());
    return out;
}

}  // namespace

void enqueue_uma_post_transaction(soci::session& session, const uma_post_transaction& c) {
    std::string env(c.owner.env_name());
    long long amount = c.amount_msats, next = c.next_attempt_at_ms, created = c.created_at_ms,
              updated = c.updated_at_ms;
    session << std::string("INSERT INTO uma_post_transactions (") + columns +
                   ") VALUES (:t, :p, :e, :q, :u, :d, :a, :s, :n, :x, :l, :c, :m)",
        soci::use(c.transaction_id), soci::use(c.owner.platform_id), soci::use(env),
        soci::use(c.quote_id), soci::use(c.url), soci::use(c.vasp_domain), soci::use(amount),
        soci::use(c.state), soci::use(c.attempts), soci::use(next), soci::use(c.last_error),
        soci::use(created), soci::use(updated);
}

std::vector<uma_post_transaction> claim_due_uma_post_transactions(soci::session& session,
                                                                  std::int64_t now_ms,
                                                                  std::int64_t lease_ms,
                                                                  int limit) {
    long long now = now_ms;
    std::string tail =
        "WHERE state = 'PENDING' AND next_attempt_at_ms <= :n ORDER BY next_attempt_at_ms, "
        "transaction_id LIMIT :l";
    if (backend_of(session) == database_backend::postgresql) tail += " FOR UPDATE SKIP LOCKED";
    auto due = select(session, tail, now, limit);
    for (auto& callback : due) {
        callback.next_attempt_at_ms = now_ms + lease_ms;
        callback.updated_at_ms = now_ms;
        update_uma_post_transaction(session, callback);
    }
    return due;
}

void update_uma_post_transaction(soci::session& session, const uma_post_transaction& c) {
    long long next = c.next_attempt_at_ms, updated = c.updated_at_ms;
    session << "UPDATE uma_post_transactions SET state = :s, attempts = :a, next_attempt_at_ms = "
               ":n, last_error = :l, updated_at_ms = :u WHERE transaction_id = :t",
        soci::use(c.state), soci::use(c.attempts), soci::use(next), soci::use(c.last_error),
        soci::use(updated), soci::use(c.transaction_id);
}

std::optional<uma_post_transaction> find_uma_post_transaction(soci::session& session,
                                                              const tenant& owner,
                                                              const std::string& transaction_id) {
    std::string env(owner.env_name());
    std::string id = transaction_id, platform = owner.platform_id;
    auto found =
        select(session, "WHERE transaction_id = :t AND platform_id = :p AND environment = :e", id,
               platform, env);
    if (found.empty()) return std::nullopt;
    return found.front();
}

}  // namespace corridor
