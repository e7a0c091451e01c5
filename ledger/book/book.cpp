#include "ledger/book/book.hpp"

#include <map>

#include "ledger/base/assert.hpp"
#include "ledger/book/account_opening.hpp"
#include "ledger/book/guarded_sides.hpp"
#include "ledger/book/money.hpp"
#include "ledger/store/batch_send.hpp"
#include "ledger/store/control_queue.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/deferred_writes.hpp"
#include "ledger/store/statement_cache.hpp"

namespace corridor {
namespace {

constexpr std::int64_t posted_max = std::numeric_limits<std::int64_t>::max();

account_kind kind_of(const std::string& name) {
    static const std::map<std::string, account_kind> kinds = {
        {"CUSTOMER", account_kind::customer},
        {"PLATFORM", account_kind::platform},
        {"LIQUIDITY", account_kind::liquidity},
        {"FEES", account_kind::fees},
        {"SETTLEMENT", account_kind::settlement}};
    return kinds.at(name);
}

struct account_row {
    std::string id, platform_id, environment, kind, owner_id, currency, reference;
    int must_not_overdraw = 1;
    long long debits_posted = 0, credits_posted = 0, created_at_ms = 0, updated_at_ms = 0;
    long long account_key = 0;

    void bind(soci::statement& statement) {
        for (auto* text :
             {&id, &platform_id, &environment, &kind, &owner_id, &currency, &reference}) {
            statement.exchange(soci::into(*text));
        }
        statement.exchange(soci::into(must_not_overdraw));
        statement.exchange(soci::into(debits_posted));
        statement.exchange(soci::into(credits_posted));
        statement.exchange(soci::into(created_at_ms));
        statement.exchange(soci::into(updated_at_ms));
        statement.exchange(soci::into(account_key));
    }

    account_facts facts() const {
        return {id, platform_id, environment, kind, owner_id, currency, account_key};
    }

