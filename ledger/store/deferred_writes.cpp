#include "ledger/store/deferred_writes.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <limits>
#include <map>
#include <optional>

#include "ledger/base/assert.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/event_payloads.hpp"
#include "ledger/store/multi_row.hpp"
#include "ledger/store/outbox_handover.hpp"
#include "ledger/store/outbox_insert.hpp"
#include "ledger/store/pg_arrays.hpp"
#include "ledger/store/sqlite_flush.hpp"
#include "ledger/store/sqlite_rows.hpp"
#include "ledger/store/statement_cache.hpp"
#include "ledger/store/transfer_rows.hpp"

namespace corridor {
namespace {

constexpr long long posted_max = std::numeric_limits<long long>::max();

thread_local soci::session* active_session = nullptr;
thread_local deferred_writes* active_writes = nullptr;

// The stored payloads of `events` (bytes) as a PostgreSQL array literal of their base64, which
// the statement decodes: an array literal of texts cannot carry every byte.
std::string payload_array(const std::vector<deferred_event>& events) {
    return array_of(events, [](std::string& out, const deferred_event& event) {
        out += '"' + event_payload_base64(event.payload) + '"';  // base64 has no quote to escape
    });
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

void deferred_writes::add_event(deferred_event event, std::function<std::string()> build) {
    event.packing = packer_.submit(std::move(build));
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
    statement_rows_.emplace_back();
}

void deferred_writes::add_row_statement(std::string row_id, pipelined_statement insert) {
    statements_.push_back(std::move(insert));
    statement_rows_.push_back(std::move(row_id));
}

bool deferred_writes::restate_row(const std::string& row_id, pipelined_statement insert) {
    std::size_t since = savepoints_.empty() ? 0 : savepoints_.back().statements;
    for (std::size_t i = statement_rows_.size(); i-- > since;) {
        if (statement_rows_[i] != row_id) continue;
        statements_[i] = std::move(insert);
        return true;
    }
    return false;
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
                               statements_.size(), guarded_.size(), conditions_.size(),
                               conditions_taken_, facts_.savepoint()});
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
        statement_rows_.resize(kept.statements);
        guarded_.resize(kept.guarded);  // undone on the server, or never sent (control_queue.hpp)
        if (conditions_.size() > kept.conditions)
            conditions_dropped_ += conditions_.size() - kept.conditions;
        conditions_.resize(kept.conditions);
        conditions_taken_ = kept.conditions_taken;
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
    balances_.push_back({id, balance});
}

std::optional<long long> deferred_writes::balance_of(const std::string& id) const {
    for (auto entry = balances_.rbegin(); entry != balances_.rend(); ++entry) {
        if (entry->id != id) continue;
        if (entry->slot == static_cast<std::size_t>(-1)) return entry->balance;
        return guarded_[entry->slot].balance;  // nullopt while unanswered
    }
    return std::nullopt;
}

std::size_t deferred_writes::add_guarded(const std::string& account_id) {
    std::size_t slot = guarded_.size();
    guarded_.push_back({account_id, false, std::nullopt});
    if (!account_id.empty()) balances_.push_back({account_id, std::nullopt, slot});
    return slot;
}

void deferred_writes::answer_guarded(std::size_t slot, const std::optional<std::string>& answer) {
    CORRIDOR_ASSERT(slot < guarded_.size() && !guarded_[slot].answered);
    guarded_answer& entry = guarded_[slot];
    entry.answered = true;
    if (!answer) {
        refused_ = true;  // no row: the guard, or a condition, refused
        return;
    }
    if (!entry.account_id.empty()) entry.balance = std::stoll(*answer);
}

std::optional<std::size_t> deferred_writes::unanswered_balance(const std::string& id) const {
    for (auto entry = balances_.rbegin(); entry != balances_.rend(); ++entry) {
        if (entry->id != id) continue;
        if (entry->slot == static_cast<std::size_t>(-1) || guarded_[entry->slot].answered)
            return std::nullopt;
        return entry->slot;
    }
    return std::nullopt;
}

std::string numbered_condition(std::string_view sql, std::size_t first) {
    std::string out;
    for (std::size_t i = 0; i < sql.size(); ++i) {
        if (sql.substr(i, 2) == "$c") {
            out += '$' + std::to_string(first++);
            ++i;
        } else {
            out += sql[i];
        }
    }
    return out;
}

std::string condition_check_sql(const row_condition& condition) {
    return "SELECT 1 WHERE " + numbered_condition(condition.sql, 1);
}

void deferred_writes::add_condition(row_condition condition) {
    ++conditions_added_;
    conditions_.push_back(std::move(condition));
}

std::vector<row_condition> deferred_writes::take_conditions() {
    // Taken ones stay, so that a rollback to before their taking makes them pending again.
    std::vector<row_condition> taken(
        conditions_.begin() + static_cast<std::ptrdiff_t>(conditions_taken_), conditions_.end());
    conditions_taken_ = conditions_.size();
    return taken;
}

void deferred_writes::add_late_event(deferred_event event) {
    CORRIDOR_ASSERT(event.late_payload && event.late_slot < guarded_.size());
    events_.push_back(std::move(event));
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
    optimistic_ = refused_ = false;
    guarded_.clear();
    conditions_.clear();
    conditions_taken_ = 0;
    found_accounts_.clear();
    balances_.clear();
    statements_.clear();
    statement_rows_.clear();
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

// Rows of one table that a batch's statements insert one by one ("INSERT INTO t (...) VALUES
// ($1, ...)", the same text each time) go out as multi-row INSERTs at the place of the first:
// a few statements for the server to execute instead of one per row. Moving an INSERT earlier
// keeps it before anything that followed it; inserts of another text keep their own first place.
// Each multi-row INSERT has a power of two of rows, at most flush_rows_per_insert_max, so that a
// table's inserts have a few texts whatever the batch's size, each prepared once per connection
// (batch_send.hpp) rather than one text per batch size, which PostgreSQL parsed, analysed and
// planned for every batch (a text of hundreds of parameters).
constexpr std::size_t flush_rows_per_insert_max = 32;

// Parsed in place: the writer asks this of every kept row at each flush, and a substring per
// parameter made it about 3% of the writer's time. It jumps from one '$' to the next (memchr)
// rather than testing each character of the text, which was still about 1%.
std::size_t highest_parameter(std::string_view sql) {
    std::size_t highest = 0;
    for (std::size_t i = sql.find('$'); i != std::string_view::npos; i = sql.find('$', i)) {
        std::size_t number = 0;
        for (++i; i < sql.size() && std::isdigit(static_cast<unsigned char>(sql[i])); ++i)
            number = number * 10 + static_cast<std::size_t>(sql[i] - '0');
        highest = std::max(highest, number);
    }
    return highest;
}

// The VALUES list's position in an "INSERT ... VALUES (...)" with parameters only there, or npos.
std::size_t values_position(const pipelined_statement& statement) {
    const std::string& sql = statement.sql;
    if (!sql.starts_with("INSERT INTO ") || statement.params.empty() || !sql.ends_with(")"))
        return std::string::npos;
    std::size_t at = sql.find(" VALUES (");
    if (at == std::string::npos || sql.find('$') < at) return std::string::npos;
    if (highest_parameter(sql) != statement.params.size()) return std::string::npos;
    return at;
}

// The text of `sql` (its VALUES list at `at`, `params` parameters a row) with `rows` rows: built
// once per thread, text and row count (the texts are the code's few INSERTs).
const std::string& rows_text(const std::string& sql, std::size_t at, std::size_t params,
                             std::size_t rows) {
    thread_local std::map<std::pair<std::string, std::size_t>, std::string> texts;
    auto [found, inserted] = texts.try_emplace({sql, rows});
    if (inserted) found->second = insert_rows_text(sql, at, params, rows);
    return found->second;
}

// The largest power of two of rows at most `rows` and flush_rows_per_insert_max.
std::size_t rows_in_next_insert(std::size_t rows) {
    std::size_t out = 1;
    while (out * 2 <= std::min(rows, flush_rows_per_insert_max)) out *= 2;
    return out;
}

void append_statements(std::vector<pipelined_statement>& pipeline,
                       std::vector<pipelined_statement> statements) {
    // In order of first appearance: a statement of its own, or the rows of one INSERT text.
    struct slot {
        std::vector<pipelined_statement*> rows;
        std::size_t at = std::string::npos;  // the VALUES list; npos: not merged
    };
    std::vector<slot> slots;
    std::map<std::string_view, std::size_t> open;  // text -> its slot
    for (auto& statement : statements) {
        std::size_t at = values_position(statement);
        if (at == std::string::npos) {
            slots.push_back({{&statement}});
            continue;
        }
        auto [found, inserted] = open.try_emplace(statement.sql, slots.size());
        if (inserted) slots.push_back({{}, at});
        slots[found->second].rows.push_back(&statement);
    }
    for (auto& group : slots) {
        if (group.at == std::string::npos) {
            pipeline.push_back(std::move(*group.rows.front()));
            continue;
        }
        const std::string& sql = group.rows.front()->sql;
        std::size_t params = group.rows.front()->params.size();
        for (std::size_t next = 0; next < group.rows.size();) {
            std::size_t rows = rows_in_next_insert(group.rows.size() - next);
            pipelined_statement insert{rows_text(sql, group.at, params, rows), {}};
            insert.params.reserve(rows * params);
            for (std::size_t row = next; row < next + rows; ++row) {
                auto& values = group.rows[row]->params;
                insert.params.insert(insert.params.end(), std::make_move_iterator(values.begin()),
                                     std::make_move_iterator(values.end()));
            }
            pipeline.push_back(std::move(insert));
            next += rows;
        }
    }
}

// SQLite: the kept statements. The rows of each INSERT text go out first, several per statement;
// then the others (updates of rows this batch inserted) in their order. An INSERT moved ahead of
// an update cannot change what the update does: an update kept here only changes a row that
// its command inserted before it.
void run_kept_sqlite(soci::session& session, const std::vector<pipelined_statement>& statements) {
    std::vector<std::pair<const std::string*, std::vector<const std::vector<std::string>*>>>
        inserts;
    std::vector<const pipelined_statement*> others;
    for (const auto& statement : statements) {
        if (values_position(statement) == std::string::npos) {
            others.push_back(&statement);
            continue;
        }
        auto same = std::find_if(inserts.begin(), inserts.end(),
                                 [&](const auto& group) { return *group.first == statement.sql; });
        if (same == inserts.end()) same = inserts.insert(inserts.end(), {&statement.sql, {}});
        same->second.push_back(&statement.params);
    }
    for (const auto& [sql, rows] : inserts) run_sqlite_text_inserts(session, *sql, rows);
    for (const auto* statement : others)
        run_sqlite_text_statement(session, statement->sql, statement->params);
}

}  // namespace

void deferred_writes::flush(soci::session& session) {
    CORRIDOR_ASSERT(backend_of(session) == database_backend::sqlite);
    // One UPDATE per account, in id order; then the rows of each table in a few multi-row
    // statements (sqlite_flush.hpp): one statement per row cost the writer more than its row;
    // then the kept statements in their order (rows of create-and-execute, written once). The
    // events go last: their payloads are taken only then, which leaves the event packer the rest
    // of the flush to pack them on its own thread (the writer packs those it has not reached).
    packer_.start_queued();  // the last few of the batch, fewer than wake it on their own
    for (const auto& [id, delta] : summed_postings(postings_)) {
        long long credit_ceiling = posted_max - delta.credits,
                  debit_ceiling = posted_max - delta.debits;
        if (run_prepared(session, account_delta_sql, delta.credits, delta.debits, delta.now_ms, id,
                         credit_ceiling, debit_ceiling) != 1) {
            throw deferred_overflow("service account " + id + " would pass its posted ceiling");
        }
    }
    insert_transfers_sqlite(session, transfers_);
    run_kept_sqlite(session, statements_);
    take_packed_payloads();
    std::vector<outbox_lease> leases;
    leases.reserve(events_.size());
    for (const auto& r : events_)
        leases.push_back(lease_for_handover(r.id, r.platform_id, r.environment, r.created_at_ms));
    insert_events_sqlite(session, events_, leases);
    statements_.clear();
    statement_rows_.clear();
    postings_.clear();
    transfers_.clear();
    events_.clear();
}

void deferred_writes::append_flush(std::vector<pipelined_statement>& pipeline) {
    take_packed_payloads();
    // One statement per table, its rows as array parameters; then one UPDATE per service account.
    if (!transfers_.empty()) pipeline.push_back(transfers_unnest_statement(transfers_));
    for (auto& event : events_) {
        if (!event.late_payload) continue;
        // Built now that its guarded statement has answered (the flush follows the answers).
        const guarded_answer& answer = guarded_[event.late_slot];
        CORRIDOR_ASSERT(answer.answered && answer.balance.has_value());
        event.payload = pack_event_payload(event.late_payload(*answer.balance));
        event.late_payload = nullptr;
    }
    if (!events_.empty()) {
        using e = deferred_event;
        std::vector<outbox_lease> leases;
        for (const auto& r : events_)
            leases.push_back(
                lease_for_handover(r.id, r.platform_id, r.environment, r.created_at_ms));
        pipeline.push_back(
            {outbox_events_unnest_sql,
             {text_array(events_, &e::id), number_array(events_, &e::tenant_key),
              text_array(events_, &e::type), payload_array(events_),
              number_array(events_, &e::created_at_ms), text_array(events_, &e::purpose),
              text_array(leases, &outbox_lease::token),
              number_array(leases, &outbox_lease::until_ms)}});
    }
    append_statements(pipeline, std::move(statements_));
    facts_.append_config_checks(pipeline);
    // The service accounts last, in id order: their rows are the ones every writer of every
    // process updates, and each stays locked from its UPDATE to the COMMIT that follows; sent after
    // the batch's inserts, another process's writer waits only for the commit, not for them too.
    for (const auto& [id, delta] : summed_postings(postings_)) {
        // The hottest rows of all: prepared, with an index plan (batch_send.hpp).
        pipeline.push_back({account_delta_pipelined_sql,
                            {std::to_string(delta.credits), std::to_string(delta.debits),
                             std::to_string(delta.now_ms), id},
                            false,
                            true});
    }
    statements_.clear();
    statement_rows_.clear();
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
