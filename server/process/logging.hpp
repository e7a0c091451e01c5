#pragma once
// The process's log: one JSON object per line, every line with "time" (RFC 3339 UTC with
// milliseconds), "level", "message" and the line's own fields. Written to stderr, or to the
// log.file of the configuration (opened 0600, reopened on SIGHUP for logrotate). Every spdlog
// logger of the process writes through it; the "access" logger carries pre-rendered JSON objects
// (one per line) whose keys become the line's fields.
#include <chrono>
#include <string>
#include <string_view>

namespace corridor {

// Sends every log line to stderr (an empty `file`) or to `file`, at `level` and above (a spdlog
// level name). Throws std::runtime_error naming the file when it cannot be opened.
void install_json_logging(const std::string& level, const std::string& file = {});

// Opens log.file again under its name; lines written meanwhile go to the old file. Returns an
// empty string on success (or without a file), else why it failed (the old file stays in use).
std::string reopen_log_file();
// The file lines go to, empty for stderr.
const std::string& log_file_path();

// One line with fields: `fields_json` is a serialised JSON object ("{}" for none).
void log_info_fields(std::string_view message, std::string_view fields_json);


}  // namespace corridor
