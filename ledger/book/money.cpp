#include "ledger/book/money.hpp"

#include <boost/multiprecision/cpp_dec_float.hpp>

#include <functional>
#include <limits>
#include <unordered_map>

#include "ledger/base/assert.hpp"

namespace corridor {

std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
    std::int64_t out = 0;
    if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
    return out;
}

std::optional<std::int64_t> checked_sub(std::int64_t a, std::int64_t b) {
    std::int64_t out = 0;
    if (__builtin_sub_overflow(a, b, &out)) return std::nullopt;
    return out;
}

std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
    std::int64_t out = 0;
    if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
    return out;
}

rational::rational(big_int numerator, big_int denominator)
    : numerator_(std::move(numerator)), denominator_(std::move(denominator)) {
    CORRIDOR_ASSERT(denominator_ != 0);
    if (denominator_ < 0) {
        numerator_ = -numerator_;
        denominator_ = -denominator_;
    }
    big_int divisor = boost::multiprecision::gcd(numerator_, denominator_);
    if (divisor > 1) {
        numerator_ /= divisor;
        denominator_ /= divisor;
    }
}

std::optional<rational> rational::parse_decimal(std::string_view text) {
    if (text.empty() || text.size() > 40) return std::nullopt;
    big_int numerator = 0;
    big_int denominator = 1;
    bool seen_point = false;
    bool seen_digit = false;
    for (char c : text) {
        if (c == '.') {
            if (seen_point) return std::nullopt;
            seen_point = true;
            continue;
        }
        if (c < '0' || c > '9') return std::nullopt;
        seen_digit = true;
        numerator = numerator * 10 + (c - '0');
        if (seen_point) denominator *= 10;
    }
    if (!seen_digit || text.back() == '.' || text.front() == '.') return std::nullopt;
    return rational(numerator, denominator);
}

rational rational::operator*(const rational& other) const {
    return rational(numerator_ * other.numerator_, denominator_ * other.denominator_);
}

rational rational::operator/(const rational& other) const {
    CORRIDOR_ASSERT(other.numerator_ != 0);
    return rational(numerator_ * other.denominator_, denominator_ * other.numerator_);
}

rational rational::operator+(const rational& other) const {
    return rational(numerator_ * other.denominator_ + other.numerator_ * denominator_,
                    denominator_ * other.denominator_);
}

rational rational::operator-(const rational& other) const {
    return rational(numerator_ * other.denominator_ - other.numerator_ * denominator_,
                    denominator_ * other.denominator_);
}

bool rational::operator<(const rational& other) const {
    return numerator_ * other.denominator_ < other.numerator_ * denominator_;
}

big_int rational::floor() const {
    big_int quotient = numerator_ / denominator_;  // truncates toward zero
    if (numerator_ < 0 && quotient * denominator_ != numerator_) quotient -= 1;
    return quotient;
}

big_int rational::ceil() const {
    big_int quotient = numerator_ / denominator_;
    if (numerator_ > 0 && quotient * denominator_ != numerator_) quotient += 1;
    return quotient;
}

namespace {

double exact_to_double(const big_int& numerator, const big_int& denominator) {
    using decimal = boost::multiprecision::cpp_dec_float_50;
    decimal value = decimal(numerator) / decimal(denominator);
    return value.convert_to<double>();
}

// The values rendered are the rates of the configured corridors, the same few over and over, and
// the 50-digit conversion costs tens of thousands of instructions; its results are remembered per
// thread (bounded), so every call still returns exactly what the conversion gives.
struct ratio_key {
    std::int64_t numerator, denominator;
    bool operator==(const ratio_key&) const = default;
};
struct ratio_hash {
    std::size_t operator()(const ratio_key& key) const noexcept {
        return std::hash<std::int64_t>()(key.numerator) * 31 + std::hash<std::int64_t>()(key.denominator);
    }
};
constexpr std::size_t remembered_ratios_max = 4096;

}  // namespace

double rational::to_double() const {
    constexpr std::int64_t low = std::numeric_limits<std::int64_t>::min();
    constexpr std::int64_t high = std::numeric_limits<std::int64_t>::max();
    if (numerator_ < low || numerator_ > high || denominator_ > high) {
        return exact_to_double(numerator_, denominator_);
    }
    ratio_key key{numerator_.convert_to<std::int64_t>(), denominator_.convert_to<std::int64_t>()};
    thread_local std::unordered_map<ratio_key, double, ratio_hash> remembered;
    if (auto found = remembered.find(key); found != remembered.end()) return found->second;
    double value = exact_to_double(numerator_, denominator_);
    if (remembered.size() >= remembered_ratios_max) remembered.clear();
    remembered.emplace(key, value);
    return value;
}

std::string rational::to_decimal(int fraction_digits) const {
    CORRIDOR_ASSERT(fraction_digits >= 0 && fraction_digits <= 30);
    big_int scale = 1;
    for (int i = 0; i < fraction_digits; ++i) scale *= 10;
    // Round half up on the absolute value.
    big_int magnitude = numerator_ < 0 ? big_int(-numerator_) : numerator_;
    big_int scaled = (magnitude * scale * 2 + denominator_) / (denominator_ * 2);
    std::string digits = scaled.str();
    if (fraction_digits > 0) {
        if (digits.size() <= static_cast<std::size_t>(fraction_digits)) {
            digits.insert(0, fraction_digits + 1 - digits.size(), '0');
        }
        digits.insert(digits.size() - fraction_digits, ".");
        while (digits.back() == '0') digits.pop_back();
        if (digits.back() == '.') digits.pop_back();
    }
    return (numerator_ < 0 ? "-" : "") + digits;
}

rational power_of_ten(int exponent) {
    big_int power = 1;
    for (int i = 0; i < (exponent < 0 ? -exponent : exponent); ++i) power *= 10;
    return exponent < 0 ? rational(1, power) : rational(power, 1);
}

std::optional<std::int64_t> fit_int64(const big_int& value, std::int64_t min, std::int64_t max) {
    if (value < min || value > max) return std::nullopt;
    return value.convert_to<std::int64_t>();
}

}  // namespace corridor
