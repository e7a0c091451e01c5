// Bulk import jobs in the store: creation and tenancy, the lease that lets one worker at a time
// work a job (and another take it over once the lease lapses), progress recorded only under the
// lease, and the end of a job.
#include "ledger/customers/bulk_import_store.hpp"

#include <catch2/catch.hpp>

#include "ledger/store/database.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;
using corridor::testing::store_fixture;

namespace {

bulk_import_progress batch(std::int64_t processed, std::int64_t failed, std::int64_t offset,
                           std::int64_t row) {
    bulk_import_progress progress;
    progress.processed = processed;
    progress.successful = processed - failed;
    progress.failed = failed;
    progress.resume_offset = offset;
    progress.resume_row = row;
    for (std::int64_t i = 0; i < failed; ++i) {
        progress.errors.push_back(
            {row - i, "INVALID_INPUT", "bad", "{}", "id-" + std::to_string(row - i)});
    }
    return progress;
}

}  // namespace

TEST_CASE("bulk import jobs are created PENDING and read only by their tenant", "[store][bulk]") {
    store_fixture fixture;
    auto platform = fixture.make_platform("acme.example");
    tenant owner{platform, environment::sandbox};
    auto job = create_bulk_import_job(fixture.session(), "BulkCustomerImportJob:1", fixture.clock,
                                      owner, "/tmp/x.csv", 10, 42);
    CHECK(job.status == "PENDING");
    auto found = find_bulk_import_job(fixture.session(), owner, job.id);
    REQUIRE(found);
    CHECK(found->total == 10);
    CHECK(found->resume_offset == 42);
    CHECK(found->resume_row == 1);
    CHECK_FALSE(found->completed_at_ms);
    CHECK_FALSE(
        find_bulk_import_job(fixture.session(), tenant{platform, environment::production}, job.id));
    auto other = fixture.make_platform("other.example");
    CHECK_FALSE(
        find_bulk_import_job(fixture.session(), tenant{other, environment::sandbox}, job.id));
}

TEST_CASE("one worker holds a job's lease; another takes over only after it lapses",
          "[store][bulk]") {
    store_fixture fixture;
    tenant owner{fixture.make_platform("acme.example"), environment::sandbox};
    auto& session = fixture.session();
    create_bulk_import_job(session, "BulkCustomerImportJob:1", fixture.clock, owner, "/tmp/x.csv",
                           5, 10);

    auto claimed = claim_bulk_import_job(session, fixture.clock, "a", 1000);
    REQUIRE(claimed);
    CHECK(claimed->status == "PROCESSING");
    CHECK_FALSE(claim_bulk_import_job(session, fixture.clock, "b", 1000));

    {
        write_transaction transaction(session);
        CHECK(record_bulk_import_progress(session, fixture.clock, claimed->id, "a",
                                          batch(2, 1, 30, 3), 1000));
        transaction.commit();
    }
    // The batch extended a's lease: b still cannot take the job, nor record progress on it.
    fixture.clock.advance_ms(900);
    CHECK_FALSE(claim_bulk_import_job(session, fixture.clock, "b", 1000));
    CHECK_FALSE(record_bulk_import_progress(session, fixture.clock, claimed->id, "b",
                                            batch(1, 0, 40, 4), 1000));

    fixture.clock.advance_ms(200);
    auto taken = claim_bulk_import_job(session, fixture.clock, "b", 1000);
    REQUIRE(taken);
    CHECK(taken->processed == 2);
    CHECK(taken->resume_offset == 30);
    CHECK(taken->resume_row == 3);
    CHECK_FALSE(record_bulk_import_progress(session, fixture.clock, taken->id, "a",
                                            batch(1, 0, 40, 4), 1000));
    CHECK_FALSE(finish_bulk_import_job(session, fixture.clock, taken->id, "a", "COMPLETED"));

    CHECK(record_bulk_import_progress(session, fixture.clock, taken->id, "b", batch(3, 1, 60, 6),
                                      1000));
    CHECK(finish_bulk_import_job(session, fixture.clock, taken->id, "b", "COMPLETED"));
    auto done = find_bulk_import_job(session, owner, taken->id);
    REQUIRE(done);
    CHECK(done->status == "COMPLETED");
    CHECK(done->processed == 5);
    CHECK(done->successful == 3);
    CHECK(done->failed == 2);
    CHECK(done->completed_at_ms == fixture.clock.now_ms());
    auto errors = bulk_import_errors(session, taken->id);
    REQUIRE(errors.size() == 2);
    CHECK(errors[0].row_number == 3);
    CHECK(errors[1].row_number == 6);
    // A finished job is never claimed again, even with its lease gone.
    fixture.clock.advance_ms(10000);
    CHECK_FALSE(claim_bulk_import_job(session, fixture.clock, "c", 1000));
}

TEST_CASE("progress of a batch that is rolled back leaves the job where it was", "[store][bulk]") {
    store_fixture fixture;
    tenant owner{fixture.make_platform("acme.example"), environment::sandbox};
    auto& session = fixture.session();
    create_bulk_import_job(session, "BulkCustomerImportJob:1", fixture.clock, owner, "/tmp/x.csv",
                           5, 10);
    auto claimed = claim_bulk_import_job(session, fixture.clock, "a", 1000);
    REQUIRE(claimed);
    {
        write_transaction transaction(session);
        CHECK(record_bulk_import_progress(session, fixture.clock, claimed->id, "a",
                                          batch(4, 2, 50, 5), 1000));
    }  // not committed
    auto job = find_bulk_import_job(session, owner, claimed->id);
    CHECK(job->processed == 0);
    CHECK(job->resume_offset == 10);
    CHECK(bulk_import_errors(session, claimed->id).empty());
}
