#include "server/workers/bulk_import_runner.hpp"

#include <spdlog/spdlog.h>

#include <array>
#include <boost/json.hpp>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <variant>

#include "ledger/base/csv_reader.hpp"
#include "ledger/base/thread_name.hpp"
#include "ledger/customers/bulk_import_store.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/store/outbox.hpp"
#include "ledger/store/pending_commit.hpp"
#include "ledger/store/statement_cache.hpp"
#include "server/api/app.hpp"
#include "server/api/bulk_import.hpp"
#include "server/api/customer_input.hpp"

namespace corridor {
namespace {

constexpr std::size_t csv_record_bytes_max = 64 * 1024;

// WAL length (in frames) at which the import's checkpointer starts a checkpoint, and past which
// the import's connection checkpoints itself (the checkpointer fell behind): as the ledger
// writer's.
constexpr int wal_frames_soft_max = 1000;
constexpr int wal_frames_hard_max = 65536;

void record_job_event(soci::session& session, app_services& services, const bulk_import_job& job) {
    auto current = find_bulk_import_job(session, job.owner, job.id);
    CORRIDOR_ASSERT(current.has_value());
    boost::json::object payload{
        {"bulkCustomerImportJob",
         render_bulk_import_job(*current, bulk_import_errors(session, job.id))}};
    record_event(session, services.ids, services.time, job.owner, "BULK_UPLOAD",
                 boost::json::serialize(payload));
}

// The platformCustomerId column of a record, for the error's correlationId.
std::string platform_customer_id_of(const bulk_csv_columns& columns,
                                    const std::vector<std::string>& fields) {
    auto index = columns.find("platformCustomerId");
    return index && *index < fields.size() ? fields[*index] : std::string();
}

// A batch of records read and validated before its transaction: each record has either an error
// (outcomes[i] set) or a request (outcomes[i] empty; its row and platformCustomerId in
// request_rows).
struct parsed_batch {
    std::vector<std::optional<bulk_import_row_error>> outcomes;  // per record, in order
    std::vector<new_customer> requests;
    std::vector<std::pair<std::int64_t, std::string>> request_rows;  // row, platformCustomerId
    std::int64_t resume_offset = 0, resume_row = 0;  // where the batch ended in the file
    bool at_end = false;                             // the file ended with this batch
};

// Reads up to batch_rows records from `reader` and validates them; `row` is the number of the
// last record consumed.
parsed_batch read_batch(csv_reader& reader, const bulk_csv_columns& columns,
                        const platform_config& config, std::int64_t batch_rows, const clock& time,
                        std::int64_t& row) {
    parsed_batch batch;
    std::vector<std::string> fields;
    while (static_cast<std::int64_t>(batch.outcomes.size()) < batch_rows) {
        auto status = reader.next(fields);
        if (status == csv_status::end) {
            batch.at_end = true;
            break;
        }
        ++row;
        std::string platform_customer_id;
        try {
            if (status == csv_status::malformed) {
                fail(error_code::invalid_input, "malformed CSV record: " + reader.error());
            }
            platform_customer_id = platform_customer_id_of(columns, fields);
            batch.requests.push_back(
                read_bulk_csv_customer(columns, fields, config, time.now_ms()));
            batch.request_rows.emplace_back(row, std::move(platform_customer_id));
            batch.outcomes.emplace_back();
        } catch (const api_error& error) {
            batch.outcomes.emplace_back(bulk_row_error(error, row, platform_customer_id));
        }
    }
    batch.resume_offset = static_cast<std::int64_t>(reader.offset());
    batch.resume_row = row;
    return batch;
}

// Reads and validates a job's batches on a thread of its own, one batch ahead of the one being
// written: parsing and validating the CSV (a good part of an import's CPU) runs on the other core
// while the importing thread waits on the database or runs its statements. At most one batch
// waits ready and one is being read beside the one being written, so memory stays flat however
// long the file. The destructor stops the reading thread and waits for it.
class batch_prefetch {
public:
    explicit batch_prefetch(std::function<parsed_batch()> read) : read_(std::move(read)) {
        thread_ = std::thread([this] {
            name_this_thread("bulk-read");
            run();
        });
    }
    ~batch_prefetch() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        changed_.notify_all();
        thread_.join();
    }
    batch_prefetch(const batch_prefetch&) = delete;
    batch_prefetch& operator=(const batch_prefetch&) = delete;

