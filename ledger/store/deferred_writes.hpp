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

struct deferred_transfer {
    std::string id, platform_id, environment, debit_account_id, credit_account_id;
    long long amount = 0;
    std::string currency, code, transaction_id;
    long long created_at_ms = 0;
};

struct deferred_event {
    std::string id, platform_id, environment, type, payload, purpose;
    long long created_at_ms = 0;
    // Set while the payload is being packed off the writer's thread (event_packer.hpp); the
    // flush takes it into `payload`.
    std::shared_ptr<event_packer::job> packing;
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
    // PostgreSQL: a statement whose answer nothing needs, sent with the flush. Only for rows no
    // other command can read before the commit (made by the same command).
    void add_statement(pipelined_statement statement);
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
                    statements = 0;
        writer_facts::mark facts;
    };
    std::vector<posting> postings_;
    std::vector<deferred_transfer> transfers_;
    std::vector<deferred_event> events_;
    event_packer packer_;
    std::vector<pipelined_statement> statements_;
    std::vector<mark> savepoints_;
    std::unordered_map<std::string, std::string> known_accounts_;
    std::vector<std::pair<std::string, std::string>> found_accounts_;         // this batch's
    std::vector<std::pair<std::string, std::optional<long long>>> balances_;  // latest last
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
