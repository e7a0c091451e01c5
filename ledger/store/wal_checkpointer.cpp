#include "ledger/store/wal_checkpointer.hpp"

#include <soci/sqlite3/soci-sqlite3.h>
#include <sqlite3.h>

#include <cstdio>

#include "ledger/base/assert.hpp"
#include "ledger/base/thread_name.hpp"
#include "ledger/store/native_connection.hpp"

namespace corridor {
namespace {

sqlite_api::sqlite3* sqlite_handle(soci::session& session) {
    CORRIDOR_ASSERT(session.get_backend_name() == "sqlite3");
    return sqlite_connection(session);
}

}  // namespace

wal_checkpointer::wal_checkpointer(database_url url, int frames_soft_max, int frames_hard_max)
    : url_(std::move(url)), frames_soft_max_(frames_soft_max), frames_hard_max_(frames_hard_max) {
    CORRIDOR_ASSERT(url_.backend == database_backend::sqlite);
    CORRIDOR_ASSERT(frames_soft_max_ > 0 && frames_hard_max_ > frames_soft_max_);
    thread_ = std::thread([this] {
        name_this_thread("wal-checkpoint");
        run();
    });
}

wal_checkpointer::~wal_checkpointer() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wanted_.notify_one();
    thread_.join();
}

void wal_checkpointer::watch(soci::session& writer_session) {
    sqlite_api::sqlite3* connection = sqlite_handle(writer_session);
    // Installing a WAL hook replaces the automatic checkpoint hook (wal_autocheckpoint).
    sqlite_api::sqlite3_wal_hook(
        connection,
        [](void* self, sqlite_api::sqlite3* writer, const char* schema, int frames) {
            return static_cast<wal_checkpointer*>(self)->on_wal_commit(writer, schema, frames);
        },
        this);
}

// Runs on the writer's thread after each commit, with the WAL's length in frames.
int wal_checkpointer::on_wal_commit(void* connection, const char* schema, int frames) {
    if (frames >= frames_hard_max_) {
        sqlite_api::sqlite3_wal_checkpoint_v2(static_cast<sqlite_api::sqlite3*>(connection), schema,
                                              SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
        std::lock_guard lock(mutex_);
        ++writer_checkpoints_;
        return SQLITE_OK;
    }
    {
        std::lock_guard lock(mutex_);
        // A shorter WAL than at the last commit means the writer started it again from its
        // beginning, everything before having been copied.
        if (frames < frames_seen_) frames_copied_ = 0;
        frames_seen_ = frames;
        // Counted from what the last checkpoint copied, not from the WAL's start: under steady
        // load the WAL is rarely started again (the writer's next commit usually comes before the
        // checkpoint has copied the last one), so its length stays past any threshold and a
        // length test started a checkpoint after nearly every commit, each copying the pages
        // that every batch changes (the service accounts, the ends of tables and indexes) again.
        if (due_ || frames - frames_copied_ < frames_soft_max_) return SQLITE_OK;
        due_ = true;
    }
    wanted_.notify_one();
    return SQLITE_OK;
}

void wal_checkpointer::run() {
    session_ptr session;
    while (true) {
        {
            std::unique_lock lock(mutex_);
            wanted_.wait(lock, [this] { return stopping_ || due_; });
            if (stopping_) return;
        }
        try {
            if (!session) session = open_session(url_);
            int frames_in_wal = 0;
            int copied = 0;
            int rc = sqlite_api::sqlite3_wal_checkpoint_v2(sqlite_handle(*session), nullptr,
                                                           SQLITE_CHECKPOINT_PASSIVE,
                                                           &frames_in_wal, &copied);
            if (rc != SQLITE_OK && rc != SQLITE_BUSY) {
                std::fprintf(stderr, "wal checkpointer: checkpoint failed: %s\n",
                             sqlite_api::sqlite3_errstr(rc));
            } else if (copied > 0) {
                std::lock_guard lock(mutex_);
                // Unless the WAL was started again meanwhile (the writer then sees it shorter).
                if (copied <= frames_seen_) frames_copied_ = copied;
            }
        } catch (const std::exception& error) {
            std::fprintf(stderr, "wal checkpointer: %s\n", error.what());
            session.reset();
        }
        std::lock_guard lock(mutex_);
        due_ = false;
        ++checkpoints_;
    }
}

std::uint64_t wal_checkpointer::checkpoints_total() const {
    std::lock_guard lock(mutex_);
    return checkpoints_;
}

std::uint64_t wal_checkpointer::writer_checkpoints_total() const {
    std::lock_guard lock(mutex_);
    return writer_checkpoints_;
}

}  // namespace corridor