    // The next batch, in file order; rethrows what stopped the reading thread. Not to be called
    // again after a batch at_end.
    parsed_batch next() {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [this] { return ready_.has_value() || failure_; });
        if (!ready_) std::rethrow_exception(failure_);
        parsed_batch batch = std::move(*ready_);
        ready_.reset();
        changed_.notify_all();
        return batch;
    }

private:
    void run() {
        try {
            for (bool at_end = false; !at_end;) {
                parsed_batch batch = read_();
                at_end = batch.at_end;
                std::unique_lock lock(mutex_);
                changed_.wait(lock, [this] { return stopping_ || !ready_; });
                if (stopping_) return;
                ready_ = std::move(batch);
                changed_.notify_all();
            }
        } catch (...) {
            std::lock_guard lock(mutex_);
            failure_ = std::current_exception();
            changed_.notify_all();
        }
    }

    std::function<parsed_batch()> read_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::optional<parsed_batch> ready_;
    std::exception_ptr failure_;
    bool stopping_ = false;
    std::thread thread_;
};

// The job's CSV header, read from the start of `in`; an error message when it has none or it
// names no usable columns.
std::variant<bulk_csv_columns, std::string> read_columns(std::istream& in) {
    csv_reader header_reader(in, 0, csv_record_bytes_max);
    std::vector<std::string> header;
    if (header_reader.next(header) != csv_status::record) {
        return std::string("its CSV has no readable header");
    }
    try {
        return read_bulk_csv_header(header);
    } catch (const api_error& error) {
        return error.message;
    }
}

// Counts a batch's outcomes into `progress`: each record is either refused while read (its
// error in `outcomes`) or valid, and then decided by the next of create_customers' answers.
void tally_batch(std::vector<std::optional<bulk_import_row_error>>& outcomes,
                 const std::vector<result<std::string, customer_error>>& created,
                 const std::vector<std::pair<std::int64_t, std::string>>& request_rows,
                 bulk_import_progress& progress) {
    std::size_t next_request = 0;
    for (auto& outcome : outcomes) {
        if (!outcome) {
            auto index = next_request++;
            if (created[index]) {
                ++progress.successful;
                continue;
            }
            try {
                fail_customer(created[index].error(), "");
            } catch (const api_error& error) {
                outcome =
                    bulk_row_error(error, request_rows[index].first, request_rows[index].second);
            }
        }
        ++progress.failed;
        progress.errors.push_back(std::move(*outcome));
    }
}

// True when a row of the batch lost its address or platformCustomerId to a stored customer or
// an earlier row.
bool any_key_taken(const std::vector<result<std::string, customer_error>>& created) {
    return std::any_of(created.begin(), created.end(), [](const auto& outcome) {
        return !outcome && (outcome.error() == customer_error::uma_address_taken ||
                            outcome.error() == customer_error::platform_customer_id_taken);
    });
}

// A batch's customers, written in `transaction`: at once while `at_once` (PostgreSQL), else with
// create_customers' lookups first. When a key stops the batch written at once, the transaction
// starts again and create_customers decides the batch on fresh statistics (refreshed between the
// two: ANALYZE in the transaction would hold its lock on customers until the commit). After a
// batch decided with the lookups, `at_once` says whether the next may go at once again: only if
// none of its rows lost a key.
// `previous` is the commit of the batch before, settled before any lookup so that the lookups see
// its rows.
std::vector<result<std::string, customer_error>> write_customers(
    soci::session& session, std::optional<write_transaction>& transaction,
    customer_services customers, const tenant& owner, const std::string& uma_domain,
    const std::vector<new_customer>& requests, bool may_insert_at_once, bool& at_once,
    pending_commit& previous) {
    if (at_once) {
        auto created = insert_customers_at_once(session, customers, owner, uma_domain, requests);
        if (created) return std::move(*created);
        transaction.reset();
        previous.settle();
        refresh_customer_statistics(session);
        transaction.emplace(session);
    }
    auto created = create_customers(session, customers, owner, uma_domain, requests);
    at_once = may_insert_at_once && !any_key_taken(created);
    return created;
}