    ledger_account to_account() const {
        ledger_account out;
        out.id = id;
        out.owner = tenant_of_row(platform_id, environment);
        out.kind = kind_of(kind);
        out.owner_id = owner_id;
        out.currency = currency;
        out.reference = reference;
        out.must_not_overdraw = must_not_overdraw != 0;
        out.debits_posted = debits_posted;
        out.credits_posted = credits_posted;
        out.created_at_ms = created_at_ms;
        out.updated_at_ms = updated_at_ms;
        CORRIDOR_ASSERT(!out.must_not_overdraw || out.balance() >= 0);
        return out;
    }
};

constexpr const char* account_select =
    "SELECT id, platform_id, environment, kind, owner_id, currency, reference, must_not_overdraw, "
    "debits_posted, credits_posted, created_at_ms, updated_at_ms, account_key FROM "
    "ledger_accounts";

const std::string account_by_id_sql =
    std::string(account_select) + " WHERE platform_id = :p AND environment = :e AND id = :i";

struct balance_row {
    long long balance = 0;
    void bind(soci::statement& statement) { statement.exchange(soci::into(balance)); }
};

}  // namespace

std::string_view to_string(account_kind kind) {
    switch (kind) {
        case account_kind::customer: return "CUSTOMER";
        case account_kind::platform: return "PLATFORM";
        case account_kind::liquidity: return "LIQUIDITY";
        case account_kind::fees: return "FEES";
        case account_kind::settlement: return "SETTLEMENT";
    }
    return "CUSTOMER";
}

std::optional<ledger_account> find_account(soci::session& session, const tenant& owner,
                                           const std::string& id) {
    account_row row;
    std::string env_name(owner.env_name());
    if (!fetch_prepared(session, account_by_id_sql.c_str(), row, owner.platform_id, env_name, id)) {
        return std::nullopt;
    }
    // In the writer's batch: remembered once the batch commits.
    if (deferred_writes* deferred = deferred_writes_of(session)) {
        deferred->facts().saw_account(row.facts());
    }
    return row.to_account();
}

std::optional<account_identity> find_account_identity(soci::session& session, const tenant& owner,
                                                      const std::string& id) {
    if (deferred_writes* deferred = deferred_writes_of(session)) {
        if (const account_facts* known = deferred->facts().account(id)) {
            // Another tenant's account reads as not found, as the lookup by tenant would.
            if (known->platform_id != owner.platform_id || known->environment != owner.env_name()) {
                return std::nullopt;
            }
            return account_identity{known->id, owner, kind_of(known->kind), known->owner_id,
                                    known->currency};
        }
    }
    auto account = find_account(session, owner, id);
    if (!account) return std::nullopt;
    return account_identity{account->id, account->owner, account->kind, account->owner_id,
                            account->currency};
}

page<ledger_account> list_internal_accounts(soci::session& session, const tenant& owner,
                                            const account_filter& filter,
                                            const page_request& request) {
    sql_filter where = tenant_filter(owner);
    if (filter.platform_only) {
        where.equals("kind", std::string("PLATFORM"));
    } else {
        where.equals("kind", std::string("CUSTOMER"));
        if (filter.customer_id) {
            where.equals("owner_id", *filter.customer_id);
            where.raw("owner_id <> ''");  // the predicate of the owner's index (migration 42)
        }
    }
    if (filter.currency) where.equals("currency", *filter.currency);
    return list_page<ledger_account, account_row>(
        session, "ledger_accounts", account_select, where, request,
        [](const account_row& r) { return r.to_account(); });
}

std::vector<currency_balance> balances_by_currency(soci::session& session, const tenant& owner) {
    std::string env_name(owner.env_name());
    std::string currency, kind;
    long long count = 0, balance = 0;
    // CAST: PostgreSQL counts and sums BIGINT into BIGINT and NUMERIC; both read as integers.
    soci::statement statement =
        (session.prepare
             << "SELECT currency, kind, CAST(COUNT(*) AS BIGINT), "
                "CAST(SUM(credits_posted - debits_posted) AS BIGINT) FROM ledger_accounts "
                "WHERE platform_id = :p AND environment = :e AND kind IN ('PLATFORM', "
                "'CUSTOMER') GROUP BY currency, kind ORDER BY currency, kind",
         soci::into(currency), soci::into(kind), soci::into(count), soci::into(balance),
         soci::use(owner.platform_id), soci::use(env_name));
    statement.execute(false);
    std::vector<currency_balance> out;
    while (statement.fetch()) {
        if (out.empty() || out.back().currency != currency) out.push_back({currency});
        if (kind == "PLATFORM") {
            out.back().platform_balance = balance;
        } else {
            out.back().customer_balance = balance;
            out.back().customer_accounts = count;
        }
    }
    return out;
}

namespace {

// Why an UPDATE guarded by tenant, currency and limits touched no row.
transfer_error classify_refusal(soci::session& session, const tenant& owner, const std::string& id,
                                const transfer_request& request, bool debit_side) {
    auto account = find_account(session, owner, id);
    if (!account) return transfer_error::account_not_found;
    if (account->currency != request.currency) return transfer_error::currency_mismatch;
    std::int64_t posted = debit_side ? account->debits_posted : account->credits_posted;
    if (posted > posted_max - request.amount) return transfer_error::overflow;
    return transfer_error::insufficient_funds;
}

std::string record_transfer(soci::session& session, book_services services,
                            const transfer_request& request, long long now_ms, bool defer_credit,
                            bool defer_debit);

// Adds the amount to the credit account's credits now (not at the flush); the number of rows
// updated: 0 when the account is not the owner's, not in the currency, or past the ceiling.
long long credit_now(soci::session& session, const tenant& owner, const std::string& env_name,
                     const transfer_request& request, long long now_ms, long long ceiling,
                     deferred_writes* deferred) {
    long long amount = request.amount;
    long long credited = 0;
    if (deferred) {
        // In the writer's batch the balance comes back with the update, for later reads.
        balance_row after;
        credited = fetch_prepared(session,
                                  "UPDATE ledger_accounts SET credits_posted = credits_posted + "
                                  ":a, updated_at_ms = :t WHERE id = :i AND platform_id = :p AND "
                                  "environment = :e AND currency = :c AND credits_posted <= :m "
                                  "RETURNING credits_posted - debits_posted",
                                  after, amount, now_ms, request.credit_account_id,
                                  owner.platform_id, env_name, request.currency, ceiling);
        if (credited) deferred->saw_balance(request.credit_account_id, after.balance);
    } else {
        credited = run_prepared(
            session,
            "UPDATE ledger_accounts SET credits_posted = credits_posted + :a, updated_at_ms = "
            ":t "
            "WHERE id = :i AND platform_id = :p AND environment = :e AND currency = :c AND "
            "credits_posted <= :m",
            amount, now_ms, request.credit_account_id, owner.platform_id, env_name,
            request.currency, ceiling);
    }
    return credited;
}

// Adds the amount to the debit account's debits now, guarded against overdraft; the number of
// rows updated: 0 when refused.
long long debit_now(soci::session& session, const tenant& owner, const std::string& env_name,
                    const transfer_request& request, long long now_ms, long long ceiling,
                    deferred_writes* deferred) {
    long long amount = request.amount;
    // The overdraft guard lives in the WHERE clause, evaluated on the row as locked, so two
    // debits can never both pass on a balance that covers one.
    long long debited = 0;
    if (deferred) {
        balance_row after;
        debited = fetch_prepared(
            session,
            "UPDATE ledger_accounts SET debits_posted = debits_posted + :a, updated_at_ms = :t "
            "WHERE id = :i AND platform_id = :p AND environment = :e AND currency = :c AND "
            "debits_posted <= :m AND (must_not_overdraw = 0 OR credits_posted - debits_posted "
            ">= "
            ":a2) RETURNING credits_posted - debits_posted",
            after, amount, now_ms, request.debit_account_id, owner.platform_id, env_name,
            request.currency, ceiling, amount);
        if (debited) deferred->saw_balance(request.debit_account_id, after.balance);
    } else {
        debited = run_prepared(
            session,
            "UPDATE ledger_accounts SET debits_posted = debits_posted + :a, updated_at_ms = :t "
            "WHERE id = :i AND platform_id = :p AND environment = :e AND currency = :c AND "
            "debits_posted <= :m AND (must_not_overdraw = 0 OR credits_posted - debits_posted "
            ">= "
            ":a2)",
            amount, now_ms, request.debit_account_id, owner.platform_id, env_name, request.currency,
            ceiling, amount);
    }
    return debited;
}

}  // namespace

result<std::string, transfer_error> post_transfer(soci::session& session, book_services services,
                                                  const tenant& owner,
                                                  const transfer_request& request) {
    CORRIDOR_ASSERT(request.amount > 0);
    CORRIDOR_ASSERT(request.debit_account_id != request.credit_account_id);
    long long now_ms = services.time.now_ms();
    long long ceiling = posted_max - request.amount;
    std::string env_name(owner.env_name());
    deferred_writes* deferred = deferred_writes_of(session);
    bool defer_credit = deferred && is_service_account(request.credit_account_id);
    bool defer_debit = deferred && is_service_account(request.debit_account_id);
    if (!defer_credit &&
        credit_now(session, owner, env_name, request, now_ms, ceiling, deferred) != 1) {
        return classify_refusal(session, owner, request.credit_account_id, request, false);
    }
    if (!defer_debit &&
        debit_now(session, owner, env_name, request, now_ms, ceiling, deferred) != 1) {
        // Undo the credit so that a refused transfer leaves no trace (a deferred one was never
        // kept).
        if (!defer_credit) {
            run_prepared(session,
                         "UPDATE ledger_accounts SET credits_posted = credits_posted - :a WHERE id "
                         "= :i",
                         static_cast<long long>(request.amount), request.credit_account_id);
            if (deferred) deferred->saw_balance(request.credit_account_id, std::nullopt);
        }
        return classify_refusal(session, owner, request.debit_account_id, request, true);
    }
    return record_transfer(session, services, request, now_ms, defer_credit, defer_debit);
}

namespace {

// The rest of a transfer whose conditional updates went through: the postings kept for the flush
// and the transfer's row.
std::string record_transfer(soci::session& session, book_services services,
                            const transfer_request& request, long long now_ms, bool defer_credit,
                            bool defer_debit) {
    long long amount = request.amount;
    deferred_writes* deferred = deferred_writes_of(session);
    if (defer_credit) deferred->add_posting(request.credit_account_id, false, amount, now_ms);
    if (defer_debit) deferred->add_posting(request.debit_account_id, true, amount, now_ms);
    std::string id = services.ids.next("Transfer");
    if (deferred) {
        // Nothing reads a transfer back before the batch commits. Its tenant is its accounts'.
        deferred->add_transfer({id, request.debit_account_id, request.credit_account_id, amount,
                                request.currency, request.code, request.transaction_id, now_ms,
                                account_key_of(session, *deferred, request.debit_account_id),
                                account_key_of(session, *deferred, request.credit_account_id)});
        return id;
    }
    run_prepared(session,
                 "INSERT INTO ledger_transfers (id, debit_account_key, credit_account_key, amount, "
                 "currency, code, transaction_id, created_at_ms) VALUES (packed_id(:i), (SELECT "
                 "account_key FROM ledger_accounts WHERE id = :d), (SELECT account_key FROM "
                 "ledger_accounts WHERE id = :c), :a, :y, :k, packed_id(:x), :t)",
                 id, request.debit_account_id, request.credit_account_id, amount, request.currency,
                 request.code, request.transaction_id, now_ms);
    return id;
}

}  // namespace

namespace {

// The optimistic attempt of the writer's batch (deferred_writes.hpp): the guarded updates are
// queued and answered before the flush, the transfers recorded as if they went through; a refusal
// runs the batch again without this.
std::vector<std::string> post_transfers_queued(soci::session& session, book_services services,
                                               const tenant& owner,
                                               const std::vector<transfer_request>& requests,
                                               long long now_ms) {
    queue_guarded_sides(session, *deferred_writes_of(session), owner, requests, now_ms);
    std::vector<std::string> ids;
    for (const auto& r : requests) {
        ids.push_back(record_transfer(session, services, r, now_ms,
                                      is_service_account(r.credit_account_id),
                                      is_service_account(r.debit_account_id)));
    }
    return ids;
}

}  // namespace

result<std::vector<std::string>, transfers_refusal> post_transfers(
    soci::session& session, book_services services, const tenant& owner,
    const std::vector<transfer_request>& requests) {
    std::vector<std::string> ids;
    deferred_writes* deferred = deferred_writes_of(session);
    if (!deferred || backend_of(session) != database_backend::postgresql) {
        for (std::size_t i = 0; i < requests.size(); ++i) {
            auto posted = post_transfer(session, services, owner, requests[i]);
            if (!posted) return transfers_refusal{i, posted.error()};
            ids.push_back(std::move(posted.value()));
        }
        return ids;
    }
    long long now_ms = services.time.now_ms();
    if (deferred->optimistic())
        return post_transfers_queued(session, services, owner, requests, now_ms);
    // Each side that post_transfer would update at once (not a service account's), in the order
    // it would: the credit, then the guarded debit.
    struct side {
        std::size_t transfer;
        bool debit;
    };
    std::vector<side> sides;
    std::vector<pipelined_statement> statements;
    for (std::size_t i = 0; i < requests.size(); ++i) {
        for (bool debit : {false, true}) {
            const transfer_request& r = requests[i];
            if (is_service_account(debit ? r.debit_account_id : r.credit_account_id)) continue;
            sides.push_back({i, debit});
            statements.push_back(guarded_side_statement(owner, r, debit, now_ms));
        }
    }
    auto answers = run_pipeline_answers(session, statements);
    std::size_t refused = sides.size();
    for (std::size_t k = 0; k < sides.size(); ++k) {
        if (!answers[k]) {
            refused = k;
            break;
        }
    }
    std::size_t kept = refused == sides.size() ? requests.size() : sides[refused].transfer;
    for (std::size_t k = 0; k < sides.size(); ++k) {
        const transfer_request& r = requests[sides[k].transfer];
        const std::string& id = sides[k].debit ? r.debit_account_id : r.credit_account_id;
        if (sides[k].transfer < kept) {
            deferred->saw_balance(id, std::stoll(*answers[k]));
        } else if (answers[k]) {
            // Went through after the refusal: taken back, as post_transfer takes back its credit.
            run_prepared(session,
                         sides[k].debit ? "UPDATE ledger_accounts SET debits_posted = "
                                          "debits_posted - :a WHERE id = :i"
                                        : "UPDATE ledger_accounts SET credits_posted = "
                                          "credits_posted - :a WHERE id = :i",
                         static_cast<long long>(r.amount), id);
            deferred->saw_balance(id, std::nullopt);
        }
    }
    for (std::size_t i = 0; i < kept; ++i) {
        ids.push_back(record_transfer(session, services, requests[i], now_ms,
                                      is_service_account(requests[i].credit_account_id),
                                      is_service_account(requests[i].debit_account_id)));
    }
    if (kept == requests.size()) return ids;
    const transfer_request& r = requests[kept];
    bool debit = sides[refused].debit;
    return transfers_refusal{
        kept, classify_refusal(session, owner, debit ? r.debit_account_id : r.credit_account_id, r,
                               debit)};
}

std::optional<std::int64_t> account_balance(soci::session& session, const std::string& id) {
    deferred_writes* deferred = deferred_writes_of(session);
    if (deferred) {
        // A guarded statement of the optimistic attempt still to answer: its queue goes out now.
        if (deferred->unanswered_balance(id)) send_queued_guarded(session);
        if (auto known = deferred->balance_of(id)) return *known;
    }
    balance_row row;
    if (!fetch_prepared(session,
                        "SELECT credits_posted - debits_posted FROM ledger_accounts WHERE id = :i",
                        row, id)) {
        return std::nullopt;
    }
    // A service account's postings of this batch may still wait for the flush.
    return row.balance + (deferred ? deferred->pending_delta(id) : 0);
}

}  // namespace corridor
