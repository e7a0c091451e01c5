#pragma once
// The identifiers an account's details carry, each checked by its own rules: the check digits of
// bank numbers (ABA, CLABE, CPF, CNPJ, IBAN), the shape of BICs and UPI addresses, and the
// encodings of wallet addresses and Lightning invoices (bech32, base58check). Structural only:
// whether an account exists is the rail's business.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace corridor {

// Identifier checks, exposed for tests and for other parts that read stored details.
bool is_aba_routing_number(std::string_view digits);
bool is_clabe(std::string_view digits);
bool is_cpf(std::string_view digits);
bool is_cnpj(std::string_view text);        // numeric or alphanumeric (upper case), 14 characters
bool is_iban(std::string_view normalised);  // upper case, no spaces
bool is_bic(std::string_view text);
bool is_upi_vpa(std::string_view text);
bool is_email(std::string_view text);  // local@domain.tld: a PIX key or a beneficiary's e-mail
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
