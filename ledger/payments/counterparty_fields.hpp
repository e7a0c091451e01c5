#pragma once
// UMA payer and payee data (LUD-18, LUD-22) keyed as the interface keys counterparty information:
// the UMA SDKs' keys where they exist (FULL_NAME -> "name"), lowerCamelCase otherwise. Here in the
// ledger because the ledger renders counterpartyInformation from what a counterparty sent.
#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace corridor {

// The payerData/payeeData key that carries a UserInfoFieldName.
std::string payer_data_key(std::string_view field);
// The UserInfoFieldName a payerData/payeeData key carries; nullopt for the keys the protocol fills
// itself (identifier, compliance) and for keys no field name can spell.
std::optional<std::string> customer_info_field(std::string_view payer_data_key);
// A JSON object of payer or payee data as counterpartyInformation: the keys that carry a field
// name, renamed to it, with their values; empty for text that is not a JSON object.
boost::json::object counterparty_information_of(std::string_view counterparty_data_json,
                                                boost::json::storage_ptr storage = {});

}  // namespace corridor
