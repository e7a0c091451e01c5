#include "plugins/ach/us_account.hpp"

#include "rails/rail_sdk/formats/text.hpp"

namespace corridor::ach {

using formats::make_error;

int routing_check_digit(std::string_view first_eight_digits) {
    static constexpr int weights[] = {3, 7, 1, 3, 7, 1, 3, 7};
    int sum = 0;
    for (std::size_t i = 0; i < 8 && i < first_eight_digits.size(); ++i)
        sum += (first_eight_digits[i] - '0') * weights[i];
    return (10 - sum % 10) % 10;
}

formats::verdict check_routing_number(std::string_view routing_number) {
    if (routing_number.size() != 9)
        return make_error("bad_length", "a routing number has exactly 9 digits");
    if (!formats::all_digits(routing_number))
        return make_error("not_digits", "a routing number has only digits");
    int prefix = (routing_number[0] - '0') * 10 + (routing_number[1] - '0');
    bool known_prefix = prefix <= 12 || (prefix >= 21 && prefix <= 32) ||
                        (prefix >= 61 && prefix <= 72) || prefix == 80;
    if (!known_prefix)
        return make_error("bad_prefix", "a routing number starts with 00-12, 21-32, 61-72 or 80");
    if (routing_check_digit(routing_number.substr(0, 8)) != routing_number[8] - '0')
        return make_error("bad_check_digit", "the routing number's check digit is wrong");
    return formats::valid;
}

formats::verdict check_account_number(std::string_view account_number) {
    if (account_number.empty() || account_number.size() > 17)
        return make_error("bad_length", "an account number has 1 to 17 characters");
    bool has_digit = false;
    for (char c : account_number) {
        if (!formats::is_alnum(c) && c != '-')
            return make_error("bad_character",
                              "an account number has only letters, digits and hyphens");
        has_digit = has_digit || formats::is_digit(c);
    }
    if (!has_digit) return make_error("no_digit", "an account number has at least one digit");
    return formats::valid;
}

formats::outcome<account_category> parse_account_category(std::string_view text) {
    if (text == "CHECKING") return account_category::checking;
    if (text == "SAVINGS") return account_category::savings;
    return make_error("bad_category", "accountCategory is CHECKING or SAVINGS");
}

std::string_view account_category_name(account_category category) {
    return category == account_category::checking ? "CHECKING" : "SAVINGS";
}

formats::outcome<us_account> validate_us_account(std::string_view routing_number,
                                                 std::string_view account_number,
                                                 std::string_view category) {
    if (auto verdict = check_routing_number(routing_number); !verdict)
        return make_error(verdict.error().code, "routingNumber: " + verdict.error().message);
    if (auto verdict = check_account_number(account_number); !verdict)
        return make_error(verdict.error().code, "accountNumber: " + verdict.error().message);
    auto parsed = parse_account_category(category);
    if (!parsed) return make_error(parsed.error().code, parsed.error().message);
    return us_account{std::string(routing_number), std::string(account_number), parsed.value()};
}

}  // namespace corridor::ach
