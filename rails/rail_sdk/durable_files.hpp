// <corridor/rail_sdk/durable_files.hpp>: files a rail plugin keeps its state in (its data_dir),
// written so that a crash (power loss included) neither loses what the plugin acknowledged nor
// leaves a torn record behind. Header-only, POSIX.
//   write_whole_file  a temporary file beside the target, fsync, rename over it, fsync the folder.
//   line_log          an append-only journal of lines; append() returns once the line is on disk.
//                     A last line without its newline (a crash during an append that never
//                     returned) is cut off when the journal is opened again.
//   folder_lock       an exclusive lock (flock) on FOLDER/lock for the object's life, so that one
//                     process at a time writes a folder; the kernel drops it when the process dies.
// Failures throw std::runtime_error naming the file (inside a hook the SDK's barrier turns that
// into CORRIDOR_RAIL_INTERNAL); nothing here is specific to one rail.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace corridor::rail_sdk::files {

inline void sync_folder(const std::filesystem::path& folder);
inline void write_whole_file(const std::filesystem::path& path, std::string_view text);
// The whole file; throws when it cannot be read.
inline std::string read_whole_file(const std::filesystem::path& path);

class line_log {
public:
    // Opens the log, creating it (and its folder) when missing, and reads its complete lines.
    explicit line_log(std::filesystem::path path);
    ~line_log();
    line_log(const line_log&) = delete;
    line_log& operator=(const line_log&) = delete;

    // The lines found when the log was opened, oldest first (not updated by append).
    const std::vector<std::string>& lines_at_open() const { return lines_at_open_; }
    // Bytes of a torn last line cut off when the log was opened (0 when it ended with a newline).
    long long cut_at_open() const { return cut_at_open_; }
    // Appends one line (no '\n' inside); durable when it returns. A failed append leaves the log
    // as it was.
    void append(std::string_view line);
    // Replaces the whole log with `lines`, atomically (write_whole_file).
    void rewrite(const std::vector<std::string>& lines);
    const std::filesystem::path& path() const { return path_; }

private:
    void open_for_append();

    std::filesystem::path path_;
    int fd_ = -1;
    long long size_ = 0;  // bytes of complete lines
    long long cut_at_open_ = 0;
    std::vector<std::string> lines_at_open_;
};

class folder_lock {
public:
    // Tries to take the lock, without waiting; held() says whether it did.
    explicit folder_lock(const std::filesystem::path& folder);
    ~folder_lock();
    folder_lock(const folder_lock&) = delete;
    folder_lock& operator=(const folder_lock&) = delete;
    bool held() const { return fd_ >= 0; }

private:
    int fd_ = -1;
};

namespace fs = std::filesystem;
namespace detail {

[[noreturn]] inline void fail(const fs::path& path, const std::string& what) {
    throw std::runtime_error(what + " " + path.string() + ": " + std::strerror(errno));
}

// Writes all of text at offset, retrying short writes.
inline bool write_all(int fd, std::string_view text, off_t offset) {
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

}  // namespace detail

inline void sync_folder(const fs::path& folder) {
    detail::descriptor dir(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() < 0 || ::fsync(dir.get()) != 0) detail::fail(folder, "cannot sync the folder");
}

inline void write_whole_file(const fs::path& path, std::string_view text) {
    fs::path temporary = path;
    temporary += ".tmp";
    {
        detail::descriptor out(
            ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
        if (out.get() < 0) detail::fail(temporary, "cannot create");
        if (!detail::write_all(out.get(), text, 0) || ::fsync(out.get()) != 0)
            detail::fail(temporary, "cannot write");
    }
    if (::rename(temporary.c_str(), path.c_str()) != 0) detail::fail(path, "cannot rename into");
    sync_folder(path.parent_path());
}

inline std::string read_whole_file(const fs::path& path) {
    detail::descriptor in(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (in.get() < 0) detail::fail(path, "cannot open");
    std::string text;
    char buffer[65536];
    for (;;) {
        ssize_t n = ::read(in.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) detail::fail(path, "cannot read");
        if (n == 0) return text;
        text.append(buffer, static_cast<std::size_t>(n));
    }
}

inline line_log::line_log(fs::path path) : path_(std::move(path)) {
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
        if (::ftruncate(fd_, size_) != 0 || ::fsync(fd_) != 0) detail::fail(path_, "cannot repair");
    }
}

inline line_log::~line_log() {
    if (fd_ >= 0) ::close(fd_);
}

inline void line_log::open_for_append() {
    bool created = !fs::exists(path_);
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) detail::fail(path_, "cannot open");
    if (created) sync_folder(path_.parent_path());
}

inline void line_log::append(std::string_view line) {
    std::string record(line);
    record += '\n';
    if (!detail::write_all(fd_, record, size_) || ::fsync(fd_) != 0) {
        int error = errno;
        (void)::ftruncate(fd_, size_);  // best effort: what is past size_ was never promised
        errno = error;
        detail::fail(path_, "cannot append to");
    }
    size_ += static_cast<long long>(record.size());
}

inline void line_log::rewrite(const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& line : lines) text += line + '\n';
    write_whole_file(path_, text);
    ::close(fd_);
    fd_ = -1;
    open_for_append();
    size_ = static_cast<long long>(text.size());
}

inline folder_lock::folder_lock(const fs::path& folder) {
    fs::create_directories(folder);
    fs::path path = folder / "lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) detail::fail(path, "cannot open");
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd_);
        fd_ = -1;
    }
}

inline folder_lock::~folder_lock() {
    if (fd_ >= 0) ::close(fd_);
}

}  // namespace corridor::rail_sdk::files
