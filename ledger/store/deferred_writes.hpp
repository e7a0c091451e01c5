#pragma once
// Writes of a ledger batch that nothing reads back before the batch commits: the rows of ledger
// transfers and outbox events, and the postings of service accounts (liquidity, fees, settlement),
// which have no overdraft guard. While the ledger writer runs a batch, these are kept here instead
// of being sent one statement at a time; the buffer follows the transaction's savepoints (kept when
// one is released, cut back when one is rolled back) and is flushed once before COMMIT: one UPDATE
// per service account with the batch's summed postings (in account order, so that processes sharing
// a PostgreSQL lock hot accounts in one order, and only from the flush to the commit), and the rows
// of each table in one statement on PostgreSQL. Postings of customer and platform accounts are
// never deferred: their guard is the conditional UPDATE, and their balances are read back.
#include <soci/soci.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ledger/store/batch_send.hpp"
#include "ledger/store/event_packer.hpp"
#include "ledger/store/writer_facts.hpp"

namespace corridor {

// A transfer's tenant is its accounts' (ledger_transfers has no tenant columns).
struct deferred_transfer {
    std::string id, debit_account_id, credit_account_id;
    long long amount = 0;
    std::string currency, code, transaction_id;
    long long created_at_ms = 0;
    long long debit_account_key = 0, credit_account_key = 0;  // what the row stores
};

// The row is written with `tenant_key` (platform_configs.tenant_key); platform_id and environment
// serve the handover's choice (outbox_handover.hpp).
struct deferred_event {
    std::string id, platform_id, environment, type, payload, purpose;
    long long created_at_ms = 0;
    long long tenant_key = 0;
    // Set while the payload is being packed off the writer's thread (event_packer.hpp); the
    // flush takes it into `payload`.
    std::shared_ptr<event_packer::job> packing;
    // An event built at the flush (optimistic attempt): its JSON from the balance that guarded
    // statement `late_slot` returned; `payload` is empty until then.
    std::function<std::string(long long balance)> late_payload;
    std::size_t late_slot = 0;
};

// A condition the optimistic attempt checks in the database, queued just before the next guarded
// debit as a guarded statement of its own, instead of a read that waits for its answer: `sql` is a
// boolean SQL expression whose parameters are written $c, in the order of `params`. `subject`
// names the row it reads (empty: none named) and `level` orders the conditions on one subject,
// each implying every one of a lower level: a check of a subject already queued with at least the
// same level, ahead of the debit, answers for it (control_queue.hpp queue_condition_checks).
struct row_condition {
    std::string sql;
    std::vector<std::string> params;
    std::string subject;
    int level = 0;
};

// `sql` of a row_condition with its $c numbered from $first on.
std::string numbered_condition(std::string_view sql, std::size_t first);
// A statement that returns a row when `condition` holds, its parameters from $1.
std::string condition_check_sql(const row_condition& condition);

// Thrown by the ledger writer when an optimistic attempt was refused (a guarded statement returned
// no row, or its pipeline failed): the batch is rolled back and run again without it.
struct optimistic_refusal : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Thrown by flush when a service account's summed postings would pass the posted ceiling: the batch
// is then rolled back and applied again without deferring, so that the one posting that does not
// fit is refused alone.
struct deferred_overflow : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class deferred_writes {
public:
    void add_posting(const std::string& account_id, bool debit, long long amount, long long now_ms);
    void add_transfer(deferred_transfer transfer);
    void add_event(deferred_event event);
    // An event whose stored payload is the JSON object `json` packed (event_payloads.hpp): packed
    // on the packer's thread meanwhile, taken at the flush.
    void add_event(deferred_event event, std::string json);
    // The same with the JSON made by `build` (a pure function of what it captured), on the
    // packer's thread too when it gets there first.
    void add_event(deferred_event event, std::function<std::string()> build);
    // A statement whose answer nothing needs, sent with the flush (on SQLite after the kept rows,
    // each prepared once per session). Only for rows no other command can read before the commit
    // (made by the same command).
    void add_statement(pipelined_statement statement);
    // The INSERT of a row this command creates (`row_id`): a later restate_row of the same row
    // in the same savepoint replaces it with the row's final version, so that the database writes
    // one row version instead of an insert and its update. False when it cannot (not kept here,
    // or kept before the innermost savepoint, whose rollback must keep it): update it instead.
    void add_row_statement(std::string row_id, pipelined_statement insert);
    bool restate_row(const std::string& row_id, pipelined_statement insert);
    // A transaction-control statement the session just ran (SAVEPOINT, RELEASE SAVEPOINT,
    // ROLLBACK TO SAVEPOINT, ROLLBACK).
    void on_control(std::string_view sql);
    bool empty() const {
        return postings_.empty() && transfers_.empty() && events_.empty() && statements_.empty();
    }
    // Ids of service accounts: a service account is never deleted and its id never changes, so
    // once the batch that found (or opened) it has committed, the writer needs no lookup for it
    // again. `key` names the owner, kind and currency.
    const std::string* known_account(const std::string& key) const;
    void found_account(const std::string& key, const std::string& id);
    void committed();  // the accounts found in this batch are known from now on
    // Facts the writer remembers across batches (writer_facts.hpp); they follow the savepoints
    // and the batch's fate as the writes do.
    writer_facts& facts() { return facts_; }
    // Balances of accounts posted at once in this batch, as their UPDATE ... RETURNING gave them
    // (nullopt: changed since in a way not seen). The batch holds those rows until it commits, so
    // a later read in the same batch needs no round trip.
    void saw_balance(const std::string& id, std::optional<long long> balance);
    std::optional<long long> balance_of(const std::string& id) const;

