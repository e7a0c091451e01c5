#include "ledger/base/time_format.hpp"

#include <chrono>
#include <cstdio>

namespace corridor {
namespace {

bool read_digits(std::string_view text, std::size_t at, std::size_t count, int& out) {
    if (at + count > text.size()) return false;
    int value = 0;
    for (std::size_t i = at; i < at + count; ++i) {
        if (text[i] < '0' || text[i] > '9') return false;
        value = value * 10 + (text[i] - '0');
    }
    out = value;
    return true;
}

std::optional<std::chrono::sys_days> parse_date(std::string_view text) {
    int year = 0, month = 0, day = 0;
    if (text.size() < 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
    if (!read_digits(text, 0, 4, year) || !read_digits(text, 5, 2, month) ||
        !read_digits(text, 8, 2, day)) {
        return std::nullopt;
    }
    std::chrono::year_month_day date{std::chrono::year{year},
                                     std::chrono::month{static_cast<unsigned>(month)},
                                     std::chrono::day{static_cast<unsigned>(day)}};
    if (!date.ok()) return std::nullopt;
    return std::chrono::sys_days{date};
}

}  // namespace

std::string format_timestamp_ms(std::int64_t epoch_ms) {
    using namespace std::chrono;
    sys_time<milliseconds> point{milliseconds{epoch_ms}};
    auto day_point = floor<days>(point);
    year_month_day date{day_point};
    hh_mm_ss time{point - day_point};
    int year = static_cast<int>(date.year());
    if (year >= 0 && year <= 9999) {
        // The common case, written digit by digit (snprintf costs more than the rest of the
        // rendering of a field); the same text as the general case below.
        char text[] = "0000-00-00T00:00:00.000Z";
        auto put = [&text](std::size_t at, int value, int width) {
            for (int i = width - 1; i >= 0; --i) {
                text[at + static_cast<std::size_t>(i)] = static_cast<char>('0' + value % 10);
                value /= 10;
            }
        };
        put(0, year, 4);
        put(5, static_cast<int>(static_cast<unsigned>(date.month())), 2);
        put(8, static_cast<int>(static_cast<unsigned>(date.day())), 2);
        put(11, static_cast<int>(time.hours().count()), 2);
        put(14, static_cast<int>(time.minutes().count()), 2);
        put(17, static_cast<int>(time.seconds().count()), 2);
        put(20, static_cast<int>(time.subseconds().count()), 3);
        return std::string(text, sizeof text - 1);
    }
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ",
                  static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                  static_cast<unsigned>(date.day()), static_cast<int>(time.hours().count()),
                  static_cast<int>(time.minutes().count()),
                  static_cast<int>(time.seconds().count()),
                  static_cast<int>(time.subseconds().count()));
    return buffer;
}

bool is_calendar_date(std::string_view text) {
    return text.size() == 10 && parse_date(text).has_value();
}

std::optional<std::int64_t> parse_timestamp_ms(std::string_view text) {
    using namespace std::chrono;
    auto date = parse_date(text);
    if (!date) return std::nullopt;
    std::int64_t ms = duration_cast<milliseconds>(date->time_since_epoch()).count();
    if (text.size() == 10) return ms;
    int hour = 0, minute = 0, second = 0;
    if (text.size() < 20 || (text[10] != 'T' && text[10] != 't') || text[13] != ':' ||
        text[16] != ':' || !read_digits(text, 11, 2, hour) || !read_digits(text, 14, 2, minute) ||
        !read_digits(text, 17, 2, second) || hour > 23 || minute > 59 || second > 60) {
        return std::nullopt;
    }
    ms += ((hour * 60 + minute) * 60 + second) * 1000LL;
    std::size_t at = 19;
    if (text[at] == '.') {
        ++at;
        std::size_t digits = 0;
        int millis = 0;
        while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
            if (digits < 3) millis = millis * 10 + (text[at] - '0');
            ++digits;
            ++at;
        }
        if (digits == 0 || digits > 9) return std::nullopt;
        for (std::size_t i = digits; i < 3; ++i) millis *= 10;
        ms += millis;
    }
    if (at >= text.size()) return std::nullopt;
    if ((text[at] == 'Z' || text[at] == 'z') && at + 1 == text.size()) return ms;
    if ((text[at] == '+' || text[at] == '-') && at + 6 == text.size() && text[at + 3] == ':') {
        int offset_hours = 0, offset_minutes = 0;
        if (!read_digits(text, at + 1, 2, offset_hours) ||
            !read_digits(text, at + 4, 2, offset_minutes) || offset_hours > 23 ||
            offset_minutes > 59) {
            return std::nullopt;
        }
        std::int64_t offset_ms = (offset_hours * 60 + offset_minutes) * 60000LL;
        return text[at] == '+' ? ms - offset_ms : ms + offset_ms;
    }
    return std::nullopt;
}

}  // namespace corridor
