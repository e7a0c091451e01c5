#pragma once
// The account details document of an external account (accountInfo): its shape per accountType,
// the check digits of the identifiers that carry them, and the beneficiary. Structural validation
// only: whether an account exists is the rail's business. The full BOLT #11 and Spark codecs live
// in the rail plugins; here a Lightning invoice is checked for its shape and bech32 checksum.
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/base/result.hpp"

namespace corridor {

// What a bad document breaks: its shape (a missing or mistyped field) or an identifier's own
// rules (a check digit, a length, a prefix).
enum class details_problem { malformed, invalid_identifier };

struct details_error {
    details_problem problem = details_problem::malformed;
    std::string field;  // dotted path from the request body, e.g. accountInfo.routingNumber
    std::string message;
};

struct validated_details {
    std::string account_type;          // as the client named it
    boost::json::object account_info;  // normalised, with paymentRails and beneficiary
    // Owner-independent identity of the destination: two accounts of one owner with the same
    // key are the same account (a 409). Normalised, so spelling variants collide.
    std::string identity;
    // The identifier the sandbox failure patterns look at (its last digits).
    std::string primary_identifier;
    bool has_beneficiary = false;
    std::optional<std::string> beneficiary_name;  // fullName or legalName
};

// Validates `account_info` (the accountInfo member of a request) for an account in `currency`.
// now_ms bounds birth dates. Field paths in errors start with `path` ("accountInfo").
result<validated_details, details_error> validate_account_details(
    const boost::json::value& account_info, std::string_view currency, std::int64_t now_ms,
    std::string_view path = "accountInfo");

// A US account whose holder the bank itself reports (the bank-link flow): the account fields are
// checked as for US_ACCOUNT; `beneficiary` is taken as the bank gives it, not re-validated.
result<validated_details, details_error> bank_reported_us_account(
    const boost::json::object& account_fields, boost::json::object beneficiary,
    std::string beneficiary_name);

// The account types accepted, in the spelling of the interface.
const std::vector<std::string_view>& external_account_types();

// Identifier checks, exposed for tests and for other parts that read stored details.
bool is_aba_routing_number(std::string_view digits);
bool is_clabe(std::string_view digits);
bool is_cpf(std::string_view digits);
bool is_cnpj(std::string_view text);        // numeric or alphanumeric (upper case), 14 characters
bool is_iban(std::string_view normalised);  // upper case, no spaces
bool is_bic(std::string_view text);
bool is_upi_vpa(std::string_view text);
bool is_spark_address(std::string_view text);
bool is_bolt11_invoice_shape(std::string_view text);
bool is_lightning_address(std::string_view text);
bool is_solana_address(std::string_view text);
bool is_tron_address(std::string_view text);
bool is_evm_address(std::string_view text);

// bech32 (BIP-173) and bech32m (BIP-350): the human-readable part and the 5-bit data words
// without the checksum, or nullopt when the string or its checksum is invalid. No length limit
// (BOLT #11 strings exceed 90 characters); mixed case is invalid.
enum class bech32_variant { bech32, bech32m };
struct bech32_decoded {
    std::string hrp;
    std::vector<std::uint8_t> words;
};
std::optional<bech32_decoded> bech32_decode(std::string_view text, bech32_variant variant);

}  // namespace corridor
