#pragma once
// JSON reading for the rail plugins' glue code (config and accountInfo objects). A missing or
// mistyped field ends the hook with INVALID_ARGUMENT and a message naming the field, through the
// SDK's rail_error (the SDK barrier turns it into a status; it never crosses the ABI).
#include <boost/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "rails/plugin_sdk.hpp"

namespace corridor::plugin_json {

inline boost::json::object parse_object(std::string_view text, std::string_view what) {
    boost::system::error_code error;
    boost::json::value value = boost::json::parse(text, error);
    if (error || !value.is_object())
        throw rail_sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                                   std::string(what) + " must be a JSON object");
    return std::move(value.as_object());
}

inline std::optional<std::string> optional_string(const boost::json::object& object,
                                                  std::string_view key, std::string_view where) {
    const boost::json::value* value = object.if_contains(key);
    if (value == nullptr || value->is_null()) return std::nullopt;
    if (!value->is_string())
        throw rail_sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                                   std::string(where) + std::string(key) + " must be a string");
    return std::string(value->as_string());
}

inline std::string required_string(const boost::json::object& object, std::string_view key,
                                   std::string_view where) {
    auto value = optional_string(object, key, where);
    if (!value || value->empty())
        throw rail_sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                                   std::string(where) + std::string(key) + " is required");
    return *value;
}

inline std::int64_t integer_or(const boost::json::object& object, std::string_view key,
                               std::int64_t fallback, std::string_view where) {
    const boost::json::value* value = object.if_contains(key);
    if (value == nullptr) return fallback;
    if (!value->is_int64() && !value->is_uint64())
        throw rail_sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                                   std::string(where) + std::string(key) + " must be an integer");
    return value->to_number<std::int64_t>();
}

// The beneficiary's name from an accountInfo object: fullName (individual) or legalName
// (business); empty when there is none.
inline std::string beneficiary_name(const boost::json::object& account) {
    const boost::json::value* beneficiary = account.if_contains("beneficiary");
    if (beneficiary == nullptr || !beneficiary->is_object()) return {};
    for (const char* key : {"fullName", "legalName"})
        if (const auto* name = beneficiary->as_object().if_contains(key); name && name->is_string())
            return std::string(name->as_string());
    return {};
}

// What a funding_instructions hook hands back: an array holding one instruction, the account or
// wallet to pay and a note on how.
inline std::string funding_instructions(boost::json::object account_or_wallet_info,
                                        std::string_view notes, bool is_platform_account) {
    boost::json::array out{
        boost::json::object{{"accountOrWalletInfo", std::move(account_or_wallet_info)},
                            {"instructionsNotes", notes},
                            {"isPlatformAccount", is_platform_account}}};
    return boost::json::serialize(out);
}

}  // namespace corridor::plugin_json
