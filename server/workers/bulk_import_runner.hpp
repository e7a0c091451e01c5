#pragma once
// The background worker of bulk customer imports: a thread with its own database session that
// claims open jobs (in the database, so several processes share the work), imports their rows in
// batches, and ends each job with its BULK_UPLOAD event. Started by `serve`.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "ledger/store/database.hpp"
#include "ledger/store/wal_checkpointer.hpp"

namespace corridor {

struct app_services;
struct bulk_import_job;

class bulk_import_runner {
public:
    bulk_import_runner(app_services& services, database_url url);
    ~bulk_import_runner();
    void wake();
    // Asks the worker to finish the batch in progress and hand its job back for another worker;
    // returns at once.
    void request_stop();
    // request_stop, then joins the thread.
    void stop();

    // One claim-and-import pass on `session`; true when a job was worked on.
    bool run_once(soci::session& session);

private:
    void loop();
    void import(soci::session& session, const bulk_import_job& job);
    void fail_job(soci::session& session, const bulk_import_job& job, const std::string& why);
    void hand_back(soci::session& session, const bulk_import_job& job);
    bool stopping() const;
    soci::session* second_connection(const std::string& job_id);

    app_services& services_;
    database_url url_;
    // On SQLite, checkpoints the WAL for the import's connection on a thread of its own, as the
    // ledger writer's does for the writer: an import writes the most pages of anything, and with
    // SQLite's automatic checkpoints the importing thread would copy them into the database file
    // and sync it itself, several times per import, while holding the write lock.
    std::unique_ptr<wal_checkpointer> checkpointer_;
    std::string worker_;
    session_ptr second_;  // second_connection's, used by the runner's thread only
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    bool woken_ = false;
    std::thread thread_;
};

}  // namespace corridor
