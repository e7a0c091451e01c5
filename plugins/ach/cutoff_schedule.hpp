#pragma once
// Which ACH file an operation goes into. FedACH same-day windows close at 10:30, 14:45 and 16:45
// Eastern time on banking days (Monday to Friday except Federal Reserve holidays); an operation
// after the last window waits for the first window of the next banking day. The time is injected
// (Unix milliseconds), so tests pick any instant; Eastern time follows the US DST rules since 2007.
#include <cstdint>
#include <string>

namespace corridor::ach {

struct ach_window {
    int index = 0;                      // 0, 1, 2: which window of the day
    std::string business_date;          // YYYY-MM-DD, Eastern
    std::string effective_entry_date;   // YYMMDD, for the batch header
    std::int64_t deadline_unix_ms = 0;  // the input deadline of the window
    std::int64_t settlement_unix_ms = 0;
    std::string file_name_stem;  // e.g. "20260310-w1", one file per window
};

ach_window window_for(std::int64_t now_unix_ms);

// Exposed for tests: Monday-Friday and not a Federal Reserve holiday (fixed-date holidays falling
// on Sunday are observed on Monday; on Saturday they are not moved).
bool is_banking_day(int year, unsigned month, unsigned day);

// Eastern UTC offset in minutes (-240 in daylight time, -300 otherwise) at a UTC instant.
int eastern_offset_minutes(std::int64_t unix_ms);

}  // namespace corridor::ach
