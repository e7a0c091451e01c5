#pragma once
// What the spark rail has promised, kept across restarts: one line per event in
// <state_dir>/payouts.log (an append-only plugin_files::line_log, each append synced before it
// returns). The host re-initiates after a restart every operation it handed over without a final
// report, and a Lightning invoice or a Spark transfer must not be paid twice, so a payout is logged
// ("started": what identifies it) before any money moves or initiate answers OK, and its final
// outcome ("finished") before that outcome is reported.
//
// Damage: a last line without its newline is an append that never returned (nothing was paid on
// its account, nothing reported), so line_log cuts it and the rail carries on. Any complete line
// that does not read as an event, or events that contradict each other, stop the rail at create
// with the file and line: a complete line was acknowledged, and skipping it could forget a payout
// that a retry would then pay again. An operator mends or restores the file.
//
// A line: {"type":"started","id","accountType","destination" (address or invoice),"amountMinor",
// "amountMsat","reference" (transfer id or payment hash),"route" ("simulated" or "network"),
// "pattern" (sandbox pattern digit or ""),"startedAtMs"}
// or {"type":"finished","id","outcome" ("SETTLED" or "FAILED"),"failure","code","reason",
// "message"}.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "plugins/common/durable_files.hpp"
#include "rails/rail_abi.h"

namespace corridor::spark {

// What an operation came to (or has come to so far), as reported to the host.
struct payout_outcome {
    corridor_rail_outcome state = CORRIDOR_RAIL_OUTCOME_PENDING;
    corridor_rail_failure failure = CORRIDOR_RAIL_FAILURE_NONE;
    std::string code, reason, message;
};

enum class payout_route {
    simulated,  // no node to cross: settles on a tick, or a sandbox pattern's outcome
    network,    // paid through the sandbox Lightning network folder
};

struct payout_record {
    std::string operation_id;
    std::string account_type;  // SPARK_WALLET or LIGHTNING
    std::string destination;   // the Spark address or the BOLT #11 invoice
    std::int64_t amount_minor = 0;
    std::uint64_t amount_msat = 0;
    std::string reference;  // the transfer id or the payment hash
    payout_route route = payout_route::simulated;
    char pattern = 0;  // the sandbox failure pattern ('2'..'5'), 0 for none
    std::int64_t started_at_ms = 0;
    std::optional<payout_outcome> outcome;  // set once final
};

class payout_journal {
public:
    // Takes the folder's lock and reads the log. Without the lock (another process writes the
    // folder) the journal is not writable and holds nothing. Throws std::runtime_error naming the
    // file and line when the log is damaged (see above) or cannot be opened.
    explicit payout_journal(const std::filesystem::path& state_dir);

    bool writable() const { return log_ != nullptr; }
    const std::filesystem::path& path() const { return path_; }
    // Bytes of a torn last line cut off at open (0 when none).
    long long cut_at_open() const { return cut_at_open_; }

    const payout_record* find(const std::string& operation_id) const;
    const std::map<std::string, payout_record>& records() const { return records_; }

    // Durable when they return; throw std::runtime_error and change nothing when they cannot
    // write. start() takes a record with no outcome and an id not seen before; finish() a final
    // outcome for a started record without one.
    void start(const payout_record& record);
    void finish(const std::string& operation_id, const payout_outcome& outcome);

private:
    void apply(const std::string& line, std::size_t number);

    std::filesystem::path path_;
    std::unique_ptr<plugin_files::folder_lock> lock_;
    std::unique_ptr<plugin_files::line_log> log_;  // null: another process writes the folder
    long long cut_at_open_ = 0;
    std::map<std::string, payout_record> records_;
};

}  // namespace corridor::spark
