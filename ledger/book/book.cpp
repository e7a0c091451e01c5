#include "ledger/book/book.hpp"

#include <map>
#include <set>

#include "ledger/base/assert.hpp"
#include "ledger/book/guarded_sides.hpp"
#include "ledger/book/money.hpp"
#include "ledger/store/batch_send.hpp"
#include "ledger/store/control_queue.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/deferred_writes.hpp"
#include "ledger/store/multi_row.hpp"
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
    "debits_posted, credits_posted, created_at_ms, updated_at_ms FROM ledger_accounts";

const std::string account_by_id_sql =
    std::string(account_select) + " WHERE platform_id = :p AND environment = :e AND id = :i";

struct balance_row {
    long long balance = 0;
    void bind(soci::statement& statement) { statement.exchange(soci::into(balance)); }
};

struct id_row {
    std::string id;
    soci::indicator found = soci::i_null;
    void bind(soci::statement& statement) { statement.exchange(soci::into(id, found)); }
};

bool is_internal(account_kind kind) {
    return kind == account_kind::customer || kind == account_kind::platform;
}

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

namespace {

std::string upper(std::string text) {
    for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

// A short upper-case reference a person can type into a bank transfer's memo: "CR" and 14 random
// characters (70 bits).
std::string new_account_reference(random_source& random) {
    return "CR" + upper(random_base32(random, 14));
}

// References for the accounts of a batch, of the same form as new_account_reference, drawn so that
// their unique index stays cheap to fill: a group of accounts_per_group references shares its
// first 6 random characters (30 bits, drawn anew for each group) and differs in its last 8 (40
// bits, never repeated within the group). Fully random references land on random pages of the
// index, so a batch of 3,500 accounts rewrote about half of its pages at 100,000 customers (most
// of a bulk import's I/O); a group's references lie next to one another and share a few pages.
// Each reference keeps 40 bits no other account of its group has, and one of another group
// collides with it only if the group's 30 bits and its own 40 all repeat: as rare as with 70
// random bits.
class batch_account_references {
public:
    explicit batch_account_references(random_source& random) : random_(random) {}

    std::string next() {
        if (tails_.size() == accounts_per_group) tails_.clear();
        if (tails_.empty()) prefix_ = "CR" + upper(random_base32(random_, 6));
        // A repeat within a group is rare (500 draws of 40 bits); the bound holds even with a
        // broken random source.
        constexpr int attempts_max = 8;
        for (int attempt = 1;; ++attempt) {
            CORRIDOR_ASSERT(attempt <= attempts_max);
            std::string tail = upper(random_base32(random_, 8));
            if (tails_.insert(tail).second) return prefix_ + tail;
        }
    }

private:
    static constexpr std::size_t accounts_per_group = multi_row_chunk_rows_max;
    random_source& random_;
    std::string prefix_;
    std::set<std::string> tails_;
};

// Inserts the account unless one with the same owner and currency exists; its id when inserted.
std::optional<std::string> insert_account(soci::session& session, book_services services,
                                          const tenant& owner, account_kind kind,
                                          const std::string& owner_id,
                                          const std::string& currency) {
    std::string env_name(owner.env_name());
    std::string kind_name(to_string(kind));
    std::string id = services.ids.next(is_internal(kind) ? "InternalAccount" : "ServiceAccount");
    std::string reference = new_account_reference(services.random);
    int overdraw_guard = is_internal(kind) ? 1 : 0;
    long long now_ms = services.time.now_ms();
    // The conflict target is the unique index of the account's sort (migration 42), named with
    // that index's predicate.
    static const std::string insert_sql =
        "INSERT INTO ledger_accounts (id, platform_id, environment, kind, owner_id, currency, "
        "reference, must_not_overdraw, debits_posted, credits_posted, created_at_ms, "
        "updated_at_ms) VALUES (:i, :p, :e, :k, :o, :c, :r, :g, 0, 0, :t, :t2) ON CONFLICT ";
    static const std::string service_sql =
        insert_sql + "(platform_id, environment, kind, currency) WHERE owner_id = '' DO NOTHING";
    static const std::string owned_sql =
        insert_sql + "(owner_id, currency) WHERE owner_id <> '' DO NOTHING";
    const char* sql = (owner_id.empty() ? service_sql : owned_sql).c_str();
    bool inserted = run_prepared(session, sql, id, owner.platform_id, env_name, kind_name, owner_id,
                                 currency, reference, overdraw_guard, now_ms, now_ms) == 1;
    if (!inserted) return std::nullopt;
    return id;
}

}  // namespace

void open_new_customer_accounts(soci::session& session, book_services services, const tenant& owner,
                                const std::string& customer_id,
                                const std::vector<std::string>& currencies) {
    for (const auto& currency : currencies) {
        // The customer's id was just generated, so none of its accounts can exist yet: no lookup
        // first (each one a round trip per currency, and on a large table the costliest statement
        // of a bulk import), and a conflict would be a broken invariant rather than a race.
        auto id =
            insert_account(session, services, owner, account_kind::customer, customer_id, currency);
        CORRIDOR_ASSERT(id.has_value());
        // The writer opens a customer's accounts (customer creation is one of its commands): it
        // will not need to read them when the customer pays.
        if (deferred_writes* deferred = deferred_writes_of(session)) {
            deferred->facts().saw_account({*id, owner.platform_id, std::string(owner.env_name()),
                                           std::string(to_string(account_kind::customer)),
                                           customer_id, currency});
        }
    }
}

void open_new_customers_accounts(soci::session& session, book_services services,
                                 const tenant& owner,
                                 const std::vector<new_customer_accounts>& customers) {
    // As in open_new_customer_accounts: the customers are new, so no account of theirs exists and
    // no ON CONFLICT is needed; a conflict aborts the INSERT as the broken invariant it would be.
    std::string now_ms = std::to_string(services.time.now_ms());
    // Every account of the batch has the same tenant, kind, guard, zero balances and time: bound
    // once per statement, only the id, owner, currency and reference per account.
    multi_row_insert insert("ledger_accounts", {{"id"}, {"owner_id"}, {"currency"}, {"reference"}},
                            {{{"platform_id"}, owner.platform_id},
                             {{"environment"}, std::string(owner.env_name())},
                             {{"kind"}, std::string(to_string(account_kind::customer))},
                             {{"must_not_overdraw", column_type::integer}, "1"},
                             {{"debits_posted", column_type::integer}, "0"},
                             {{"credits_posted", column_type::integer}, "0"},
                             {{"created_at_ms", column_type::integer}, now_ms},
                             {{"updated_at_ms", column_type::integer}, now_ms}});
    batch_account_references references(services.random);
    for (const auto& customer : customers) {
        for (const auto& currency : *customer.currencies) {
            insert.add({services.ids.next("InternalAccount"), *customer.customer_id, currency,
                        references.next()});
        }
    }
    insert.run(session);
}

std::string ensure_account(soci::session& session, book_services services, const tenant& owner,
                           account_kind kind, const std::string& owner_id,
                           const std::string& currency) {
    CORRIDOR_ASSERT(kind == account_kind::customer || owner_id.empty());
    std::string env_name(owner.env_name());
    std::string kind_name(to_string(kind));
    // Each text names the predicate of its account's unique index (migration 42), so that even a
    // generic plan can use it.
    static const std::string find_sql =
        "SELECT id FROM ledger_accounts WHERE platform_id = :p AND environment = :e AND kind = :k "
        "AND owner_id = :o AND currency = :c AND owner_id ";
    static const std::string find_service_sql = find_sql + "= ''";
    static const std::string find_owned_sql = find_sql + "<> ''";
    const char* sql = (owner_id.empty() ? find_service_sql : find_owned_sql).c_str();
    auto find_id = [&]() -> std::optional<std::string> {
        id_row row;
        if (fetch_prepared(session, sql, row, owner.platform_id, env_name, kind_name, owner_id,
                           currency) &&
            row.found == soci::i_ok) {
            return std::move(row.id);
        }
        return std::nullopt;
    };
    // The ledger writer remembers service accounts' ids across batches (deferred_writes.hpp).
    deferred_writes* deferred =
        kind == account_kind::customer ? nullptr : deferred_writes_of(session);
    std::string key;
    if (deferred) {
        key = owner.platform_id + '/' + env_name + '/' + kind_name + '/' + currency;
        if (const std::string* known = deferred->known_account(key)) return *known;
    }
    auto existing = find_id();
    if (!existing) {
        // Another process may open the same account at the same moment: the unique index decides,
        // and the loser reads the winner's row.
        insert_account(session, services, owner, kind, owner_id, currency);
        existing = find_id();
        CORRIDOR_ASSERT(existing.has_value());
    }
    if (deferred) deferred->found_account(key, *existing);
    return *existing;
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
        deferred->facts().saw_account(
            {row.id, row.platform_id, row.environment, row.kind, row.owner_id, row.currency});
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
                                request.currency, request.code, request.transaction_id, now_ms});
        return id;
    }
    run_prepared(session,
                 "INSERT INTO ledger_transfers (id, debit_account_id, credit_account_id, amount, "
                 "currency, code, transaction_id, created_at_ms) VALUES (:i, :d, :c, :a, :y, :k, "
                 ":x, :t)",
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
