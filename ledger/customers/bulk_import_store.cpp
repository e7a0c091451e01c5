#include "ledger/customers/bulk_import_store.hpp"

#include "ledger/base/assert.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/statement_cache.hpp"

namespace corridor {
namespace {

struct job_row {
    std::string id, platform_id, environment, status, file_path;
    long long total = 0, processed = 0, successful = 0, failed = 0, resume_offset = 0,
              resume_row = 0;
    long long created_at_ms = 0, updated_at_ms = 0, completed_at_ms = 0;
    soci::indicator completed_indicator = soci::i_null;

    void bind(soci::statement& statement) {
        for (auto* text : {&id, &platform_id, &environment, &status, &file_path}) {
            statement.exchange(soci::into(*text));
        }
        for (auto* number : {&total, &processed, &successful, &failed, &resume_offset, &resume_row,
                             &created_at_ms, &updated_at_ms}) {
            statement.exchange(soci::into(*number));
        }
        statement.exchange(soci::into(completed_at_ms, completed_indicator));
    }

    bulk_import_job to_job() const {
        bulk_import_job job;
        job.id = id;
        job.owner = tenant_of_row(platform_id, environment);
        job.status = status;
        job.file_path = file_path;
        job.total = total;
        job.processed = processed;
        job.successful = successful;
        job.failed = failed;
        job.resume_offset = resume_offset;
        job.resume_row = resume_row;
        job.created_at_ms = created_at_ms;
        job.updated_at_ms = updated_at_ms;
        if (completed_indicator == soci::i_ok) job.completed_at_ms = completed_at_ms;
        return job;
    }
};

constexpr const char* job_columns =
    "SELECT id, platform_id, environment, status, file_path, total_rows, processed_rows, "
    "successful_rows, failed_rows, resume_offset, resume_row, created_at_ms, updated_at_ms, "
    "completed_at_ms FROM bulk_import_jobs";

std::optional<bulk_import_job> load_job(soci::session& session, const std::string& id) {
    static const std::string sql = std::string(job_columns) + " WHERE id = :i";
    job_row row;
    if (!fetch_prepared(session, sql.c_str(), row, id)) return std::nullopt;
    return row.to_job();
}

}  // namespace

bulk_import_job create_bulk_import_job(soci::session& session, const std::string& id,
                                       const clock& time, const tenant& owner,
                                       const std::string& file_path, std::int64_t total,
                                       std::int64_t data_offset) {
    CORRIDOR_ASSERT(total >= 0 && data_offset >= 0);
    std::string env_name(owner.env_name());
    long long now_ms = time.now_ms();
    long long total_rows = total, offset = data_offset;
    session
        << "INSERT INTO bulk_import_jobs (id, platform_id, environment, status, file_path, "
           "total_rows, processed_rows, successful_rows, failed_rows, resume_offset, resume_row, "
           "lease_owner, lease_until_ms, created_at_ms, updated_at_ms, completed_at_ms) VALUES "
           "(:i, :p, :e, 'PENDING', :f, :t, 0, 0, 0, :o, 1, NULL, 0, :c, :u, NULL)",
        soci::use(id), soci::use(owner.platform_id), soci::use(env_name), soci::use(file_path),
        soci::use(total_rows), soci::use(offset), soci::use(now_ms), soci::use(now_ms);
    bulk_import_job job;
    job.id = id;
    job.owner = owner;
    job.status = "PENDING";
    job.file_path = file_path;
    job.total = total;
    job.resume_offset = data_offset;
    job.resume_row = 1;
    job.created_at_ms = job.updated_at_ms = now_ms;
    return job;
}

std::optional<bulk_import_job> find_bulk_import_job(soci::session& session, const tenant& owner,
                                                    const std::string& id) {
    auto job = load_job(session, id);
    if (!job || job->owner != owner) return std::nullopt;
    return job;
}

std::vector<bulk_import_row_error> bulk_import_errors(soci::session& session,
                                                      const std::string& job_id) {
    std::vector<bulk_import_row_error> out;
    soci::rowset<soci::row> rows =
        (session.prepare << "SELECT row_number, code, message, details, correlation_id FROM "
                            "bulk_import_errors WHERE job_id = :j ORDER BY row_number",
         soci::use(job_id));
    for (const auto& row : rows) {
        bulk_import_row_error error;
        error.row_number = row.get<long long>(0);
        error.code = row.get<std::string>(1);
        error.message = row.get<std::string>(2);
        error.details_json = row.get<std::string>(3);
        error.correlation_id = row.get<std::string>(4);
        out.push_back(std::move(error));
    }
    return out;
}

std::optional<bulk_import_job> claim_bulk_import_job(soci::session& session, const clock& time,
                                                     const std::string& worker,
                                                     std::int64_t lease_ms) {
    CORRIDOR_ASSERT(lease_ms > 0);
    write_transaction transaction(session);
    long long now_ms = time.now_ms();
    long long until_ms = now_ms + lease_ms;
    std::string id;
    soci::indicator found = soci::i_null;
    if (backend_of(session) == database_backend::postgresql) {
        session << "SELECT id FROM bulk_import_jobs WHERE status IN ('PENDING', 'PROCESSING') AND "
                   "lease_until_ms < :n ORDER BY created_at_ms LIMIT 1 FOR UPDATE SKIP LOCKED",
            soci::use(now_ms), soci::into(id, found);
    } else {
        session << "SELECT id FROM bulk_import_jobs WHERE status IN ('PENDING', 'PROCESSING') AND "
                   "lease_until_ms < :n ORDER BY created_at_ms LIMIT 1",
            soci::use(now_ms), soci::into(id, found);
    }
    if (found != soci::i_ok) return std::nullopt;
    auto claimed =
        run_prepared(session,
                     "UPDATE bulk_import_jobs SET status = 'PROCESSING', lease_owner = :w, "
                     "lease_until_ms = :u, updated_at_ms = :n WHERE id = :i AND "
                     "status IN ('PENDING', 'PROCESSING') AND lease_until_ms < :n2",
                     worker, until_ms, now_ms, id, now_ms);
    if (claimed != 1) return std::nullopt;
    auto job = load_job(session, id);
    transaction.commit();
    return job;
}

bool record_bulk_import_progress(soci::session& session, const clock& time,
                                 const std::string& job_id, const std::string& worker,
                                 const bulk_import_progress& progress, std::int64_t lease_ms) {
    long long now_ms = time.now_ms();
    long long until_ms = now_ms + lease_ms;
    long long processed = progress.processed, successful = progress.successful,
              failed = progress.failed, offset = progress.resume_offset, row = progress.resume_row;
    auto updated = run_prepared(
        session,
        "UPDATE bulk_import_jobs SET processed_rows = processed_rows + :a, successful_rows = "
        "successful_rows + :b, failed_rows = failed_rows + :c, resume_offset = :o, resume_row = "
        ":r, "
        "lease_until_ms = :u, updated_at_ms = :n WHERE id = :i AND lease_owner = :w AND status = "
        "'PROCESSING'",
        processed, successful, failed, offset, row, until_ms, now_ms, job_id, worker);
    if (updated != 1) return false;
    if (progress.errors.empty()) return true;
    long long kept = 0;
    session << "SELECT COUNT(*) FROM bulk_import_errors WHERE job_id = :j", soci::use(job_id),
        soci::into(kept);
    for (const auto& error : progress.errors) {
        if (kept++ >= bulk_import_errors_kept_max) break;
        long long row_number = error.row_number;
        run_prepared(session,
                     "INSERT INTO bulk_import_errors (job_id, row_number, code, message, details, "
                     "correlation_id) VALUES (:j, :r, :c, :m, :d, :k)",
                     job_id, row_number, error.code, error.message, error.details_json,
                     error.correlation_id);
    }
    return true;
}

bool finish_bulk_import_job(soci::session& session, const clock& time, const std::string& job_id,
                            const std::string& worker, const std::string& status) {
    CORRIDOR_ASSERT(status == "COMPLETED" || status == "FAILED");
    long long now_ms = time.now_ms();
    auto updated = run_prepared(session,
                                "UPDATE bulk_import_jobs SET status = :s, completed_at_ms = :c, "
                                "lease_owner = NULL, updated_at_ms = :n WHERE id = :i AND "
                                "lease_owner = :w AND status = 'PROCESSING'",
                                status, now_ms, now_ms, job_id, worker);
    return updated == 1;
}

}  // namespace corridor
