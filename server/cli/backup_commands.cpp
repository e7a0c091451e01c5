#include "server/cli/backup_commands.hpp"

#include "server/cli/cli_internal.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <boost/program_options.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "ledger/store/database.hpp"
#include "ledger/store/migrations.hpp"
#include "ledger/base/time_format.hpp"
#include "server/process/build_info.hpp"
#include "server/process/config.hpp"

namespace corridor {
namespace {

namespace fs = std::filesystem;
namespace po = boost::program_options;
namespace json = boost::json;

constexpr const char* manifest_name = "manifest.json";
constexpr const char* database_entry = "database/corridor.db";
constexpr const char* rail_data_entry = "rail-data";
constexpr const char* kek_entry = "keys/key-encryption.key";
constexpr const char* spark_key_entry = "keys/spark-node.key";
constexpr const char* postgresql_note =
    "the PostgreSQL database is not part of this backup: copy it with the standard tools, "
    "pg_dump (for example pg_dump --format=custom --file=corridor.dump URL, restored with "
    "pg_restore) or pg_basebackup (a physical copy, with WAL archiving for point-in-time "
    "recovery); keep that copy with this folder, whose key-encryption key opens its keys";

[[noreturn]] void fail(const std::string& message) {
    throw std::runtime_error(message);
}

// Where this configuration keeps each thing a backup holds.
struct locations {
    std::optional<database_url> database;
    std::string rail_data_dir;
    std::string key_encryption_key_file;
    std::string spark_node_key_file;  // "" when the spark rail has no key file
};

std::string spark_key_file(const service_config& config, const std::string& config_dir) {
    auto found = config.plugins_settings.find("spark");
    if (found == config.plugins_settings.end()) return "";
    boost::system::error_code error;
    json::value settings = json::parse(found->second, error);
    if (error || !settings.is_object()) return "";
    const json::value* file = settings.as_object().if_contains("node_private_key_file");
    if (file == nullptr || !file->is_string() || file->as_string().empty()) return "";
    fs::path path(std::string(file->as_string()));
    if (path.is_relative()) path = fs::path(config_dir.empty() ? "." : config_dir) / path;
    return path.lexically_normal().string();
}

locations locations_of(const service_config& config, const std::string& config_dir) {
    return locations{database_url::parse(config.database), config.rails_data_dir,
                     config.key_encryption_key_file, spark_key_file(config, config_dir)};
}

std::string sha256_of(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) fail("cannot read " + file.string());
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> digest(EVP_MD_CTX_new(),
                                                                   EVP_MD_CTX_free);
    EVP_DigestInit_ex(digest.get(), EVP_sha256(), nullptr);
    std::vector<char> buffer(1 << 16);
    while (in) {
        in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        EVP_DigestUpdate(digest.get(), buffer.data(), static_cast<std::size_t>(in.gcount()));
    }
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    EVP_DigestFinal_ex(digest.get(), out, &size);
    static constexpr char hex[] = "0123456789abcdef";
    std::string text;
    for (unsigned int i = 0; i < size; ++i) {
        text += hex[out[i] >> 4];
        text += hex[out[i] & 0xf];
    }
    return text;
}

void fsync_path(const fs::path& path, bool directory) {
    int fd = ::open(path.c_str(), (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
    if (fd < 0) return;
    ::fsync(fd);
    ::close(fd);
}

void make_private_dir(const fs::path& dir) {
    std::error_code error;
    fs::create_directories(dir, error);
    if (error) fail("cannot create " + dir.string() + ": " + error.message());
    if (::chmod(dir.c_str(), 0700) != 0) fail("cannot set the mode of " + dir.string());
}

// Copies one file as the owner's alone (0600), flushed to disk before it is renamed into place,
// so that a crash leaves the old file or the whole new one.
void copy_private_file(const fs::path& from, const fs::path& to) {
    std::ifstream in(from, std::ios::binary);
    if (!in) fail("cannot read " + from.string() + ": " + std::strerror(errno));
    fs::path temporary = to;
    temporary += ".partial";
    int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) fail("cannot create " + temporary.string() + ": " + std::strerror(errno));
    ::fchmod(fd, 0600);
    std::vector<char> buffer(1 << 16);
    bool ok = true;
    while (ok && in) {
        in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        auto size = static_cast<std::size_t>(in.gcount());
        for (std::size_t done = 0; ok && done < size;) {
            ssize_t wrote = ::write(fd, buffer.data() + done, size - done);
            ok = wrote > 0;
            if (ok) done += static_cast<std::size_t>(wrote);
        }
    }
    ok = ok && ::fsync(fd) == 0;
    ::close(fd);
    if (!ok || in.bad()) {
        ::unlink(temporary.c_str());
        fail("cannot write " + to.string());
    }
    fs::rename(temporary, to);
}

// Every regular file under `from`, as paths relative to it; node.lock is a process's lock, not
// state.
std::vector<fs::path> files_under(const fs::path& from) {
    std::vector<fs::path> out;
    if (!fs::exists(from)) return out;
    for (const auto& entry : fs::recursive_directory_iterator(from)) {
        if (!entry.is_regular_file()) continue;
        fs::path relative = fs::relative(entry.path(), from);
        if (relative == "node.lock") continue;
        out.push_back(relative);
    }
    return out;
}

bool non_empty_dir(const fs::path& dir) {
    return fs::is_directory(dir) && !fs::is_empty(dir);
}

struct sqlite_handle {
    sqlite3* db = nullptr;
    ~sqlite_handle() { sqlite3_close(db); }
};

void sqlite_exec(sqlite3* db, const char* sql, const std::string& file) {
    char* message = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
        std::string text = message ? message : "unknown error";
        sqlite3_free(message);
        fail("SQLite " + file + ": " + text);
    }
}

// SQLite's online backup API: one step over all pages inside one read transaction, so the copy is
// the database as of one commit while the server goes on writing (WAL readers never block the
// writer). The copy is then switched out of WAL mode so that it is one self-contained file.
int sqlite_online_backup(const std::string& source, const fs::path& target) {
    sqlite_handle from, to;
    if (sqlite3_open_v2(source.c_str(), &from.db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        fail("cannot open the database " + source + ": " +
             (from.db ? sqlite3_errmsg(from.db) : "out of memory"));
    }
    sqlite3_busy_timeout(from.db, 5000);
    int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) fail("cannot create " + target.string() + ": " + std::strerror(errno));
    ::close(fd);
    if (sqlite3_open_v2(target.c_str(), &to.db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        fail("cannot open " + target.string());
    }
    sqlite3_backup* backup = sqlite3_backup_init(to.db, "main", from.db, "main");
    if (backup == nullptr)
        fail("cannot start the backup of " + source + ": " + sqlite3_errmsg(to.db));
    int rc = SQLITE_OK;
    for (int attempt = 0; attempt < 600; ++attempt) {
        rc = sqlite3_backup_step(backup, -1);
        if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    sqlite3_backup_finish(backup);
    if (rc != SQLITE_DONE) fail("the backup of " + source + " failed: " + sqlite3_errstr(rc));
    sqlite_exec(to.db, "PRAGMA journal_mode=DELETE", target.string());
    int version = 0;
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(to.db, "SELECT MAX(version) FROM schema_migrations", -1, &statement,
                           nullptr) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW) {
        version = sqlite3_column_int(statement, 0);
    }
    sqlite3_finalize(statement);
    return version;
}

void check_sqlite_copy(const fs::path& file) {
    sqlite_handle db;
    if (sqlite3_open_v2(file.c_str(), &db.db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        fail("cannot open the copied database " + file.string());
    }
    sqlite3_stmt* statement = nullptr;
    std::string verdict;
    if (sqlite3_prepare_v2(db.db, "PRAGMA quick_check", -1, &statement, nullptr) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW) {
        verdict = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
    }
    sqlite3_finalize(statement);
    if (verdict != "ok")
        fail("the copied database " + file.string() + " fails its check: " + verdict);
}

struct manifest_entry {
    std::string path, role;
    std::uintmax_t bytes = 0;
    std::string sha256;
};

manifest_entry describe(const fs::path& dir, const std::string& path, const std::string& role) {
    fs::path file = dir / path;
    return manifest_entry{path, role, fs::file_size(file), sha256_of(file)};
}

po::options_description options_for(const std::string& command) {
    auto options = common_options();
    if (command == "backup") {
        options.add_options()("to", po::value<std::string>(), "backup folder (new or empty)");
    } else {
        options.add_options()("from", po::value<std::string>(), "backup folder")(
            "force", "replace what exists at the configured locations");
    }
    return options;
}

int backup(const std::vector<std::string>& args) {
    auto values = parse(args, options_for("backup"));
    if (!values.count("to") || values["to"].as<std::string>().empty())
        fail("backup needs --to DIR");
    fs::path dir = values["to"].as<std::string>();
    auto config = load_config(values);
    auto where = locations_of(config, config_dir_of(config));
    if (fs::exists(dir) && (!fs::is_directory(dir) || !fs::is_empty(dir))) {
        fail("backup folder " + dir.string() + " exists and is not empty; give a new folder");
    }
    make_private_dir(dir);

    std::vector<manifest_entry> files;
    json::object database;
    int schema_version = 0;
    if (where.database->backend == database_backend::sqlite) {
        make_private_dir(dir / "database");
        schema_version = sqlite_online_backup(where.database->connect_string, dir / database_entry);
        check_sqlite_copy(dir / database_entry);
        files.push_back(describe(dir, database_entry, "database"));
        database = {{"kind", "sqlite"}, {"file", database_entry}};
    } else {
        auto session = open_session(*where.database);
        schema_version = applied_migration_version(*session);
        database = {{"kind", "postgresql"}, {"file", nullptr}, {"note", postgresql_note}};
    }
    // Rail folders and key files are copied after the database: a rail's files then know at least
    // every operation the database copy hands it (a rail re-initiates what it no longer knows).
    for (const auto& relative : files_under(where.rail_data_dir)) {
        fs::path target = dir / rail_data_entry / relative;
        make_private_dir(target.parent_path());
        copy_private_file(fs::path(where.rail_data_dir) / relative, target);
        files.push_back(
            describe(dir, (fs::path(rail_data_entry) / relative).string(), "rail_data"));
    }
    std::vector<std::string> missing;
    auto copy_key = [&](const std::string& from, const char* entry, const char* role) {
        if (from.empty()) return;
        if (!fs::exists(from)) {
            missing.push_back(from);
            return;
        }
        make_private_dir(dir / "keys");
        copy_private_file(from, dir / entry);
        files.push_back(describe(dir, entry, role));
    };
    copy_key(where.key_encryption_key_file, kek_entry, "key_encryption_key");
    copy_key(where.spark_node_key_file, spark_key_entry, "spark_node_key");

    json::array listed;
    for (const auto& file : files) {
        listed.push_back(json::object{{"path", file.path},
                                      {"role", file.role},
                                      {"bytes", file.bytes},
                                      {"sha256", file.sha256}});
    }
    auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
    json::object manifest{{"format", 1},
                          {"createdAt", format_timestamp_ms(now_ms)},
                          {"version", std::string(this_build().version)},
                          {"gitRevision", std::string(this_build().git_revision)},
                          {"schemaVersion", schema_version},
                          {"database", database},
                          {"files", listed}};
    fs::path manifest_file = dir / manifest_name;
    int fd = ::open(manifest_file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) fail("cannot create " + manifest_file.string() + ": " + std::strerror(errno));
    std::string text = json::serialize(manifest) + "\n";
    bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
              ::fsync(fd) == 0;
    ::close(fd);
    if (!ok) fail("cannot write " + manifest_file.string());
    fsync_path(dir, true);

    std::cout << "backup written to " << dir.string() << " (schema version " << schema_version
              << ", " << files.size() << " file(s))\n";
    if (where.database->backend == database_backend::postgresql) {
        std::cout << "note: " << postgresql_note << "\n";
    }
    for (const auto& file : missing)
        std::cout << "note: " << file << " does not exist; not copied\n";
    std::cout << std::flush;
    return 0;
}

json::object read_manifest(const fs::path& dir) {
    std::ifstream in(dir / manifest_name);
    if (!in) fail(dir.string() + " holds no " + manifest_name + ": not a corridor backup");
    std::stringstream text;
    text << in.rdbuf();
    boost::system::error_code error;
    json::value parsed = json::parse(text.str(), error);
    if (error || !parsed.is_object() || !parsed.as_object().contains("files") ||
        !parsed.as_object().at("files").is_array() || !parsed.as_object().contains("database")) {
        fail(dir.string() + "/" + manifest_name + " is not a corridor backup manifest");
    }
    return parsed.as_object();
}

// Every listed file is present, of its size and hash; names stay inside the folder.
std::vector<manifest_entry> verify_files(const fs::path& dir, const json::object& manifest) {
    std::vector<manifest_entry> out;
    for (const auto& item : manifest.at("files").as_array()) {
        const json::object* file = item.if_object();
        if (file == nullptr || !file->contains("path") || !file->at("path").is_string() ||
            !file->contains("sha256") || !file->contains("role") || !file->contains("bytes")) {
            fail("the manifest of " + dir.string() +
                 " lists a file without path, role, bytes and sha256");
        }
        manifest_entry entry{std::string(file->at("path").as_string()),
                             json::value_to<std::string>(file->at("role")),
                             json::value_to<std::uintmax_t>(file->at("bytes")),
                             json::value_to<std::string>(file->at("sha256"))};
        fs::path relative(entry.path);
        if (relative.is_absolute() || relative.lexically_normal().string().starts_with("..")) {
            fail("the manifest names a file outside the backup: " + entry.path);
        }
        fs::path path = dir / relative;
        if (!fs::is_regular_file(path)) fail("the backup is missing " + entry.path);
        if (fs::file_size(path) != entry.bytes || sha256_of(path) != entry.sha256) {
            fail("the backup is damaged: " + entry.path +
                 " does not match its SHA-256 in the manifest");
        }
        out.push_back(std::move(entry));
    }
    return out;
}

// A serving process holds the lock of its rails folder (rails_runtime's node.lock) while it runs:
// replacing files under it, even with --force, would corrupt what it writes next.
void refuse_when_serving(const std::string& rail_data_dir) {
    fs::path lock = fs::path(rail_data_dir) / "node.lock";
    if (rail_data_dir.empty() || !fs::exists(lock)) return;
    int fd = ::open(lock.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return;
    bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    ::close(fd);
    if (held) {
        fail("a corridor process is running on " + rail_data_dir +
             " (it holds node.lock): stop it before restoring");
    }
}

int restore(const std::vector<std::string>& args) {
    auto values = parse(args, options_for("restore"));
    if (!values.count("from") || values["from"].as<std::string>().empty()) {
        fail("restore needs --from DIR");
    }
    fs::path dir = values["from"].as<std::string>();
    bool force = values.count("force") > 0;
    auto manifest = read_manifest(dir);
    auto files = verify_files(dir, manifest);
    auto config = load_config(values);
    auto where = locations_of(config, config_dir_of(config));
    refuse_when_serving(where.rail_data_dir);
    const json::object& database = manifest.at("database").as_object();
    bool sqlite_backup = database.contains("kind") && database.at("kind").is_string() &&
                         database.at("kind").as_string() == "sqlite";
    bool sqlite_target = where.database->backend == database_backend::sqlite;
    if (sqlite_backup && !sqlite_target) {
        fail("the backup holds a SQLite database but the configuration names PostgreSQL (" +
             where.database->redacted() + ")");
    }

    auto has_role = [&](const std::string& role) {
        for (const auto& file : files) {
            if (file.role == role) return true;
        }
        return false;
    };
    std::vector<std::string> in_the_way;
    std::string database_file = sqlite_target ? where.database->connect_string : "";
    if (sqlite_backup && fs::exists(database_file) && fs::file_size(database_file) > 0) {
        in_the_way.push_back(database_file);
    }
    if (has_role("rail_data") && non_empty_dir(where.rail_data_dir)) {
        in_the_way.push_back(where.rail_data_dir);
    }
    if (has_role("key_encryption_key") && fs::exists(where.key_encryption_key_file)) {
        in_the_way.push_back(where.key_encryption_key_file);
    }
    if (has_role("spark_node_key") && !where.spark_node_key_file.empty() &&
        fs::exists(where.spark_node_key_file)) {
        in_the_way.push_back(where.spark_node_key_file);
    }
    if (!in_the_way.empty() && !force) {
        std::string list;
        for (const auto& path : in_the_way) list += "\n  " + path;
        fail(
            "restore would overwrite what exists (stop the server and give --force to replace "
            "it):" +
            list);
    }

    std::vector<std::string> skipped;
    for (const auto& file : files) {
        fs::path from = dir / file.path;
        if (file.role == "database") {
            if (!sqlite_backup) continue;
            fs::path target(database_file);
            make_private_dir(target.has_parent_path() ? target.parent_path() : ".");
            // A WAL or shared-memory file of the database being replaced would be replayed
            // over the restored one.
            for (const char* suffix : {"-wal", "-shm", "-journal"}) {
                fs::remove(fs::path(database_file + suffix));
            }
            copy_private_file(from, target);
        } else if (file.role == "rail_data") {
            if (where.rail_data_dir.empty()) continue;
            fs::path relative = fs::path(file.path).lexically_relative(rail_data_entry);
            fs::path target = fs::path(where.rail_data_dir) / relative;
            make_private_dir(target.parent_path());
            copy_private_file(from, target);
        } else if (file.role == "key_encryption_key" || file.role == "spark_node_key") {
            const std::string& to = file.role == "key_encryption_key"
                                        ? where.key_encryption_key_file
                                        : where.spark_node_key_file;
            if (to.empty()) {
                skipped.push_back(file.path + " (the configuration sets no spark node key file)");
                continue;
            }
            fs::path target(to);
            if (target.has_parent_path() && !fs::exists(target.parent_path())) {
                make_private_dir(target.parent_path());
            }
            copy_private_file(from, target);
        }
    }
    // Files of the replaced rail folder that the backup does not hold would describe operations
    // the restored database does not know; --force replaces the folder whole.
    if (force && has_role("rail_data")) {
        std::set<fs::path> kept;
        for (const auto& file : files) {
            if (file.role == "rail_data")
                kept.insert(fs::path(file.path).lexically_relative(rail_data_entry));
        }
        for (const auto& relative : files_under(where.rail_data_dir)) {
            if (!kept.contains(relative)) fs::remove(fs::path(where.rail_data_dir) / relative);
        }
    }
    std::cout << "restored " << files.size() << " file(s) from " << dir.string();
    if (manifest.contains("schemaVersion")) {
        std::cout << " (schema version " << json::serialize(manifest.at("schemaVersion")) << ")";
    }
    std::cout << "\n";
    if (!sqlite_backup) {
        std::cout << "note: the database is not restored by corridor restore: restore the "
                     "PostgreSQL copy made beside this backup with pg_restore (or from its "
                     "pg_basebackup) before starting corridor\n";
    }
    for (const auto& line : skipped) std::cout << "note: not restored: " << line << "\n";
    std::cout << std::flush;
    return 0;
}

}  // namespace

int backup_command(const std::string& command, const std::vector<std::string>& args) {
    return command == "backup" ? backup(args) : restore(args);
}

}  // namespace corridor
