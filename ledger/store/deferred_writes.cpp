#include "ledger/store/deferred_writes.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "ledger/base/assert.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/outbox_insert.hpp"
#include "ledger/store/sqlite_flush.hpp"
#include "ledger/store/statement_cache.hpp"

namespace corridor {
namespace {

constexpr long long posted_max = std::numeric_limits<long long>::max();

thread_local soci::session* active_session = nullptr;
thread_local deferred_writes* active_writes = nullptr;

// A PostgreSQL array literal of texts: every element quoted, quotes and backslashes escaped.
template <class Row, class Field>
std::string text_array(const std::vector<Row>& rows, Field field) {
    std::string out = "{";
    for (const auto& row : rows) {
        if (out.size() > 1) out += ',';
        out += '"';
        for (char c : row.*field) {
            if (c == '"' || c == '\\') out += '\\';
            out += c;
        }
        out += '"';
    }
    out += '}';
    return out;
}

template <class Row>
std::string number_array(const std::vector<Row>& rows, long long Row::*field) {
    std::string out = "{";
    for (const auto& row : rows) {
        if (out.size() > 1) out += ',';
        out += std::to_string(row.*field);
    }
    out += '}';
    return out;
}

// Summed postings of one account.
struct account_delta {
    long long credits = 0, debits = 0, now_ms = 0;
};

long long checked_sum(long long total, long long amount) {
    if (amount > posted_max - total)
        throw deferred_overflow("a service account's postings overflow");
    return total + amount;
}

constexpr const char* transfers_unnest_sql =
    "INSERT INTO ledger_transfers (id, platform_id, environment, debit_account_id, "
    "credit_account_id, amount, currency, code, transaction_id, created_at_ms) SELECT * FROM "
    "unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], "
    "$8::text[], $9::text[], $10::bigint[])";
// PostgreSQL checks the ceiling itself: a bigint sum past it is an error, not a wrapped value.
constexpr const char* account_delta_pipelined_sql =
    "UPDATE ledger_accounts SET credits_posted = credits_posted + $1, debits_posted = "
    "debits_posted + $2, updated_at_ms = $3 WHERE id = $4";
// The ceiling of each side is checked against the summed delta, as post_transfer checks it
// against one amount.
constexpr const char* account_delta_sql =
    "UPDATE ledger_accounts SET credits_posted = credits_posted + :c, debits_posted = "
    "debits_posted + :d, updated_at_ms = :t WHERE id = :i AND credits_posted <= :mc AND "
    "debits_posted <= :md";

}  // namespace

void deferred_writes::add_posting(const std::string& account_id, bool debit, long long amount,
                                  long long now_ms) {
    CORRIDOR_ASSERT(amount > 0);
    postings_.push_back({account_id, debit, amount, now_ms});
}

void deferred_writes::add_transfer(deferred_transfer transfer) {
    transfers_.push_back(std::move(transfer));
}

void deferred_writes::add_event(deferred_event event) {
    events_.push_back(std::move(event));
}

void deferred_writes::add_event(deferred_event event, std::string json) {
    event.packing = packer_.submit(std::move(json));
    events_.push_back(std::move(event));
}

void deferred_writes::take_packed_payloads() {
    // From the last: the writer packs the ones the packer has not reached while the packer works
    // from the first, instead of each waiting for the other in turn.
    for (auto event = events_.rbegin(); event != events_.rend(); ++event) {
        if (!event->packing) continue;
        event->payload = packer_.take(event->packing);
        event->packing.reset();
    }
}

void deferred_writes::add_statement(pipelined_statement statement) {
    statements_.push_back(std::move(statement));
}

void deferred_writes::on_control(std::string_view sql) {
    auto named = [&](std::string_view prefix) -> std::optional<std::string_view> {
        if (!sql.starts_with(prefix)) return std::nullopt;
        return sql.substr(prefix.size());
    };
    auto find = [&](std::string_view name) {
        for (std::size_t i = savepoints_.size(); i-- > 0;) {
            if (savepoints_[i].name == name) return i;
        }
        return savepoints_.size();
    };
    if (auto name = named("SAVEPOINT ")) {
        savepoints_.push_back({std::string(*name), postings_.size(), transfers_.size(),
                               events_.size(), found_accounts_.size(), balances_.size(),
                               statements_.size(), facts_.savepoint()});
    } else if (auto name = named("RELEASE SAVEPOINT ")) {
        // What was written since stays, as part of the enclosing savepoint or transaction.
        std::size_t at = find(*name);
        CORRIDOR_ASSERT(at < savepoints_.size());
        savepoints_.resize(at);
    } else if (auto name = named("ROLLBACK TO SAVEPOINT ")) {
        // The savepoint stays open; what was written since is undone.
        std::size_t at = find(*name);
        CORRIDOR_ASSERT(at < savepoints_.size());
        const mark& kept = savepoints_[at];
        postings_.resize(kept.postings);
        transfers_.resize(kept.transfers);
        events_.resize(kept.events);
        found_accounts_.resize(kept.found_accounts);  // an account opened since is gone again
        balances_.resize(kept.balances);
        statements_.resize(kept.statements);
        facts_.rollback_to(kept.facts);
        savepoints_.resize(at + 1);
    } else if (sql == "ROLLBACK") {
        clear();
    }
}

const std::string* deferred_writes::known_account(const std::string& key) const {
    auto found = known_accounts_.find(key);
    return found == known_accounts_.end() ? nullptr : &found->second;
}

void deferred_writes::found_account(const std::string& key, const std::string& id) {
    found_accounts_.emplace_back(key, id);
}

void deferred_writes::saw_balance(const std::string& id, std::optional<long long> balance) {
    balances_.emplace_back(id, balance);
}

std::optional<long long> deferred_writes::balance_of(const std::string& id) const {
    for (auto entry = balances_.rbegin(); entry != balances_.rend(); ++entry) {
        if (entry->first == id) return entry->second;
    }
    return std::nullopt;
}

long long deferred_writes::pending_delta(const std::string& id) const {
    long long delta = 0;
    for (const auto& p : postings_) {
        if (p.account_id == id) delta += p.debit ? -p.amount : p.amount;
    }
    return delta;
}

void deferred_writes::committed() {
    for (auto& [key, id] : found_accounts_) known_accounts_.emplace(std::move(key), std::move(id));
    found_accounts_.clear();
    facts_.committed();
}

void deferred_writes::clear() {
    facts_.end_batch();  // after committed(), nothing is left to forget
    found_accounts_.clear();
    balances_.clear();
    statements_.clear();
    postings_.clear();
    transfers_.clear();
    events_.clear();
    savepoints_.clear();
}

namespace {

// The postings summed per account, in id order.
template <class Postings>
std::map<std::string, account_delta> summed_postings(const Postings& postings) {
    std::map<std::string, account_delta> deltas;
    for (const auto& p : postings) {
        auto& delta = deltas[p.account_id];
        (p.debit ? delta.debits : delta.credits) =
            checked_sum(p.debit ? delta.debits : delta.credits, p.amount);
        delta.now_ms = std::max(delta.now_ms, p.now_ms);
    }
    return deltas;
}

}  // namespace

void deferred_writes::flush(soci::session& session) {
    CORRIDOR_ASSERT(backend_of(session) == database_backend::sqlite);
    CORRIDOR_ASSERT(statements_.empty());  // add_statement is PostgreSQL's
    take_packed_payloads();
    // One UPDATE per account, in id order; then the rows of each table in a few multi-row
    // statements (sqlite_flush.hpp): one statement per row cost the writer more than its row.
    for (const auto& [id, delta] : summed_postings(postings_)) {
        long long credit_ceiling = posted_max - delta.credits,
                  debit_ceiling = posted_max - delta.debits;
        if (run_prepared(session, account_delta_sql, delta.credits, delta.debits, delta.now_ms, id,
                         credit_ceiling, debit_ceiling) != 1) {
            throw deferred_overflow("service account " + id + " would pass its posted ceiling");
        }
    }
    insert_transfers_sqlite(session, transfers_);
    insert_events_sqlite(session, events_);
    postings_.clear();
    transfers_.clear();
    events_.clear();
}

void deferred_writes::append_flush(std::vector<pipelined_statement>& pipeline) {
    take_packed_payloads();
    // One UPDATE per account, in id order; one statement per table, its rows as array parameters.
    for (const auto& [id, delta] : summed_postings(postings_)) {
        pipeline.push_back({account_delta_pipelined_sql,
                            {std::to_string(delta.credits), std::to_string(delta.debits),
                             std::to_string(delta.now_ms), id}});
    }
    if (!transfers_.empty()) {
        using t = deferred_transfer;
        pipeline.push_back(
            {transfers_unnest_sql,
             {text_array(transfers_, &t::id), text_array(transfers_, &t::platform_id),
              text_array(transfers_, &t::environment), text_array(transfers_, &t::debit_account_id),
              text_array(transfers_, &t::credit_account_id), number_array(transfers_, &t::amount),
              text_array(transfers_, &t::currency), text_array(transfers_, &t::code),
              text_array(transfers_, &t::transaction_id),
              number_array(transfers_, &t::created_at_ms)}});
    }
    if (!events_.empty()) {
        using e = deferred_event;
        pipeline.push_back(
            {outbox_events_unnest_sql,
             {text_array(events_, &e::id), text_array(events_, &e::platform_id),
              text_array(events_, &e::environment), text_array(events_, &e::type),
              text_array(events_, &e::payload), number_array(events_, &e::created_at_ms),
              text_array(events_, &e::purpose)}});
    }
    for (auto& statement : statements_) pipeline.push_back(std::move(statement));
    facts_.append_config_checks(pipeline);
    statements_.clear();
    postings_.clear();
    transfers_.clear();
    events_.clear();
}

deferred_writes* deferred_writes_of(soci::session& session) {
    return active_session == &session ? active_writes : nullptr;
}

deferring_scope::deferring_scope(soci::session& session, deferred_writes& writes)
    : writes_(writes) {
    CORRIDOR_ASSERT(active_session == nullptr);
    writes_.clear();
    active_session = &session;
    active_writes = &writes;
}

deferring_scope::~deferring_scope() {
    writes_.clear();
    active_session = nullptr;
    active_writes = nullptr;
}

}  // namespace corridor
