#pragma once
// PIX EndToEndId: 32 characters = 'E' + the payer participant's ISPB (8 digits) + yyyyMMddHHmm in
// UTC + 11 letters/digits chosen by the participant. Return ids (pacs.004) use 'D' instead of 'E'.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "rails/rail_sdk/formats/result.hpp"

namespace corridor::pix {

// Fills the buffer with random bytes; injected so that tests are repeatable.
using random_bytes_fn = std::function<void(std::uint8_t* buffer, std::size_t size)>;

// Refuses an ISPB that is not 8 digits, a prefix other than E or D, or a time before 1970.
formats::outcome<std::string> make_end_to_end_id(std::string_view ispb, std::int64_t now_unix_ms,
                                                 const random_bytes_fn& random_bytes,
                                                 char prefix = 'E');

// Pattern check: prefix, ISPB digits, a real calendar minute, 11 alphanumerics.
formats::verdict check_end_to_end_id(std::string_view id, char prefix = 'E');

}  // namespace corridor::pix
