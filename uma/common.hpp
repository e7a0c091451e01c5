#pragma once
// Pieces shared by several UMA messages.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "uma/json_fields.hpp"

namespace corridor::uma {

struct backing_signature {
    std::string domain;
    std::string signature;
    bool operator==(const backing_signature&) const = default;
};

// LUD-18 payer data (and LUD-22 payee data) options, kept in the order given.
struct counterparty_option {
    std::string key;
    bool mandatory = false;
    bool operator==(const counterparty_option&) const = default;
};

// The kycStatus member, one of the SDKs' KycStatus values; field_error naming it otherwise.
std::string read_kyc_status(const json_fields& fields);

std::vector<backing_signature> read_backing_signatures(const json_fields& fields);
boost::json::array to_json(const std::vector<backing_signature>& signatures);
std::vector<counterparty_option> read_counterparty_options(const boost::json::object& object,
                                                           std::string_view where);
boost::json::object to_json(const std::vector<counterparty_option>& options);

}  // namespace corridor::uma
