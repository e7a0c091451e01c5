#include "uma/common.hpp"

namespace corridor::uma {

std::string read_kyc_status(const json_fields& fields) {
    std::string status = fields.required_string("kycStatus");
    if (status != "UNKNOWN" && status != "NOT_VERIFIED" && status != "PENDING" &&
        status != "VERIFIED") {
        throw field_error(fields.name("kycStatus") + " is not a KycStatus");
    }
    return status;
}

std::vector<backing_signature> read_backing_signatures(const json_fields& fields) {
    std::vector<backing_signature> out;
    const auto* items = fields.optional_array("backingSignatures");
    if (items == nullptr) return out;
    for (const auto& item : *items) {
        if (!item.is_object()) {
            throw field_error(fields.name("backingSignatures") + " must hold objects");
        }
        json_fields entry(item.get_object(), fields.name("backingSignatures[]."));
        out.push_back({entry.required_string("domain"), entry.required_string("signature")});
    }
    return out;
}

boost::json::array to_json(const std::vector<backing_signature>& signatures) {
    boost::json::array out;
    for (const auto& item : signatures) {
        out.push_back(boost::json::object{{"domain", item.domain}, {"signature", item.signature}});
    }
    return out;
}

std::vector<counterparty_option> read_counterparty_options(const boost::json::object& object,
                                                           std::string_view where) {
    std::vector<counterparty_option> out;
    for (const auto& [key, value] : object) {
        if (!value.is_object())
            throw field_error(std::string(where) + "." + std::string(key) +
                              " must be {\"mandatory\": bool}");
        json_fields option(value.get_object(), std::string(where) + "." + std::string(key) + ".");
        out.push_back({std::string(key), option.required_bool("mandatory")});
    }
    return out;
}

boost::json::object to_json(const std::vector<counterparty_option>& options) {
    boost::json::object out;
    for (const auto& option : options) {
        out[option.key] = boost::json::object{{"mandatory", option.mandatory}};
    }
    return out;
}

}  // namespace corridor::uma