// The connections a job's batches are written on. On PostgreSQL two, taken in turn: a batch's
// COMMIT waits for its WAL to reach the disk (about 9 us per row, of the 60-70 a row takes), and
// the next batch is written on the other connection meanwhile. Batches still commit in file order:
// a batch updates the job's row, which waits for the batch before to commit (it updated the row
// too), and it is committed only after the batch before is known to have committed (a batch after
// one that failed rolls back with it, so the job resumes after the last committed batch). On
// SQLite, whose one writer holds the write lock until its commit, one connection.
struct batch_connections {
    std::array<soci::session*, 2> sessions;
    std::array<pending_commit, 2> commits;  // of the last batch written on each
    std::size_t turn = 0;                   // whose turn it is

    soci::session& current() { return *sessions[turn]; }
    // Before the current connection is used: its last commit answered, and the other's too when
    // the two are one connection or `with_previous` (lookups must see the batch before's rows).
    void make_ready(bool with_previous) {
        commits[turn].settle();
        if (with_previous || sessions[0] == sessions[1]) previous_commit().settle();
    }
    pending_commit& own_commit() { return commits[turn]; }
    pending_commit& previous_commit() { return commits[1 - turn]; }
    void settle_all() {
        for (auto& commit : commits) commit.settle();
    }
    void next() { turn = 1 - turn; }
};

}  // namespace

bulk_import_runner::bulk_import_runner(app_services& services, database_url url)
    : services_(services), url_(std::move(url)) {
    if (url_.backend == database_backend::sqlite) {
        checkpointer_ =
            std::make_unique<wal_checkpointer>(url_, wal_frames_soft_max, wal_frames_hard_max);
    }
    worker_ = "worker-" + random_hex(services.random, 8);
    thread_ = std::thread([this] {
        name_this_thread("bulk-import");
        loop();
    });
}

bulk_import_runner::~bulk_import_runner() {
    stop();
}

void bulk_import_runner::wake() {
    {
        std::lock_guard lock(mutex_);
        woken_ = true;
    }
    wake_.notify_all();
}

void bulk_import_runner::request_stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
}

void bulk_import_runner::stop() {
    request_stop();
    if (thread_.joinable()) thread_.join();
}

bool bulk_import_runner::stopping() const {
    std::lock_guard lock(mutex_);
    return stopping_;
}

void bulk_import_runner::loop() {
    session_ptr session;
    while (!stopping()) {
        bool worked = false;
        try {
            if (!session) {
                session = open_session(url_);
                if (checkpointer_) checkpointer_->watch(*session);
            }
            worked = run_once(*session);
        } catch (const std::exception& error) {
            spdlog::error("bulk import: {}", error.what());
            session.reset();  // reopened on the next pass
            second_.reset();
        }
        if (worked) continue;
        std::unique_lock lock(mutex_);
        wake_.wait_for(lock,
                       std::chrono::milliseconds(services_.config.bulk_import.poll_interval_ms),
                       [this] { return stopping_ || woken_; });
        woken_ = false;
    }
}

// On PostgreSQL the connection a job's batches take in turn with the loop's (see
// batch_connections), opened for the first job and kept; none when the database refuses one (its
// connections all taken): the job then goes on with one, waiting for each commit.
soci::session* bulk_import_runner::second_connection(const std::string& job_id) {
    if (url_.backend != database_backend::postgresql) return nullptr;
    if (!second_) {
        try {
            second_ = open_session(url_);
        } catch (const std::exception& error) {
            spdlog::warn("bulk import job {}: on one connection, a second one refused: {}", job_id,
                         error.what());
            return nullptr;
        }
    }
    return second_.get();
}

bool bulk_import_runner::run_once(soci::session& session) {
    auto job = claim_bulk_import_job(session, services_.time, worker_,
                                     services_.config.bulk_import.lease_ms);
    if (!job) return false;
    import(session, *job);
    return true;
}

// Hands the job back at once rather than after the lease lapses (the process is stopping).
void bulk_import_runner::hand_back(soci::session& session, const bulk_import_job& job) {
    run_prepared(session,
                 "UPDATE bulk_import_jobs SET lease_until_ms = 0, lease_owner = NULL WHERE "
                 "id = :i AND lease_owner = :w",
                 job.id, worker_);
}

void bulk_import_runner::fail_job(soci::session& session, const bulk_import_job& job,
                                  const std::string& why) {
    spdlog::error("bulk import job {} failed: {}", job.id, why);
    write_transaction transaction(session);
    if (!finish_bulk_import_job(session, services_.time, job.id, worker_, "FAILED")) return;
    record_job_event(session, services_, job);
    transaction.commit();
}

