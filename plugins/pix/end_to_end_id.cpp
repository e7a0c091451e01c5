#include "plugins/pix/end_to_end_id.hpp"

#include <ctime>

#include "rails/rail_sdk/formats/text.hpp"

namespace corridor::pix {
namespace {

using formats::make_error;

constexpr std::string_view alphabet =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
constexpr std::size_t random_part_length = 11;

int two_digits(std::string_view text, std::size_t at) {
    return (text[at] - '0') * 10 + (text[at + 1] - '0');
}

}  // namespace

formats::outcome<std::string> make_end_to_end_id(std::string_view ispb, std::int64_t now_unix_ms,
                                                 const random_bytes_fn& random_bytes, char prefix) {
    if (prefix != 'E' && prefix != 'D') return make_error("bad_prefix", "the prefix is E or D");
    if (ispb.size() != 8 || !formats::all_digits(ispb))
        return make_error("bad_ispb", "an ISPB has 8 digits");
    if (now_unix_ms < 0) return make_error("bad_time", "the time is before 1970");
    std::time_t seconds = static_cast<std::time_t>(now_unix_ms / 1000);
    std::tm parts{};
    gmtime_r(&seconds, &parts);
    char stamp[16];
    std::strftime(stamp, sizeof stamp, "%Y%m%d%H%M", &parts);

    std::string id;
    id.reserve(32);
    id += prefix;
    id += ispb;
    id += stamp;
    // Rejection sampling keeps the 62 characters equally likely (248 = 4 * 62).
    while (id.size() < 32) {
        std::uint8_t buffer[16];
        random_bytes(buffer, sizeof buffer);
        for (std::uint8_t byte : buffer)
            if (byte < 248 && id.size() < 32) id += alphabet[byte % alphabet.size()];
    }
    return id;
}

formats::verdict check_end_to_end_id(std::string_view id, char prefix) {
    if (id.size() != 32) return make_error("bad_length", "an end-to-end id has 32 characters");
    if (id[0] != prefix)
        return make_error("bad_prefix", std::string("an end-to-end id starts with ") + prefix);
    if (!formats::all_digits(id.substr(1, 20)))
        return make_error("bad_format", "ISPB and timestamp (characters 2-21) are digits");
    int month = two_digits(id, 13), day = two_digits(id, 15);
    int hour = two_digits(id, 17), minute = two_digits(id, 19);
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59)
        return make_error("bad_timestamp", "the timestamp is not a valid yyyyMMddHHmm");
    for (char c : id.substr(21, random_part_length))
        if (!formats::is_alnum(c))
            return make_error("bad_format", "the last 11 characters are letters or digits");
    return formats::valid;
}

}  // namespace corridor::pix
