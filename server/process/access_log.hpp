#pragma once
// The access-log line: one JSON object per request. Written by hand rather than through a
// boost::json::object because it runs once per request on the io thread; the bytes are the same as
// boost::json::serialize of the equivalent object (same keys, order and string escaping).
#include <cstdint>
#include <string>
#include <string_view>

namespace corridor {

struct access_entry {
    std::string_view request_id;
    std::string_view method;
    std::string_view path;  // without the query string: it can carry personal data
    int status = 0;
    std::int64_t duration_us = 0;
    std::uint64_t bytes_in = 0;
    std::uint64_t bytes_out = 0;
    std::string_view client_id;    // omitted when empty
    const std::string* remote = nullptr;  // omitted when null
};

// The path as it may be logged: bank-link and dashboard setup tokens (credentials carried in the
// path) become "***".
// Returns `path` itself when there is nothing to hide, else a view of `storage`.
std::string_view loggable_path(std::string_view path, std::string& storage);

// Appends `text` as a JSON string, quoted and escaped as boost::json::serialize does.
void append_json_string(std::string& out, std::string_view text);

// Appends the entry's JSON line, with its terminating '\n'.
void append_access_line(std::string& out, const access_entry& entry);

}  // namespace corridor
