#pragma once
// The sample accounts the conformance kit (rails/conformance.hpp) offers a rail under check: one
// accountInfo (or a few) of each interface account type, and the beneficiary the bank types need.
#include <map>
#include <string>
#include <vector>

namespace corridor::conformance_kit {

// The kit's sample accountInfo of each interface account type, in the type's currency: valid
// for the host's own checks (ledger/account_details), so what a rail receives is what the API
// would hand it. Several samples for a type: the first the rail accepts is used.
struct account_sample {
    std::string currency;
    std::vector<std::string> fields;  // JSON members without braces, one sample each
    bool beneficiary;
};
const std::map<std::string, account_sample>& account_samples();

constexpr const char* sample_beneficiary =
    R"({"beneficiaryType":"INDIVIDUAL","fullName":"Ana Souza","birthDate":"1990-04-01","nationality":"BR"})";

}  // namespace corridor::conformance_kit
