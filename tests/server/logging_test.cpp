// The process log: JSON lines with an RFC 3339 UTC millisecond time, level, message and fields,
// written to log.file when set, and reopened under the same name (logrotate moves the old one).
#include "server/process/logging.hpp"

#include "ledger/base/time_format.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "ledger/base/random.hpp"

using namespace corridor;
namespace fs = std::filesystem;

namespace {

std::vector<boost::json::object> lines_of(const fs::path& file) {
    std::ifstream in(file);
    std::vector<boost::json::object> out;
    std::string line;
    while (std::getline(in, line)) out.push_back(boost::json::parse(line).as_object());
    return out;
}

}  // namespace

TEST_CASE("log times are RFC 3339 UTC with milliseconds", "[server][logging]") {
    // The log's prefix uses the ledger's one timestamp formatter.
    CHECK(format_timestamp_ms(0) == "1970-01-01T00:00:00.000Z");
    CHECK(format_timestamp_ms(1795662245678LL) == "2026-11-26T03:04:05.678Z");
    CHECK(format_timestamp_ms(951782400007LL) == "2000-02-29T00:00:00.007Z");
}

TEST_CASE("log lines are JSON with time, level, message and fields; reopen follows the name",
          "[server][logging]") {
    os_random random;
    fs::path dir = fs::temp_directory_path() / ("corridor-log-" + random_hex(random, 8));
    fs::create_directories(dir);
    fs::path file = dir / "corridor.log";
    install_json_logging("info", file.string());
    struct restore {
        ~restore() { install_json_logging("info"); }
    } back_to_stderr;

    struct stat info {};
    REQUIRE(::stat(file.c_str(), &info) == 0);
    CHECK((info.st_mode & 0777) == 0600);

    spdlog::info("plain \"quoted\" {}", 42);
    spdlog::debug("below the level");
    log_info_fields("with fields", R"({"version":"1.2.3","n":7})");
    spdlog::get("access")->info(R"({"requestId":"r1","status":200})"
                                "\n"
                                R"({"requestId":"r2","status":404})");
    spdlog::warn("a warning");

    auto lines = lines_of(file);
    REQUIRE(lines.size() == 5);
    for (const auto& line : lines) {
        std::string time(line.at("time").as_string());
        CHECK(time.size() == 24);
        CHECK(time.back() == 'Z');
        CHECK(time[10] == 'T');
        CHECK(time[19] == '.');
    }
    CHECK(lines[0].at("message") == "plain \"quoted\" 42");
    CHECK(lines[0].at("level") == "info");
    CHECK(lines[1].at("message") == "with fields");
    CHECK(lines[1].at("version") == "1.2.3");
    CHECK(lines[1].at("n") == 7);
    CHECK(lines[2].at("message") == "request");
    CHECK(lines[2].at("requestId") == "r1");
    CHECK(lines[3].at("requestId") == "r2");
    CHECK(lines[3].at("status") == 404);
    CHECK(lines[4].at("level") == "warn");

    fs::rename(file, dir / "corridor.log.1");
    CHECK(reopen_log_file().empty());
    spdlog::info("after the reopen");
    auto fresh = lines_of(file);
    REQUIRE(fresh.size() == 1);
    CHECK(fresh[0].at("message") == "after the reopen");
    CHECK(lines_of(dir / "corridor.log.1").size() == 5);

    fs::remove_all(dir);
}