    // The optimistic attempt (PostgreSQL, a batch's first attempt; ledger_writer.cpp run_batch):
    // guarded updates of customer and platform accounts are queued (control_queue.hpp) instead of
    // waited for, and their answers read together before the flush. Any refusal sends the batch
    // round again without this attempt, each command waiting for its answers as before, so that
    // the refused command gets exactly the answer it got before.
    void set_optimistic(bool on) { optimistic_ = on; }
    bool optimistic() const { return optimistic_; }
    // A guarded statement on `account_id` (empty: a bare check) was queued; its slot. Its answer is
    // the balance the statement returned.
    std::size_t add_guarded(const std::string& account_id);
    void answer_guarded(std::size_t slot, const std::optional<std::string>& answer);
    bool refused() const { return refused_; }
    void refuse() { refused_ = true; }
    // The slot of the guarded statement that last changed `id` when its answer is still to come.
    std::optional<std::size_t> unanswered_balance(const std::string& id) const;
    // Conditions for the next guarded debit (row_condition); checked just before it, or, when the
    // queue goes out before such a debit, at the end of the queue (control_queue.hpp).
    void add_condition(row_condition condition);
    std::vector<row_condition> take_conditions();
    bool conditions_pending() const { return conditions_taken_ < conditions_.size(); }
    // Conditions ever added, and ever dropped by a rollback to a savepoint (never reset): a
    // command that added one and then failed, or rolled back its request, must learn whether the
    // condition held, for its answer (ledger_writer.cpp).
    std::uint64_t conditions_added() const { return conditions_added_; }
    std::uint64_t conditions_dropped() const { return conditions_dropped_; }
    // An event whose payload is built at the flush from a guarded statement's answer.
    void add_late_event(deferred_event event);
    // The postings of `id` kept for the flush (credits - debits): what a read of a deferred
    // account's balance must add to the stored one.
    long long pending_delta(const std::string& id) const;
    // SQLite: sends what is kept, then forgets it.
    void flush(soci::session& session);
    // PostgreSQL: appends the statements that send what is kept to a pipeline (run_pipeline), then
    // forgets it. A summed posting past the ceiling fails there with "bigint out of range" (22003),
    // which aborts the rest of the pipeline and its COMMIT.
    void append_flush(std::vector<pipelined_statement>& pipeline);
    void clear();

private:
    // Fills the payload of every event still being packed.
    void take_packed_payloads();

    struct posting {
        std::string account_id;
        bool debit = false;
        long long amount = 0;
        long long now_ms = 0;
    };
    struct mark {
        std::string name;
        std::size_t postings = 0, transfers = 0, events = 0, found_accounts = 0, balances = 0,
                    statements = 0, guarded = 0, conditions = 0, conditions_taken = 0;
        writer_facts::mark facts;
    };
    struct guarded_answer {
        std::string account_id;
        bool answered = false;
        std::optional<long long> balance;
    };
    // A balance seen in this batch: known, or to come from a guarded statement's slot.
    struct seen_balance {
        std::string id;
        std::optional<long long> balance;
        std::size_t slot = static_cast<std::size_t>(-1);
    };
    std::vector<posting> postings_;
    std::vector<deferred_transfer> transfers_;
    std::vector<deferred_event> events_;
    event_packer packer_;
    std::vector<pipelined_statement> statements_;
    std::vector<std::string> statement_rows_;  // per statement: the row it inserts, or empty
    std::vector<mark> savepoints_;
    std::unordered_map<std::string, std::string> known_accounts_;
    std::vector<std::pair<std::string, std::string>> found_accounts_;  // this batch's
    std::vector<seen_balance> balances_;                               // latest last
    bool optimistic_ = false, refused_ = false;
    std::vector<guarded_answer> guarded_;
    std::vector<row_condition> conditions_;
    std::size_t conditions_taken_ = 0;
    std::uint64_t conditions_added_ = 0, conditions_dropped_ = 0;
    writer_facts facts_;
};

// The buffer that deferrable writes on `session` go to, or null when they are sent at once (every
// session but the ledger writer's, and the writer's outside a batch).
deferred_writes* deferred_writes_of(soci::session& session);

// Routes the session's deferrable writes to `writes` on this thread while it lives.
class deferring_scope {
public:
    deferring_scope(soci::session& session, deferred_writes& writes);
    ~deferring_scope();
    deferring_scope(const deferring_scope&) = delete;
    deferring_scope& operator=(const deferring_scope&) = delete;

private:
    deferred_writes& writes_;
};

}  // namespace corridor
