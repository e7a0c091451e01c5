#include "server/process/file_modes.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <boost/json.hpp>
#include <filesystem>

#include "ledger/store/database.hpp"
#include "server/process/config.hpp"

namespace corridor {
namespace fs = std::filesystem;
namespace {

constexpr fs::perms file_mode = fs::perms::owner_read | fs::perms::owner_write;
constexpr fs::perms folder_mode = fs::perms::owner_all;

// Narrows `path` to `mode` when it is wider; a file we cannot change (another owner) is reported,
// not fatal: the operator may have chosen that.
void narrow(const fs::path& path, fs::perms mode) {
    std::error_code error;
    auto status = fs::symlink_status(path, error);
    if (error || !fs::exists(status) || fs::is_symlink(status)) return;
    if ((status.permissions() & fs::perms::mask) == mode) return;
    fs::permissions(path, mode, fs::perm_options::replace, error);
    if (error)
        spdlog::warn("cannot restrict {} to mode {:o}: {}", path.string(), static_cast<int>(mode),
                     error.message());
}

void narrow_tree(const fs::path& root) {
    std::error_code error;
    if (!fs::is_directory(root, error)) return;
    narrow(root, folder_mode);
    for (auto it = fs::recursive_directory_iterator(
             root, fs::directory_options::skip_permission_denied, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
        const auto& entry = *it;
        if (entry.is_symlink(error)) continue;
        narrow(entry.path(), entry.is_directory(error) ? folder_mode : file_mode);
    }
}

void make_folder(const std::string& path) {
    if (path.empty()) return;
    std::error_code error;
    fs::create_directories(path, error);  // 0700 under the umask
    if (error) spdlog::warn("cannot make folder {}: {}", path, error.message());
}

}  // namespace

void restrict_folder_tree(const std::string& path) {
    if (!path.empty()) narrow_tree(path);
}

void restrict_umask() {
    ::umask(077);
}

void restrict_database_files(const std::string& database_url) {
    auto url = database_url::parse(database_url);
    if (!url || url->backend != database_backend::sqlite) return;
    const std::string& file = url->connect_string;
    if (file == ":memory:" || file.starts_with("file:")) return;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) narrow(file + suffix, file_mode);
}

void restrict_state_files(const service_config& config) {
    make_folder(config.rails_data_dir);
    narrow_tree(config.rails_data_dir);
    make_folder(config.bulk_import.dir);
    narrow_tree(config.bulk_import.dir);
    // The spark node key (made by prepare_spark_settings when missing) and the Lightning sandbox
    // network's folder.
    if (auto spark = config.plugins_settings.find("spark");
        spark != config.plugins_settings.end()) {
        boost::system::error_code ec;
        auto settings = boost::json::parse(spark->second, ec);
        if (!ec && settings.is_object()) {
            const auto& spark_settings = settings.as_object();
            if (auto* key = spark_settings.if_contains("node_private_key_file");
                key && key->is_string())
                narrow(std::string(key->as_string()), file_mode);
            if (auto* dir = spark_settings.if_contains("sandbox_network_dir");
                dir && dir->is_string())
                narrow_tree(std::string(dir->as_string()));
        }
    }
}

}  // namespace corridor
