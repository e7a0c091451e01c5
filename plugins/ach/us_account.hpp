#pragma once
// US_ACCOUNT validation: ABA routing number (3-7-1 check digit, Federal Reserve prefix), account
// number (NACHA DFI account field: up to 17 characters) and account category.
#include <string>
#include <string_view>

#include "rails/rail_sdk/formats/result.hpp"

namespace corridor::ach {

enum class account_category { checking, savings };

struct us_account {
    std::string routing_number;  // 9 digits
    std::string account_number;  // 1..17 characters of [0-9A-Za-z-]
    account_category category = account_category::checking;
};

// The 9th digit for the first 8: (10 - (3d1+7d2+d3+3d4+7d5+d6+3d7+7d8) mod 10) mod 10.
int routing_check_digit(std::string_view first_eight_digits);

// Codes: bad_length, not_digits, bad_prefix (not 00-12, 21-32, 61-72 or 80), bad_check_digit.
formats::verdict check_routing_number(std::string_view routing_number);

// Codes: bad_length (empty or over 17), bad_character (outside 0-9, A-Z, a-z and '-'), no_digit.
formats::verdict check_account_number(std::string_view account_number);

// "CHECKING" or "SAVINGS" exactly (the interface's accountCategory values).
formats::outcome<account_category> parse_account_category(std::string_view text);
std::string_view account_category_name(account_category category);

// All three checks; the error names the field in its message.
formats::outcome<us_account> validate_us_account(std::string_view routing_number,
                                                 std::string_view account_number,
                                                 std::string_view category);

}  // namespace corridor::ach
