#pragma once
// Internal to the validation of account details: the beneficiary of an account (who receives the
// money), read and normalised from accountInfo.beneficiary.
#include <boost/json/object.hpp>
#include <cstdint>
#include <string>

namespace corridor::details_parsing {

// INDIVIDUAL {fullName, birthDate, nationality, address?} or BUSINESS {legalName,
// registrationNumber?, taxId?, address?}; both may carry email, phoneNumber, countryOfResidence.
boost::json::object read_beneficiary(const boost::json::object& object, const std::string& path,
                                     std::int64_t now_ms, std::string& name);

}  // namespace corridor::details_parsing
