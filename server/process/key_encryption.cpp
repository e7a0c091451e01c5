#include "server/process/key_encryption.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "ledger/store/database.hpp"
#include "ledger/base/random.hpp"
#include "ledger/platforms/webhook_keys.hpp"
#include "server/process/config.hpp"
#include "uma/sql_stores.hpp"

namespace corridor {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw std::runtime_error("key-encryption key file " + path + ": " + what);
}

// False when another process linked its key into place first.
bool write_new_key(const std::filesystem::path& file) {
    std::filesystem::path folder = file.has_parent_path() ? file.parent_path() : ".";
    if (!std::filesystem::exists(folder)) {
        std::error_code error;
        std::filesystem::create_directories(folder, error);
        if (error) fail(file.string(), "its folder cannot be created: " + error.message());
        ::chmod(folder.c_str(), 0700);
    }
    os_random random;
    std::string text = random_hex(random, 32) + "\n";
    std::filesystem::path temporary = file;
    temporary += ".tmp-" + random_hex(random, 8);
    int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) fail(file.string(), std::string("cannot be created: ") + std::strerror(errno));
    bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                   ::fsync(fd) == 0;
    ::close(fd);
    // link() never replaces: of two processes making a key at once, the first one's stays.
    int linked = written ? ::link(temporary.c_str(), file.c_str()) : -1;
    int link_errno = errno;
    ::unlink(temporary.c_str());
    if (!written) fail(file.string(), "cannot be written");
    if (linked != 0 && link_errno != EEXIST) {
        fail(file.string(), std::string("cannot be created: ") + std::strerror(link_errno));
    }
    int dir_fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd >= 0) {
        ::fsync(dir_fd);
        ::close(dir_fd);
    }
    return linked == 0;
}

}  // namespace

sealing_key load_key_encryption_key(const std::string& path, bool create, bool* made) {
    if (path.empty()) throw std::runtime_error("no key-encryption key file is configured");
    std::filesystem::path file(path);
    if (!std::filesystem::exists(file)) {
        if (!create) fail(path, "does not exist");
        bool wrote = write_new_key(file);
        if (made != nullptr) *made = wrote;
    }
    std::ifstream in(file);
    if (!in) fail(path, std::string("cannot be read: ") + std::strerror(errno));
    std::stringstream text;
    text << in.rdbuf();
    auto key = parse_sealing_key(text.str());
    if (!key) fail(path, "must hold 64 hex digits (openssl rand -hex 32)");
    return *key;
}

keys_at_rest prepare_keys_at_rest(const service_config& config, soci::session& session) {
    keys_at_rest report;
    auto kek = load_key_encryption_key(config.key_encryption_key_file, true, &report.made_key);
    install_key_encryption_key(kek);
    os_random random;
    write_transaction transaction(session);
    try {
        report.sealed += seal_stored_webhook_keys(session, kek, random);
        report.sealed += uma::seal_stored_uma_keys(session, kek, random);
    } catch (const soci::soci_error&) {
        throw;
    } catch (const std::runtime_error& error) {
        throw std::runtime_error(
            std::string(error.what()) + " (" + config.key_encryption_key_file +
            "): this database's keys were sealed with another key-encryption key. Configure the "
            "one it was used with (key_encryption_key_file); keys are never made anew, as "
            "webhook receivers and UMA counterparties hold their public halves");
    }
    transaction.commit();
    return report;
}

}  // namespace corridor
