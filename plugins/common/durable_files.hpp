#pragma once
// Files a rail plugin keeps its state in, written so that a crash (power loss included) neither
// loses what the plugin acknowledged nor leaves a torn record behind:
//   write_whole_file  a temporary file beside the target, fsync, rename over it, fsync the folder.
//   line_log          an append-only file of lines; append() returns once the line is on disk. A
//                     last line without its newline (a crash during an append that never returned)
//                     is cut off when the log is opened again.
//   folder_lock       an exclusive lock (flock) on FOLDER/lock for the object's life, so that one
//                     process at a time writes a folder; the kernel drops it when the process dies.
// Failures throw std::runtime_error naming the file; nothing here is specific to one rail.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace corridor::plugin_files {

void sync_folder(const std::filesystem::path& folder);
void write_whole_file(const std::filesystem::path& path, std::string_view text);
// The whole file; throws when it cannot be read.
std::string read_whole_file(const std::filesystem::path& path);

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

}  // namespace corridor::plugin_files
