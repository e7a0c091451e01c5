#include "plugins/pix/pix_key.hpp"

#include "rails/rail_sdk/formats/text.hpp"
#include "plugins/pix/tax_id.hpp"

namespace corridor::pix {
namespace {

using formats::make_error;

constexpr std::size_t key_length_max = 77;

bool local_part_char(char c) {
    return formats::is_lower(c) || formats::is_digit(c) ||
           std::string_view(".!#$&'*+/=?^_`{|}~-").find(c) != std::string_view::npos;
}

bool domain_label(std::string_view label) {
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-')
        return false;
    for (char c : label)
        if (!(formats::is_lower(c) || formats::is_digit(c) || c == '-')) return false;
    return true;
}

formats::verdict check_email(std::string_view key) {
    std::size_t at = key.find('@');
    if (at == std::string_view::npos || at == 0 || key.find('@', at + 1) != std::string_view::npos)
        return make_error("bad_email", "an e-mail key has one '@' after a non-empty local part");
    for (char c : key.substr(0, at))
        if (!local_part_char(c))
            return make_error("bad_email", formats::is_upper(c) ? "an e-mail key is lower case"
                                                                : "the e-mail local part has a "
                                                                  "character it may not have");
    std::string_view domain = key.substr(at + 1);
    for (std::size_t start = 0;;) {
        std::size_t dot = domain.find('.', start);
        std::string_view label =
            domain.substr(start, dot == std::string_view::npos ? dot : dot - start);
        if (!domain_label(label))
            return make_error("bad_email", "the e-mail domain is not a lower-case DNS name");
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    return formats::valid;
}

formats::verdict check_phone(std::string_view key) {
    if (key.substr(0, 3) != "+55")
        return make_error("bad_phone", "a phone key is E.164 with the Brazilian prefix +55");
    std::string_view national = key.substr(3);
    if (!formats::all_digits(national) || (national.size() != 10 && national.size() != 11))
        return make_error("bad_phone", "a phone key has a 2-digit area code and 8 or 9 digits");
    if (national[0] == '0') return make_error("bad_phone", "the area code does not start with 0");
    if (national.size() == 11 && national[2] != '9')
        return make_error("bad_phone", "a 9-digit mobile number starts with 9");
    return formats::valid;
}

formats::verdict check_evp(std::string_view key) {
    if (key.size() != 36) return make_error("bad_evp", "a random key is a 36-character UUID");
    for (std::size_t i = 0; i < key.size(); ++i) {
        char c = key[i];
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        bool ok = dash ? c == '-' : (formats::is_digit(c) || (c >= 'a' && c <= 'f'));
        if (!ok) return make_error("bad_evp", "a random key is a lower-case hex UUID 8-4-4-4-12");
    }
    return formats::valid;
}

}  // namespace

formats::outcome<pix_key_type> parse_pix_key_type(std::string_view text) {
    if (text == "CPF") return pix_key_type::cpf;
    if (text == "CNPJ") return pix_key_type::cnpj;
    if (text == "EMAIL") return pix_key_type::email;
    if (text == "PHONE") return pix_key_type::phone;
    if (text == "RANDOM" || text == "EVP") return pix_key_type::evp;
    return make_error("bad_key_type", "pixKeyType is CPF, CNPJ, EMAIL, PHONE or RANDOM");
}

formats::verdict check_pix_key(pix_key_type type, std::string_view key) {
    if (key.empty() || key.size() > key_length_max)
        return make_error("bad_length", "a PIX key has 1 to 77 characters");
    switch (type) {
        case pix_key_type::cpf: return check_cpf(key);
        case pix_key_type::cnpj: return check_cnpj(key);
        case pix_key_type::email: return check_email(key);
        case pix_key_type::phone: return check_phone(key);
        case pix_key_type::evp: return check_evp(key);
    }
    return make_error("bad_key_type", "unknown key type");
}

formats::outcome<pix_key_type> infer_pix_key_type(std::string_view key) {
    for (auto type : {pix_key_type::cpf, pix_key_type::cnpj, pix_key_type::email,
                      pix_key_type::phone, pix_key_type::evp})
        if (check_pix_key(type, key).ok()) return type;
    return make_error("bad_key", "the PIX key is not a valid CPF, CNPJ, e-mail, phone or EVP");
}

}  // namespace corridor::pix
