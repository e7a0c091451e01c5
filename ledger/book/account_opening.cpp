#include "ledger/book/account_opening.hpp"

#include <cctype>

#include "ledger/base/assert.hpp"
#include "ledger/book/book.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/deferred_writes.hpp"
#include "ledger/store/multi_row.hpp"
#include "ledger/store/statement_cache.hpp"

namespace corridor {
namespace {

std::string upper(std::string text) {
    for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

struct id_row {
    std::string id;
    long long account_key = 0;
    soci::indicator found = soci::i_null;
    void bind(soci::statement& statement) {
        statement.exchange(soci::into(id, found));
        statement.exchange(soci::into(account_key));
    }
};

struct key_row {
    long long account_key = 0;
    void bind(soci::statement& statement) { statement.exchange(soci::into(account_key)); }
};

bool is_internal(account_kind kind) {
    return kind == account_kind::customer || kind == account_kind::platform;
}

struct facts_row {
    account_facts facts;
    void bind(soci::statement& statement) {
        for (auto* text : {&facts.id, &facts.platform_id, &facts.environment, &facts.kind,
                           &facts.owner_id, &facts.currency}) {
            statement.exchange(soci::into(*text));
        }
        statement.exchange(soci::into(facts.account_key));
    }
};

}  // namespace

std::string new_account_reference(random_source& random) {
    return "CR" + upper(random_base32(random, 14));
}

std::string batch_account_references::next() {
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

namespace {

// Inserts the account unless one with the same owner and currency exists; its id and key when
// inserted.
std::optional<std::pair<std::string, long long>> insert_account(
    soci::session& session, book_services services, const tenant& owner, account_kind kind,
    const std::string& owner_id, const std::string& currency) {
    std::string env_name(owner.env_name());
    std::string kind_name(to_string(kind));
    std::string id = services.ids.next(is_internal(kind) ? "InternalAccount" : "ServiceAccount");
    std::string reference = new_account_reference(services.random);
    int overdraw_guard = is_internal(kind) ? 1 : 0;
    long long now_ms = services.time.now_ms();
    // The conflict target is the unique index of the account's sort (migration 42), named with
    // that index's predicate. The account's key: PostgreSQL's identity; on SQLite the next above
    // the largest, taken under the write lock the INSERT holds (migration 46).
    static const std::string insert_sql =
        "INSERT INTO ledger_accounts (id, platform_id, environment, kind, owner_id, currency, "
        "reference, must_not_overdraw, debits_posted, credits_posted, created_at_ms, "
        "updated_at_ms";
    static const std::string values_sql = ") VALUES (:i, :p, :e, :k, :o, :c, :r, :g, 0, 0, :t, :t2";
    static const std::string postgres_sql = insert_sql + values_sql + ") ON CONFLICT ";
    static const std::string sqlite_sql =
        insert_sql + ", account_key" + values_sql +
        ", (SELECT COALESCE(MAX(account_key), 0) + 1 FROM ledger_accounts)) ON CONFLICT ";
    static const std::string service_on =
        "(platform_id, environment, kind, currency) WHERE "
        "owner_id = '' DO NOTHING RETURNING account_key";
    static const std::string owned_on =
        "(owner_id, currency) WHERE owner_id <> '' DO NOTHING RETURNING account_key";
    static const std::string texts[2][2] = {{postgres_sql + service_on, postgres_sql + owned_on},
                                            {sqlite_sql + service_on, sqlite_sql + owned_on}};
    bool sqlite = backend_of(session) == database_backend::sqlite;
    const char* sql = texts[sqlite ? 1 : 0][owner_id.empty() ? 0 : 1].c_str();
    key_row key;
    if (!fetch_prepared(session, sql, key, id, owner.platform_id, env_name, kind_name, owner_id,
                        currency, reference, overdraw_guard, now_ms, now_ms)) {
        return std::nullopt;
    }
    return std::pair{std::move(id), key.account_key};
}

}  // namespace

void open_new_customer_accounts(soci::session& session, book_services services, const tenant& owner,
                                const std::string& customer_id,
                                const std::vector<std::string>& currencies) {
    for (const auto& currency : currencies) {
        // The customer's id was just generated, so none of its accounts can exist yet: no lookup
        // first (each one a round trip per currency, and on a large table the costliest statement
        // of a bulk import), and a conflict would be a broken invariant rather than a race.
        auto opened =
            insert_account(session, services, owner, account_kind::customer, customer_id, currency);
        CORRIDOR_ASSERT(opened.has_value());
        // The writer opens a customer's accounts (customer creation is one of its commands): it
        // will not need to read them when the customer pays.
        if (deferred_writes* deferred = deferred_writes_of(session)) {
            deferred->facts().saw_account({opened->first, owner.platform_id,
                                           std::string(owner.env_name()),
                                           std::string(to_string(account_kind::customer)),
                                           customer_id, currency, opened->second});
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
    // SQLite numbers the accounts from the largest key up: the customers' rows, inserted first in
    // the same transaction, hold its write lock. PostgreSQL draws them from the identity.
    bool sqlite = backend_of(session) == database_backend::sqlite;
    std::vector<multi_row_column> columns = {{"id"}, {"owner_id"}, {"currency"}, {"reference"}};
    long long next_key = 0;
    if (sqlite) {
        columns.push_back({"account_key", column_type::integer});
        key_row largest;
        fetch_prepared(session, "SELECT COALESCE(MAX(account_key), 0) FROM ledger_accounts",
                       largest);
        next_key = largest.account_key + 1;
    }
    multi_row_insert insert("ledger_accounts", std::move(columns),
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
            std::vector<std::optional<std::string>> row = {services.ids.next("InternalAccount"),
                                                           *customer.customer_id, currency,
                                                           references.next()};
            if (sqlite) row.emplace_back(std::to_string(next_key++));
            insert.add(std::move(row));
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
        "SELECT id, account_key FROM ledger_accounts WHERE platform_id = :p AND environment = :e "
        "AND kind = :k "
        "AND owner_id = :o AND currency = :c AND owner_id ";
    static const std::string find_service_sql = find_sql + "= ''";
    static const std::string find_owned_sql = find_sql + "<> ''";
    const char* sql = (owner_id.empty() ? find_service_sql : find_owned_sql).c_str();
    auto find_id = [&]() -> std::optional<id_row> {
        id_row row;
        if (fetch_prepared(session, sql, row, owner.platform_id, env_name, kind_name, owner_id,
                           currency) &&
            row.found == soci::i_ok) {
            return row;
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
    if (deferred) {
        deferred->found_account(key, existing->id);
        // Its key, for the postings the flush writes.
        deferred->facts().saw_account({existing->id, owner.platform_id, env_name, kind_name,
                                       owner_id, currency, existing->account_key});
    }
    return existing->id;
}

long long account_key_of(soci::session& session, deferred_writes& deferred, const std::string& id) {
    if (const account_facts* known = deferred.facts().account(id)) return known->account_key;
    // PostgreSQL: the flush's INSERT looks it up by id itself (no round trip here).
    if (backend_of(session) == database_backend::postgresql) return 0;
    facts_row row;
    bool found = fetch_prepared(session,
                                "SELECT id, platform_id, environment, kind, owner_id, currency, "
                                "account_key FROM ledger_accounts WHERE id = :i",
                                row, id);
    CORRIDOR_ASSERT(found);                   // both sides were just posted to
    deferred.facts().saw_account(row.facts);  // known from the batch's commit on
    return row.facts.account_key;
}

}  // namespace corridor
