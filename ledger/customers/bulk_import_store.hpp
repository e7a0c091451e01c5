#pragma once
// Bulk customer import jobs: one row per uploaded CSV, claimed by one worker at a time through a
// lease in the database, so any number of processes can run imports and a job whose worker died is
// picked up again. Progress, the resume position and the customers of a batch commit together.
#include <soci/soci.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ledger/base/clock.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/base/tenant.hpp"

namespace corridor {

struct bulk_import_row_error {
    std::int64_t row_number = 0;  // the record's number in the file, the header being row 1
    std::string code, message, details_json, correlation_id;
};

struct bulk_import_job {
    std::string id;  // BulkCustomerImportJob:<uuid>
    tenant owner;
    std::string status;  // PENDING, PROCESSING, COMPLETED, FAILED
    std::string file_path;
    std::int64_t total = 0, processed = 0, successful = 0, failed = 0;
    std::int64_t resume_offset = 0;  // byte where the next unprocessed record starts
    std::int64_t resume_row = 0;     // number of the last record consumed (the header is 1)
    std::int64_t created_at_ms = 0, updated_at_ms = 0;
    std::optional<std::int64_t> completed_at_ms;
};

// Errors kept per job: the counters count every failed row, the list keeps the first ones.
constexpr std::int64_t bulk_import_errors_kept_max = 1000;

bulk_import_job create_bulk_import_job(soci::session& session, const std::string& id,
                                       const clock& time, const tenant& owner,
                                       const std::string& file_path, std::int64_t total,
                                       std::int64_t data_offset);
std::optional<bulk_import_job> find_bulk_import_job(soci::session& session, const tenant& owner,
                                                    const std::string& id);
std::vector<bulk_import_row_error> bulk_import_errors(soci::session& session,
                                                      const std::string& job_id);

// Claims the oldest open job whose lease is free or lapsed, for `lease_ms`, marking it PROCESSING.
std::optional<bulk_import_job> claim_bulk_import_job(soci::session& session, const clock& time,
                                                     const std::string& worker,
                                                     std::int64_t lease_ms);

struct bulk_import_progress {
    std::int64_t processed = 0, successful = 0, failed = 0;  // added in this batch
    std::int64_t resume_offset = 0, resume_row = 0;          // where the batch ended
    std::vector<bulk_import_row_error> errors;
};

// Records a batch and extends the lease; false when the worker no longer holds the lease (the
// caller must then roll its batch back). Call in the batch's transaction.
bool record_bulk_import_progress(soci::session& session, const clock& time,
                                 const std::string& job_id, const std::string& worker,
                                 const bulk_import_progress& progress, std::int64_t lease_ms);
// Ends the job COMPLETED or FAILED and releases the lease; false when the lease was lost.
bool finish_bulk_import_job(soci::session& session, const clock& time, const std::string& job_id,
                            const std::string& worker, const std::string& status);

}  // namespace corridor
