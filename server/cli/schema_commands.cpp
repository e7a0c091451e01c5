// corridor --version | version, corridor migrate [--status | --dry-run], and the schema check of
// serve: a database newer than this binary (a rollback) is refused by name, never run on.
#include <fmt/format.h>

#include <boost/json.hpp>
#include <filesystem>
#include <iostream>

#include "ledger/store/migrations.hpp"
#include "rails/rail_abi.h"
#include "server/process/build_info.hpp"
#include "server/cli/cli_internal.hpp"
#include "server/process/file_modes.hpp"
#include "server/process/key_encryption.hpp"

namespace corridor {
namespace po = boost::program_options;
namespace json = boost::json;
namespace {

std::string rail_abi_text() {
    return fmt::format("{}.{}", CORRIDOR_RAIL_ABI_MAJOR, CORRIDOR_RAIL_ABI_MINOR);
}

// A SQLite database that does not exist yet: its status is read without creating the file.
bool missing_sqlite_file(const database_url& url) {
    return url.backend == database_backend::sqlite && url.connect_string != ":memory:" &&
           !std::filesystem::exists(url.connect_string);
}

json::object status_json(const database_url& url, const schema_status& status) {
    json::array pending, unknown;
    for (const auto& step : status.pending) {
        pending.push_back(json::object{{"version", step.version}, {"name", step.name}});
    }
    for (int version : status.unknown) unknown.push_back(version);
    return json::object{{"database", url.redacted()},
                        {"databaseVersion", status.database_version},
                        {"binaryVersion", status.binary_version},
                        {"pending", std::move(pending)},
                        {"unknown", std::move(unknown)},
                        {"newerThanBinary", status.newer_than_binary()},
                        {"current", status.current()}};
}

void print_status(const database_url& url, const schema_status& status, bool dry_run) {
    std::cout << "database " << url.redacted() << "\n"
              << "schema version: database " << status.database_version << ", this binary "
              << status.binary_version << "\n";
    if (status.newer_than_binary()) return;
    if (status.pending.empty()) {
        std::cout << (dry_run ? "nothing to apply: " : "") << "the schema is up to date\n";
        return;
    }
    std::cout << (dry_run ? "would apply " : "pending: ") << status.pending.size()
              << " migration(s)" << (dry_run ? " (nothing written):" : ":") << "\n";
    for (const auto& step : status.pending) {
        std::cout << fmt::format("  {:>4}  {}\n", step.version, step.name);
    }
}

schema_status status_of(const database_url& url) {
    if (missing_sqlite_file(url)) {
        schema_status status;
        status.binary_version = latest_migration_version();
        status.pending = known_migrations();
        return status;
    }
    auto session = open_session(url);
    return read_schema_status(*session);
}

}  // namespace

int version_command(const std::vector<std::string>& args, bool one_line) {
    const auto& build = this_build();
    // --config and --database are taken (and ignored) as by every command, for scripts.
    auto options = common_options();
    if (!one_line) options.add_options()("json", "print JSON");
    auto values = parse(args, options);
    if (one_line) {
        std::cout << fmt::format("corridor {} (revision {}, schema {}, rail ABI {})\n", build.version,
                                 build.git_revision, latest_migration_version(), rail_abi_text());
        return 0;
    }
    if (values.count("json")) {
        std::cout << json::serialize(json::object{{"version", build.version},
                                                  {"gitRevision", build.git_revision},
                                                  {"schemaVersion", latest_migration_version()},
                                                  {"railAbi", rail_abi_text()}})
                  << std::endl;
        return 0;
    }
    std::cout << "corridor " << build.version << "\nrevision " << build.git_revision
              << "\nschema version " << latest_migration_version() << "\nrail ABI "
              << rail_abi_text() << std::endl;
    return 0;
}

int migrate_command(const std::vector<std::string>& args) {
    auto options = common_options();
    options.add_options()("status", "show applied and pending migrations")(
        "dry-run", "show what would be applied, write nothing")("json", "print JSON");
    auto values = parse(args, options);
    bool status_only = values.count("status") > 0, dry_run = values.count("dry-run") > 0;
    if (status_only && dry_run) throw usage_error("--status and --dry-run do not go together");
    bool as_json = values.count("json") > 0;
    auto config = load_config(values);
    auto url = *database_url::parse(config.database);
    if (status_only || dry_run) {
        auto status = status_of(url);
        if (as_json) {
            auto body = status_json(url, status);
            if (dry_run) body["dryRun"] = true;
            std::cout << json::serialize(body) << std::endl;
        } else {
            print_status(url, status, dry_run);
        }
        // A newer database is reported, and fails the command, even when only looking.
        if (status.newer_than_binary())
            throw schema_newer_than_binary(newer_schema_message(status));
        return 0;
    }
    auto session = open_session(url);
    auto before = read_schema_status(*session);
    if (before.newer_than_binary()) throw schema_newer_than_binary(newer_schema_message(before));
    int applied = apply_migrations(*session);
    // Keys stored in clear by older versions are sealed as part of the upgrade.
    prepare_keys_at_rest(config, *session);
    restrict_database_files(config.database);
    auto after = read_schema_status(*session);
    if (as_json) {
        std::cout << json::serialize(json::object{{"database", url.redacted()},
                                                  {"applied", applied},
                                                  {"databaseVersion", after.database_version},
                                                  {"binaryVersion", after.binary_version}})
                  << std::endl;
        return 0;
    }
    std::cout << "applied " << applied << " migration(s); schema at version "
              << after.database_version << std::endl;
    return 0;
}

session_ptr open_current(const service_config& config) {
    auto url = *database_url::parse(config.database);
    if (missing_sqlite_file(url)) {
        throw std::runtime_error("no database at " + url.redacted() +
                                 ": create it with `corridor migrate` (or start `corridor serve`)");
    }
    auto session = open_session(url);
    require_current_schema(*session);
    return session;
}

void prepare_schema_for_serve(const service_config& config, bool migrate) {
    if (migrate) {
        open_migrated(config);
        return;
    }
    auto url = *database_url::parse(config.database);
    if (missing_sqlite_file(url)) {
        throw std::runtime_error("no database at " + url.redacted() +
                                 " and migrations are off (--no-migrate or migrate_on_start "
                                 "false): run `corridor migrate` first");
    }
    auto session = open_session(url);
    require_current_schema(*session);
}

}  // namespace corridor
