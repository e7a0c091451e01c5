#include "plugins/pix/tax_id.hpp"

#include "rails/rail_sdk/formats/text.hpp"

namespace corridor::pix {
namespace {

using formats::make_error;

int check_digit(int sum) {
    int remainder = sum % 11;
    return remainder < 2 ? 0 : 11 - remainder;
}

bool all_same(std::string_view text) {
    return text.find_first_not_of(text.front()) == std::string_view::npos;
}

// CNPJ character value: ASCII code - 48, so '0'-'9' are 0-9 and 'A'-'Z' are 17-42.
int cnpj_value(char c) {
    return static_cast<unsigned char>(c) - 48;
}

}  // namespace

std::string cpf_check_digits(std::string_view first_nine) {
    int sum = 0;
    for (int i = 0; i < 9; ++i) sum += (first_nine[static_cast<std::size_t>(i)] - '0') * (10 - i);
    int first = check_digit(sum);
    sum = 0;
    for (int i = 0; i < 9; ++i) sum += (first_nine[static_cast<std::size_t>(i)] - '0') * (11 - i);
    sum += first * 2;
    int second = check_digit(sum);
    return {static_cast<char>('0' + first), static_cast<char>('0' + second)};
}

std::string cnpj_check_digits(std::string_view first_twelve) {
    static constexpr int weights_first[] = {5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2};
    static constexpr int weights_second[] = {6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2};
    int sum = 0;
    for (std::size_t i = 0; i < 12; ++i) sum += cnpj_value(first_twelve[i]) * weights_first[i];
    int first = check_digit(sum);
    sum = 0;
    for (std::size_t i = 0; i < 12; ++i) sum += cnpj_value(first_twelve[i]) * weights_second[i];
    sum += first * weights_second[12];
    int second = check_digit(sum);
    return {static_cast<char>('0' + first), static_cast<char>('0' + second)};
}

formats::verdict check_cpf(std::string_view cpf) {
    if (cpf.size() != 11) return make_error("bad_length", "a CPF has 11 digits");
    if (!formats::all_digits(cpf)) return make_error("bad_character", "a CPF has only digits");
    if (all_same(cpf))
        return make_error("repeated_digits", "a CPF of one repeated digit is invalid");
    if (cpf_check_digits(cpf.substr(0, 9)) != cpf.substr(9))
        return make_error("bad_check_digit", "the CPF check digits are wrong");
    return formats::valid;
}

formats::verdict check_cnpj(std::string_view cnpj) {
    if (cnpj.size() != 14) return make_error("bad_length", "a CNPJ has 14 characters");
    for (std::size_t i = 0; i < 14; ++i) {
        char c = cnpj[i];
        bool ok = i < 12 ? (formats::is_digit(c) || formats::is_upper(c)) : formats::is_digit(c);
        if (!ok)
            return make_error("bad_character",
                              "a CNPJ has digits or upper-case letters, then two check digits");
    }
    if (all_same(cnpj))
        return make_error("repeated_digits", "a CNPJ of one repeated digit is invalid");
    if (cnpj_check_digits(cnpj.substr(0, 12)) != cnpj.substr(12))
        return make_error("bad_check_digit", "the CNPJ check digits are wrong");
    return formats::valid;
}

formats::outcome<tax_id_kind> check_tax_id(std::string_view tax_id) {
    if (tax_id.size() == 11) {
        if (auto verdict = check_cpf(tax_id); !verdict) return verdict.error();
        return tax_id_kind::cpf;
    }
    if (tax_id.size() == 14) {
        if (auto verdict = check_cnpj(tax_id); !verdict) return verdict.error();
        return tax_id_kind::cnpj;
    }
    return make_error("bad_length", "a tax id is a CPF (11 digits) or a CNPJ (14 characters)");
}

}  // namespace corridor::pix
