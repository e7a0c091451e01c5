#pragma once
// PIX keys (DICT key types): CPF, CNPJ, EMAIL, PHONE and EVP (a random UUID key; the interface
// calls it RANDOM). Every key is at most 77 characters.
#include <string_view>

#include "rails/rail_sdk/formats/result.hpp"

namespace corridor::pix {

enum class pix_key_type { cpf, cnpj, email, phone, evp };

// "CPF", "CNPJ", "EMAIL", "PHONE", "RANDOM" (interface) or "EVP" (DICT).
formats::outcome<pix_key_type> parse_pix_key_type(std::string_view text);

// EMAIL: lower case, the DICT pattern (local part of RFC 5322 atom characters and dots, a DNS
// domain). PHONE: +55, a two-digit area code not starting with 0 (the DICT's own example uses 10),
// then 8 digits or 9 starting with 9. EVP: a lower-case 8-4-4-4-12 hex UUID.
formats::verdict check_pix_key(pix_key_type type, std::string_view key);

// The type a key must have, judged from its shape alone (for BR Codes, which do not name it).
formats::outcome<pix_key_type> infer_pix_key_type(std::string_view key);

}  // namespace corridor::pix
