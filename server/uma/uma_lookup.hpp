#pragma once
// The sending side of an UMA payment, first step: a platform's customer looks up "$user@domain"
// at the receiver's provider (GET /receiver/uma/{address}). What the provider answered, verified,
// is kept as a lookup (table uma_lookups) so that a quote can make the pay request it promised.
// No HTTP types here; the handler renders.
#include <soci/soci.h>

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ledger/payments/counterparty_fields.hpp"
#include "ledger/book/currencies.hpp"
#include "ledger/book/rates.hpp"
#include "ledger/base/tenant.hpp"
#include "server/api/errors.hpp"
#include "uma/lnurlp.hpp"
#include "uma/pubkey_response.hpp"
#include "uma/uma_error.hpp"

namespace corridor {

struct uma_lookup_record {
    std::string id;  // Lookup:<uuid>
    tenant owner;
    std::string sender_customer_id;
    std::string receiver_uma_address;
    std::string uma_version;       // the version the receiver answered with
    std::string sending_currency;  // what estimatedExchangeRate was quoted from
    uma::lnurlp_response response;
    uma::pubkey_response receiver_keys;
    std::int64_t created_at_ms = 0;
};

void insert_uma_lookup(soci::session& session, const uma_lookup_record& record);
// Another tenant's lookup reads as not found.
std::optional<uma_lookup_record> find_uma_lookup(soci::session& session, const tenant& owner,
                                                 const std::string& id);

// payer_data_key and customer_info_field: ledger/payments/counterparty_fields.hpp

// Receiving major units per sending major unit when the payment crosses Lightning: the service's
// price of a millisatoshi in the sending currency (after its spread) and the receiver's LUD-21
// multiplier (millisatoshis per smallest receiving unit). nullopt when either is unknown.
std::optional<double> estimated_uma_rate(const currency_registry& currencies,
                                         const rate_source& rates, const currency& sending,
                                         const uma::uma_currency& receiving);

// The API error a failed lookup answers: 404 for an unknown receiver, 412 when the provider
// refuses every version we speak, 424 when the provider or its keys cannot be used, 400 for an
// address that is not one or an answer that is not an LNURLP response.
api_error lookup_failure(const uma::uma_error& error);

// {lookupId, receiverUmaAddress, supportedCurrencies, requiredPayerDataFields}: only currencies
// the service knows and can price; min and max are the receiver's convertible range.
boost::json::object render_uma_lookup(const uma_lookup_record& record,
                                      const currency_registry& currencies,
                                      const rate_source& rates);

}  // namespace corridor
