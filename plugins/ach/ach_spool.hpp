#pragma once
// The ACH rail's durable state, in its own state folder, so that no accepted entry is lost and none
// is sent in two files, whatever the moment a crash (or a SIGKILL, or a power loss) hits:
//   lock            held by the one instance that writes the folder (another opens read-only)
//   spool.log       entries accepted and not yet in an origination file, one JSON line each,
//                   appended and fsync'd before add() returns (so before initiate answers OK)
//   files/NAME.json one manifest per origination file: its name in the outbox, its window's
//                   settlement time, and which operation ids (with their trace numbers) it holds
//   outcomes.log    final outcomes reported for operations (a return, an entry the file writer
//                   refused), one JSON line each, so that a retry after a restart hears them again
//
// Committing a file (commit_file) goes: the NACHA text to OUTBOX/NAME.tmp and fsync; the manifest
// written whole (temporary, fsync, rename, fsync of files/): this is the commit point; then the
// rename of the temporary into OUTBOX/NAME and an fsync of the outbox; then the spool is rewritten
// without the file's entries. Opening the folder finishes whatever a crash interrupted: a
// committed file whose rename did not happen is renamed, a temporary without a manifest (a file
// never committed) is deleted (its entries are still spooled and go into a later file), and spooled
// entries that a manifest or an outcome already holds leave the spool.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plugins/ach/nacha_writer.hpp"
#include "plugins/common/durable_files.hpp"

namespace corridor::ach {

struct spooled_entry {
    std::string operation_id;
    std::int64_t queued_at_ms = 0;  // the host's clock at initiate: decides the entry's window
    entry_fields entry;
};

struct sent_entry {
    std::string operation_id;
    std::string trace;
};

struct sent_file {
    std::string file_name;  // in the outbox, e.g. 20260310-w1.ach
    std::int64_t settlement_ms = 0;
    std::vector<sent_entry> entries;
    // Set by commit_file: the file's place in commit order (1, 2, ...) and the trace sequence
    // that the next file starts at.
    std::uint64_t number = 0;
    std::uint64_t next_sequence = 1;
};

// A final report as the plugin made it (corridor_rail_outcome and corridor_rail_failure values).
struct final_outcome {
    std::string operation_id;
    std::int32_t outcome = 0;
    std::int32_t failure = 0;
    std::string rail_reason_code, failure_reason, rail_reference, message;
};

class ach_spool {
public:
    // Opens the state folder (making it and the outbox), takes its lock, recovers and loads. When
    // another process holds the lock, opens read-only: nothing is read, recovered or written.
    ach_spool(std::filesystem::path state_dir, std::filesystem::path outbox_dir);

    bool writable() const { return log_ != nullptr; }
    const std::filesystem::path& state_dir() const { return state_dir_; }

    const std::map<std::string, spooled_entry>& spooled() const { return spooled_; }
    const std::vector<sent_file>& files() const { return files_; }
    const spooled_entry* find_spooled(const std::string& operation_id) const;
    // The file holding the operation and its trace number there.
    std::optional<std::pair<const sent_file*, std::string>> find_sent(
        const std::string& operation_id) const;
    // The operation a trace number was given to, or "" when no file holds it.
    std::string operation_of_trace(const std::string& trace) const;
    const final_outcome* find_outcome(const std::string& operation_id) const;

    // Durable when it returns; throws (and keeps nothing) when the spool cannot be written.
    void add(const spooled_entry& entry);
    // Commits one origination file (see above); the file's entries and those with an outcome
    // leave the spool. Throws when the file could not be committed; once the manifest is
    // committed the file counts as sent even if a later step throws (finish_pending retries it).
    void commit_file(sent_file manifest, std::string_view nacha_text, std::uint64_t next_sequence);
    // Durable when it returns. A spooled entry given an outcome leaves the spool (its line in
    // spool.log goes at the next rewrite: the next commit_file or open).
    void record_outcome(const final_outcome& outcome);
    // Retries what a commit_file that threw left undone (the rename into the outbox).
    void finish_pending();

    // How many origination files of a day (file names starting with the YYYYMMDD stem) exist:
    // committed ones and any other file in the outbox.
    std::size_t files_of_day(const std::string& date) const;
    // The trace sequence the next file starts at: where the last committed file stopped.
    std::uint64_t next_trace_sequence() const;

private:
    void recover();
    void load_outcomes();
    void load_spool();
    void rewrite_spool();
    void finish_rename(const std::string& file_name);

    std::filesystem::path state_dir_, outbox_dir_;
    std::unique_ptr<plugin_files::folder_lock> lock_;
    std::unique_ptr<plugin_files::line_log> log_;
    std::unique_ptr<plugin_files::line_log> outcomes_log_;
    std::map<std::string, spooled_entry> spooled_;
    std::vector<sent_file> files_;
    std::map<std::string, std::pair<std::size_t, std::string>> sent_;  // id -> file index, trace
    std::map<std::string, std::string> operation_of_trace_;
    std::map<std::string, final_outcome> outcomes_;
    std::vector<std::string> unfinished_renames_;
    const sent_file* last_committed() const;
};

// JSON lines of the spool, exposed for tests.
std::string spooled_entry_json(const spooled_entry& entry);
spooled_entry spooled_entry_from_json(std::string_view line);

}  // namespace corridor::ach