// Imports the job's remaining records, a batch per transaction: the customers of a batch, its
// errors, the counters and the resume position commit together, so a job resumed after a crash
// starts exactly after the last committed record.
void bulk_import_runner::import(soci::session& session, const bulk_import_job& job) {
    std::ifstream in(job.file_path, std::ios::binary);
    if (!in) return fail_job(session, job, "its CSV file is missing");
    auto header = read_columns(in);
    if (auto* why = std::get_if<std::string>(&header)) return fail_job(session, job, *why);
    auto columns = std::get<bulk_csv_columns>(std::move(header));
    in.clear();
    in.seekg(job.resume_offset);
    csv_reader reader(in, static_cast<std::uint64_t>(job.resume_offset), csv_record_bytes_max);
    auto config = load_platform_config(session, job.owner);
    if (!config) return fail_job(session, job, "the platform configuration is missing");
    customer_services customers{services_.ids, services_.random, services_.time};
    const auto& settings = services_.config.bulk_import;
    std::int64_t row = job.resume_row;  // the reading thread's
    batch_prefetch batches([&] {
        return read_batch(reader, columns, *config, settings.batch_rows, services_.time, row);
    });
    // Rows imported at which the customers' statistics are refreshed next, for the batch lookups:
    // before the first batch that looks its keys up, then before such a batch each time this job
    // has doubled what it imported (a few times per job, however long). Batches written at once
    // need none.
    std::int64_t imported = 0, refresh_at = 0;
    // On PostgreSQL a batch goes in without its lookups first while no key of the job's rows has
    // been found taken (insert_customers_at_once); after a batch that met one (a file imported
    // again, say), its keys are looked up until a batch finds none taken.
    const bool may_insert_at_once =
        backend_of(session) == database_backend::postgresql && !shadowed_addresses_exist(session);
    bool at_once = may_insert_at_once;
    soci::session* second = second_connection(job.id);
    batch_connections connections{{&session, second ? second : &session}, {}};
    for (;;) {
        connections.make_ready(!at_once);
        if (imported >= refresh_at && !at_once) {
            refresh_customer_statistics(connections.current());
            refresh_at = std::max<std::int64_t>(2 * imported, settings.batch_rows);
        }
        if (stopping()) {
            connections.settle_all();
            return hand_back(session, job);
        }
        // The batch was read and validated by the reading thread before its transaction begins:
        // on SQLite the write lock (which the ledger writer waits for) is held only for the
        // batch's few statements.
        parsed_batch batch = batches.next();
        bulk_import_progress progress;
        progress.processed = static_cast<std::int64_t>(batch.outcomes.size());
        soci::session& batch_session = connections.current();
        std::optional<write_transaction> transaction(std::in_place, batch_session);
        auto created = write_customers(batch_session, transaction, customers, job.owner,
                                       config->uma_domain, batch.requests, may_insert_at_once,
                                       at_once, connections.previous_commit());
        CORRIDOR_ASSERT(created.size() == batch.requests.size());
        tally_batch(batch.outcomes, created, batch.request_rows, progress);
        progress.resume_offset = batch.resume_offset;
        progress.resume_row = batch.resume_row;
        // Waits (on PostgreSQL) for the batch before to commit: it holds the job's row.
        bool leased = record_bulk_import_progress(batch_session, services_.time, job.id, worker_,
                                                  progress, settings.lease_ms);
        // Throws when the batch before did not commit: this one then rolls back with the
        // transaction, and the job resumes after the last batch that did.
        connections.previous_commit().settle();
        if (!leased) {
            spdlog::warn("bulk import job {}: lease lost; another worker continues it", job.id);
            return;  // the batch rolls back with the transaction
        }
        if (batch.at_end) {
            bool finished =
                finish_bulk_import_job(batch_session, services_.time, job.id, worker_, "COMPLETED");
            CORRIDOR_ASSERT(finished);  // the lease was just extended in this transaction
            record_job_event(batch_session, services_, job);
            transaction->commit();
            std::error_code ignored;
            std::filesystem::remove(job.file_path, ignored);
            return;
        }
        connections.own_commit() = pending_commit::send(*transaction, batch_session);
        connections.next();
        imported += progress.successful;
    }
}

}  // namespace corridor
