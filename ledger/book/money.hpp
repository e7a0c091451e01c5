#pragma once
// Money is int64 minor units. Rates are exact rationals (Boost.Multiprecision integers), so no float
// ever touches an amount; a JSON number appears only when a rate is rendered at the edge.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/multiprecision/cpp_int.hpp>

namespace corridor {

using big_int = boost::multiprecision::cpp_int;

constexpr std::int64_t amount_max = 9'000'000'000'000'000;  // the interface's lockedCurrencyAmount cap

std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b);
std::optional<std::int64_t> checked_sub(std::int64_t a, std::int64_t b);
std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b);

// An exact positive-or-zero rational number; always kept in lowest terms with a positive denominator.
class rational {
public:
    rational() : numerator_(0), denominator_(1) {}
    rational(big_int numerator, big_int denominator);
    static rational integer(std::int64_t value) { return rational(value, 1); }
    // A plain decimal such as "17.0523" or "1e-3" is not accepted: digits with an optional point.
    static std::optional<rational> parse_decimal(std::string_view text);

    const big_int& numerator() const { return numerator_; }
    const big_int& denominator() const { return denominator_; }
    bool is_zero() const { return numerator_ == 0; }

    rational operator*(const rational& other) const;
    rational operator/(const rational& other) const;
    rational operator+(const rational& other) const;
    rational operator-(const rational& other) const;
    bool operator<(const rational& other) const;
    bool operator==(const rational& other) const = default;

    big_int floor() const;
    big_int ceil() const;
    // Nearest double, for rendering in JSON only.
    double to_double() const;
    // Decimal text with `digits` significant fractional digits, rounded half up; for storage/display.
    std::string to_decimal(int fraction_digits) const;

private:
    big_int numerator_;
    big_int denominator_;
};

// 10^exponent as a rational; exponent may be negative.
rational power_of_ten(int exponent);
// The big integer as int64 when it fits in [min, max].
std::optional<std::int64_t> fit_int64(const big_int& value, std::int64_t min, std::int64_t max);

}  // namespace corridor
