// Bulk customer import: POST /customers/bulk/csv (multipart upload, 202 with a job) and
// GET /customers/bulk/jobs/{jobId}. The upload reaches this handler already on disk; it is read in
// chunks, its `file` part copied to the job's CSV, and the CSV counted record by record, so no
// buffer ever holds the whole file. The rows are imported by the background runner.
#include <array>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>

#include "ledger/customers/bulk_import_store.hpp"
#include "ledger/base/csv_reader.hpp"
#include "ledger/store/database.hpp"
#include "server/api/app.hpp"
#include "server/api/bulk_import.hpp"
#include "server/api/errors.hpp"
#include "server/api/multipart.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

constexpr std::size_t read_chunk_bytes = 64 * 1024;
constexpr std::size_t csv_record_bytes_max = 64 * 1024;

// Removes the job's CSV unless the job was recorded.
struct file_guard {
    std::filesystem::path path;
    bool keep = false;
    ~file_guard() {
        if (keep) return;
        std::error_code ignored;
        std::filesystem::remove(path, ignored);
    }
};

// Copies the `file` part of the multipart body into `destination`.
void extract_file_part(const http_request& request, const std::string& boundary,
                       std::ofstream& destination) {
    std::ifstream body(request.body_file, std::ios::binary);
    if (!body) fail(error_code::internal_error, "the upload could not be read back");
    int file_parts = 0;
    bool in_file_part = false;
    multipart_reader reader(
        boundary,
        [&](const multipart_part_head& head) {
            in_file_part = head.name == "file";
            if (in_file_part && ++file_parts > 1) fail_field("file", "must be sent once");
        },
        [&](std::string_view data) {
            if (in_file_part)
                destination.write(data.data(), static_cast<std::streamsize>(data.size()));
        },
        [&] { in_file_part = false; });
    std::array<char, read_chunk_bytes> chunk{};
    while (body) {
        body.read(chunk.data(), chunk.size());
        auto got = static_cast<std::size_t>(body.gcount());
        if (got == 0) break;
        if (!reader.feed(std::string_view(chunk.data(), got))) {
            fail(error_code::invalid_input, "malformed multipart body: " + reader.error());
        }
    }
    if (!reader.finish())
        fail(error_code::invalid_input, "malformed multipart body: " + reader.error());
    if (file_parts == 0)
        fail_field("file", "is required: a multipart part named file holding the CSV");
    destination.flush();
    if (!destination) fail(error_code::internal_error, "the upload could not be stored");
}

struct csv_summary {
    std::int64_t rows = 0;         // data records, malformed ones included
    std::int64_t data_offset = 0;  // byte where the first data record starts
};

// Checks the header and counts the records.
csv_summary summarize_csv(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(error_code::internal_error, "the upload could not be read back");
    csv_reader reader(in, 0, csv_record_bytes_max);
    std::vector<std::string> fields;
    auto status = reader.next(fields);
    if (status == csv_status::end) fail_field("file", "is empty; it needs a header row");
    if (status == csv_status::malformed)
        fail_field("file", "the header row is malformed: " + reader.error());
    read_bulk_csv_header(fields);
    csv_summary summary;
    summary.data_offset = static_cast<std::int64_t>(reader.offset());
    while ((status = reader.next(fields)) != csv_status::end) ++summary.rows;
    return summary;
}

http_response upload_handler(request_context& context) {
    const auto& request = context.request;
    auto content_type = request.header("content-type");
    auto boundary = content_type ? multipart_boundary(*content_type) : std::nullopt;
    if (!boundary) {
        fail(error_code::unsupported_media_type,
             "the upload must be multipart/form-data with a boundary and a part named file");
    }
    const auto& services = context.services;
    std::string job_id = services.ids.next("BulkCustomerImportJob");
    std::filesystem::path dir = services.config.bulk_import.dir;
    std::error_code made;
    std::filesystem::create_directories(dir, made);
    file_guard csv{dir / (job_id.substr(job_id.find(':') + 1) + ".csv")};
    {
        std::ofstream out(csv.path, std::ios::binary | std::ios::trunc);
        if (!out) fail(error_code::internal_error, "the upload could not be stored");
        extract_file_part(request, *boundary, out);
    }
    auto summary = summarize_csv(csv.path);
    {
        write_transaction transaction(context.session());
        create_bulk_import_job(context.session(), job_id, services.time, context.owner(),
                               std::filesystem::absolute(csv.path).string(), summary.rows,
                               summary.data_offset);
        transaction.commit();
    }
    csv.keep = true;
    if (services.wake_bulk_import) services.wake_bulk_import();
    return json_response(202, json::object{{"jobId", job_id}, {"status", "PENDING"}});
}

http_response get_job_handler(request_context& context) {
    auto job = find_bulk_import_job(context.session(), context.owner(), context.param(0));
    if (!job) fail(error_code::bulk_upload_job_not_found, "no bulk upload job " + context.param(0));
    return json_response(
        200, render_bulk_import_job(*job, bulk_import_errors(context.session(), job->id)));
}

}  // namespace

void register_bulk_import_routes(router& routes) {
    routes.add({.method = http_method::post,
                .pattern = versioned("/customers/bulk/csv"),
                .permission = permission_manage,
                .body_to_file = true,
                .handler = upload_handler});
    routes.add({.method = http_method::get,
                .pattern = versioned("/customers/bulk/jobs/{jobId}"),
                .permission = permission_view,
                .handler = get_job_handler});
}

}  // namespace corridor
