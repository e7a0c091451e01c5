#pragma once
// ISO 8601 at the edge, integer milliseconds inside.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace corridor {

// "2025-10-13T08:30:00.123Z"
std::string format_timestamp_ms(std::int64_t epoch_ms);
// Accepts "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)" and a bare "YYYY-MM-DD" (midnight UTC).
std::optional<std::int64_t> parse_timestamp_ms(std::string_view text);
// A calendar date "YYYY-MM-DD" that exists (no 2023-02-30).
bool is_calendar_date(std::string_view text);

}  // namespace corridor
