#include "plugins/ach/cutoff_schedule.hpp"

#include <cstdio>

namespace corridor::ach {
namespace {

constexpr std::int64_t minute_ms = 60'000;
constexpr std::int64_t day_ms = 86'400'000;

struct window_times {
    int deadline_minute;  // minutes after local midnight
    int settlement_minute;
};
constexpr window_times windows[] = {
    {10 * 60 + 30, 13 * 60}, {14 * 60 + 45, 17 * 60}, {16 * 60 + 45, 18 * 60}};

// Days since 1970-01-01 for a proleptic Gregorian date (H. Hinnant's algorithm).
std::int64_t days_from_civil(int year, unsigned month, unsigned day) {
    year -= month <= 2;
    const int era = (year >= 0 ? year : year - 399) / 400;
    const unsigned year_of_era = static_cast<unsigned>(year - era * 400);
    const unsigned day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    const unsigned day_of_era =
        year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return static_cast<std::int64_t>(era) * 146097 + static_cast<std::int64_t>(day_of_era) - 719468;
}

struct civil {
    int year;
    unsigned month;
    unsigned day;
};

civil civil_from_days(std::int64_t days) {
    days += 719468;
    const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    const unsigned day_of_era = static_cast<unsigned>(days - era * 146097);
    const unsigned year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
    const unsigned day_of_year =
        day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    const unsigned mp = (5 * day_of_year + 2) / 153;
    const unsigned day = day_of_year - (153 * mp + 2) / 5 + 1;
    const unsigned month = mp < 10 ? mp + 3 : mp - 9;
    const int year = static_cast<int>(year_of_era) + static_cast<int>(era) * 400 + (month <= 2);
    return {year, month, day};
}

unsigned weekday(std::int64_t days) {  // 0 = Sunday
    return static_cast<unsigned>(days >= -4 ? (days + 4) % 7 : (days + 5) % 7 + 6);
}

// The day of month of the n-th (1-based) given weekday, or of the last one when n = 0.
unsigned nth_weekday(int year, unsigned month, unsigned wanted, unsigned n) {
    if (n == 0) {
        unsigned next_month = month == 12 ? 1 : month + 1;
        int next_year = month == 12 ? year + 1 : year;
        std::int64_t last = days_from_civil(next_year, next_month, 1) - 1;
        unsigned back = (weekday(last) + 7 - wanted) % 7;
        return civil_from_days(last - back).day;
    }
    unsigned first = weekday(days_from_civil(year, month, 1));
    return 1 + (wanted + 7 - first) % 7 + 7 * (n - 1);
}

bool is_fixed_holiday(unsigned month, unsigned day) {
    return (month == 1 && day == 1) || (month == 6 && day == 19) || (month == 7 && day == 4) ||
           (month == 11 && day == 11) || (month == 12 && day == 25);
}

// 2:00 local on the second Sunday of March to 2:00 local on the first Sunday of November.
bool in_daylight_time(std::int64_t unix_ms) {
    civil date = civil_from_days(unix_ms >= 0 ? unix_ms / day_ms : (unix_ms - day_ms + 1) / day_ms);
    std::int64_t start = (days_from_civil(date.year, 3, nth_weekday(date.year, 3, 0, 2)) * day_ms) +
                         7 * 60 * minute_ms;  // 02:00 EST = 07:00 UTC
    std::int64_t end = (days_from_civil(date.year, 11, nth_weekday(date.year, 11, 0, 1)) * day_ms) +
                       6 * 60 * minute_ms;  // 02:00 EDT = 06:00 UTC
    return unix_ms >= start && unix_ms < end;
}

std::string two(unsigned value) {
    char text[3];
    std::snprintf(text, sizeof text, "%02u", value % 100);
    return text;
}

}  // namespace

int eastern_offset_minutes(std::int64_t unix_ms) {
    return in_daylight_time(unix_ms) ? -240 : -300;
}

bool is_banking_day(int year, unsigned month, unsigned day) {
    std::int64_t days = days_from_civil(year, month, day);
    unsigned week_day = weekday(days);
    if (week_day == 0 || week_day == 6) return false;
    if (is_fixed_holiday(month, day)) return false;
    // A fixed holiday on Sunday is observed on Monday.
    civil yesterday = civil_from_days(days - 1);
    if (week_day == 1 && is_fixed_holiday(yesterday.month, yesterday.day)) return false;
    struct floating {
        unsigned month, weekday, n;
    };
    static constexpr floating floating_holidays[] = {
        {1, 1, 3},   // Martin Luther King Jr. Day
        {2, 1, 3},   // Washington's Birthday
        {5, 1, 0},   // Memorial Day (last Monday)
        {9, 1, 1},   // Labor Day
        {10, 1, 2},  // Columbus Day
        {11, 4, 4},  // Thanksgiving
    };
    for (const auto& holiday : floating_holidays)
        if (month == holiday.month && day == nth_weekday(year, month, holiday.weekday, holiday.n))
            return false;
    return true;
}

ach_window window_for(std::int64_t now_unix_ms) {
    std::int64_t local_ms = now_unix_ms + eastern_offset_minutes(now_unix_ms) * minute_ms;
    std::int64_t local_day = local_ms >= 0 ? local_ms / day_ms : (local_ms - day_ms + 1) / day_ms;
    int minute_of_day = static_cast<int>((local_ms - local_day * day_ms) / minute_ms);
    // Seconds past the minute still count: 10:30:00.000 is the last instant of window 0.
    bool exact_minute = (local_ms - local_day * day_ms) % minute_ms == 0;

    for (std::int64_t day = local_day;; ++day, minute_of_day = -1, exact_minute = true) {
        civil date = civil_from_days(day);
        if (!is_banking_day(date.year, date.month, date.day)) continue;
        for (int index = 0; index < 3; ++index) {
            int deadline = windows[index].deadline_minute;
            bool open = minute_of_day < deadline || (minute_of_day == deadline && exact_minute);
            if (!open) continue;
            // Deadlines sit far from the 02:00 DST change, so the noon offset of the day applies.
            std::int64_t noon_utc = day * day_ms + 12 * 60 * minute_ms + 5 * 60 * minute_ms;
            std::int64_t offset_ms = eastern_offset_minutes(noon_utc) * minute_ms;
            ach_window window;
            window.index = index;
            window.business_date =
                std::to_string(date.year) + "-" + two(date.month) + "-" + two(date.day);
            window.effective_entry_date =
                two(static_cast<unsigned>(date.year % 100)) + two(date.month) + two(date.day);
            window.deadline_unix_ms = day * day_ms + deadline * minute_ms - offset_ms;
            window.settlement_unix_ms =
                day * day_ms + windows[index].settlement_minute * minute_ms - offset_ms;
            window.file_name_stem = std::to_string(date.year) + two(date.month) + two(date.day) +
                                    "-w" + std::to_string(index + 1);
            return window;
        }
    }
}

}  // namespace corridor::ach
