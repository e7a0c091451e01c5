#pragma once
// Brazilian taxpayer ids: CPF (11 digits, individuals) and CNPJ (14 characters, companies; from
// July 2026 the first 12 may be upper-case letters, the two check digits stay numeric).
#include <string>
#include <string_view>

#include "rails/rail_sdk/formats/result.hpp"

namespace corridor::pix {

// Codes: bad_length, bad_character, repeated_digits, bad_check_digit. Digits only, no punctuation.
formats::verdict check_cpf(std::string_view cpf);
formats::verdict check_cnpj(std::string_view cnpj);

// The two check digits for the first 9 (CPF) or 12 (CNPJ) characters, as text.
std::string cpf_check_digits(std::string_view first_nine);
std::string cnpj_check_digits(std::string_view first_twelve);

enum class tax_id_kind { cpf, cnpj };
// 11 characters are read as a CPF, 14 as a CNPJ.
formats::outcome<tax_id_kind> check_tax_id(std::string_view tax_id);

}  // namespace corridor::pix
