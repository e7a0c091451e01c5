#pragma once
// Opening accounts (book.hpp declares the entry points): their references, short upper-case
// texts a person can type into a bank transfer's memo, and their keys (migration 46).
#include <cstddef>
#include <set>
#include <string>

#include "ledger/base/random.hpp"
#include "ledger/store/multi_row.hpp"

namespace soci {
class session;
}

namespace corridor {

// "CR" and 14 random characters (70 bits).
std::string new_account_reference(random_source& random);

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

    std::string next();

private:
    static constexpr std::size_t accounts_per_group = multi_row_chunk_rows_max;
    random_source& random_;
    std::string prefix_;
    std::set<std::string> tails_;
};

class deferred_writes;

// The key of an account the writer's batch posts to: known to the writer from the statement that
// found or opened it (writer_facts.hpp). Otherwise (an id the batch was handed, or facts dropped
// since) SQLite reads the account's facts, kept from then on like any others, and PostgreSQL gives
// 0: the flush's INSERT finds the key by the id (deferred_writes.cpp), with no round trip of its
// own.
long long account_key_of(soci::session& session, deferred_writes& deferred, const std::string& id);

}  // namespace corridor
