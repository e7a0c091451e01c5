#pragma once
// BR Code ("Pix copia e cola"): the EMV merchant-presented QR payload, a sequence of TLV fields
// (2-digit id, 2-digit length, value) ending with field 63, a CRC-16/CCITT-FALSE over everything
// before its value. Static codes carry the PIX key (26-01); dynamic ones a location URL (26-25).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "rails/rail_sdk/formats/result.hpp"

namespace corridor::pix {

struct br_code {
    bool single_use = false;      // field 01 = "12"
    std::string pix_key;          // 26-01 (static)
    std::string additional_info;  // 26-02, shown to the payer
    std::string location_url;     // 26-25 (dynamic), without "https://"
    std::string merchant_category = "0000";
    std::optional<std::uint64_t> amount_cents;  // field 54; absent: the payer chooses
    std::string merchant_name;                  // at most 25
    std::string merchant_city;                  // at most 15
    std::string postal_code;                    // optional, field 61
    std::string txid = "***";  // 62-05: at most 25 letters/digits, "***" when there is none
};

// Refuses: neither or both of key and URL, an invalid key, a name over 25, a city over 15, a txid
// not alphanumeric or over 25, non-ASCII text, an amount over 13 characters, a field over 99.
formats::outcome<std::string> build_br_code(const br_code& code);

// Refuses: a bad TLV structure, a missing or wrong CRC, 00 not first or 63 not last, a missing
// mandatory field (00, 26 with GUI br.gov.bcb.pix in any case, 52, 53 = 986, 58 = BR, 59, 60,
// 62-05), a bad amount.
formats::outcome<br_code> parse_br_code(std::string_view payload);

}  // namespace corridor::pix
