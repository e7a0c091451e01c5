#pragma once
// Moves SQLite's WAL checkpoints off the ledger writer. By default a checkpoint (copying changed
// pages from the WAL into the database file and syncing it) runs on whichever connection commits
// past the threshold, which is the ledger writer: every few hundred milliseconds a batch would
// wait for it. Here the writer's connection only reports how long the WAL has grown; a thread with
// its own connection runs PASSIVE checkpoints, which never block the writer, on the other core.
// If the checkpointer falls far behind (readers pinning old frames, a slow disk), the writer
// checkpoints itself past a hard limit, so the WAL stays bounded either way.
#include <soci/soci.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "ledger/store/database.hpp"

namespace corridor {

class wal_checkpointer {
public:
    // A checkpoint starts once frames_soft_max frames have been written since what the last one
    // copied; past frames_hard_max in the WAL the writer's connection checkpoints on its own.
    wal_checkpointer(database_url url, int frames_soft_max, int frames_hard_max);
    ~wal_checkpointer();
    wal_checkpointer(const wal_checkpointer&) = delete;
    wal_checkpointer& operator=(const wal_checkpointer&) = delete;

    // Turns off automatic checkpoints on the writer's (SQLite) connection and routes its WAL
    // growth here. Call once per writer connection; the checkpointer must outlive it.
    void watch(soci::session& writer_session);

    std::uint64_t checkpoints_total() const;
    std::uint64_t writer_checkpoints_total() const;

private:
    int on_wal_commit(void* connection, const char* schema, int frames);
    void run();

    database_url url_;
    int frames_soft_max_;
    int frames_hard_max_;
    mutable std::mutex mutex_;
    std::condition_variable wanted_;
    bool due_ = false;
    int frames_seen_ = 0;    // the WAL's length in frames at the writer's last commit
    int frames_copied_ = 0;  // how many of them the last checkpoint had copied
    bool stopping_ = false;
    std::uint64_t checkpoints_ = 0;
    std::uint64_t writer_checkpoints_ = 0;
    std::thread thread_;
};

}  // namespace corridor
