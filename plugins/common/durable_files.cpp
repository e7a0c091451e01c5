#include "plugins/common/durable_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace corridor::plugin_files {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void fail(const fs::path& path, const std::string& what) {
    throw std::runtime_error(what + " " + path.string() + ": " + std::strerror(errno));
}

// Writes all of text at offset, retrying short writes.
bool write_all(int fd, std::string_view text, off_t offset) {
    while (!text.empty()) {
        ssize_t n = ::pwrite(fd, text.data(), text.size(), offset);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        text.remove_prefix(static_cast<std::size_t>(n));
        offset += n;
    }
    return true;
}

class descriptor {
public:
    explicit descriptor(int fd) : fd_(fd) {}
    ~descriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    descriptor(const descriptor&) = delete;
    descriptor& operator=(const descriptor&) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

}  // namespace

void sync_folder(const fs::path& folder) {
    descriptor dir(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() < 0 || ::fsync(dir.get()) != 0) fail(folder, "cannot sync the folder");
}

void write_whole_file(const fs::path& path, std::string_view text) {
    fs::path temporary = path;
    temporary += ".tmp";
    {
        descriptor out(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
        if (out.get() < 0) fail(temporary, "cannot create");
        if (!write_all(out.get(), text, 0) || ::fsync(out.get()) != 0)
            fail(temporary, "cannot write");
    }
    if (::rename(temporary.c_str(), path.c_str()) != 0) fail(path, "cannot rename into");
    sync_folder(path.parent_path());
}

std::string read_whole_file(const fs::path& path) {
    descriptor in(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (in.get() < 0) fail(path, "cannot open");
    std::string text;
    char buffer[65536];
    for (;;) {
        ssize_t n = ::read(in.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail(path, "cannot read");
        if (n == 0) return text;
        text.append(buffer, static_cast<std::size_t>(n));
    }
}

line_log::line_log(fs::path path) : path_(std::move(path)) {
    fs::create_directories(path_.parent_path());
    std::string text = fs::exists(path_) ? read_whole_file(path_) : std::string();
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
        lines_at_open_.emplace_back(text, start, end - start);
    size_ = static_cast<long long>(start);
    bool torn = start != text.size();
    cut_at_open_ = static_cast<long long>(text.size() - start);
    open_for_append();
    if (torn) {
        // A crash in the middle of an append that never returned: that line was never promised.
        if (::ftruncate(fd_, size_) != 0 || ::fsync(fd_) != 0) fail(path_, "cannot repair");
    }
}

line_log::~line_log() {
    if (fd_ >= 0) ::close(fd_);
}

void line_log::open_for_append() {
    bool created = !fs::exists(path_);
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) fail(path_, "cannot open");
    if (created) sync_folder(path_.parent_path());
}

void line_log::append(std::string_view line) {
    std::string record(line);
    record += '\n';
    if (!write_all(fd_, record, size_) || ::fsync(fd_) != 0) {
        int error = errno;
        (void)::ftruncate(fd_, size_);  // best effort: what is past size_ was never promised
        errno = error;
        fail(path_, "cannot append to");
    }
    size_ += static_cast<long long>(record.size());
}

void line_log::rewrite(const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& line : lines) text += line + '\n';
    write_whole_file(path_, text);
    ::close(fd_);
    fd_ = -1;
    open_for_append();
    size_ = static_cast<long long>(text.size());
}

folder_lock::folder_lock(const fs::path& folder) {
    fs::create_directories(folder);
    fs::path path = folder / "lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) fail(path, "cannot open");
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd_);
        fd_ = -1;
    }
}

folder_lock::~folder_lock() {
    if (fd_ >= 0) ::close(fd_);
}

}  // namespace corridor::plugin_files
