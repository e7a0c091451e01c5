#include "server/uma/uma_lookup.hpp"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>
#include <cmath>

#include "ledger/payments/payment_json.hpp"
#include "ledger/payments/payments.hpp"

namespace corridor {
namespace {

namespace json = boost::json;

constexpr double msats_per_btc = 1e11;

// Millisatoshis one sending major unit buys, after the service's spread.
std::optional<double> msats_per_major(const currency_registry& currencies, const rate_source& rates,
                                      const currency& sending) {
    if (sending.code == "BTC") return msats_per_btc;
    const currency* btc = currencies.find("BTC");
    if (btc == nullptr) return std::nullopt;
    auto terms = rates.terms(sending, *btc);
    if (!terms || terms->mid_rate.is_zero()) return std::nullopt;
    double rate = (terms->mid_rate * rational(10000 - terms->spread_bps, 10000)).to_double();
    return rate * msats_per_btc;
}

}  // namespace

void insert_uma_lookup(soci::session& session, const uma_lookup_record& record) {
    std::string env(record.owner.env_name());
    std::string response = json::serialize(uma::to_json(record.response));
    std::string keys = json::serialize(uma::to_json(record.receiver_keys));
    long long created = record.created_at_ms;
    session << "INSERT INTO uma_lookups (id, platform_id, environment, sender_customer_id, "
               "receiver_uma_address, uma_version, lnurlp_response, receiver_keys, "
               "sending_currency, created_at_ms) VALUES (:id, :p, :e, :s, :r, :v, :l, :k, :c, :t)",
        soci::use(record.id), soci::use(record.owner.platform_id), soci::use(env),
        soci::use(record.sender_customer_id), soci::use(record.receiver_uma_address),
        soci::use(record.uma_version), soci::use(response), soci::use(keys),
        soci::use(record.sending_currency), soci::use(created);
}

std::optional<uma_lookup_record> find_uma_lookup(soci::session& session, const tenant& owner,
                                                 const std::string& id) {
    std::string env(owner.env_name());
    uma_lookup_record record;
    std::string response, keys;
    long long created = 0;
    session << "SELECT sender_customer_id, receiver_uma_address, uma_version, lnurlp_response, "
               "receiver_keys, sending_currency, created_at_ms FROM uma_lookups WHERE id = :id "
               "AND platform_id = :p AND environment = :e",
        soci::use(id), soci::use(owner.platform_id), soci::use(env),
        soci::into(record.sender_customer_id), soci::into(record.receiver_uma_address),
        soci::into(record.uma_version), soci::into(response), soci::into(keys),
        soci::into(record.sending_currency), soci::into(created);
    if (!session.got_data()) return std::nullopt;
    auto parsed = uma::parse_lnurlp_response(response);
    auto parsed_keys = uma::parse_pubkey_response(keys);
    // Both were written by insert_uma_lookup from parsed values: they parse again.
    if (!parsed || !parsed_keys) return std::nullopt;
    record.id = id;
    record.owner = owner;
    record.response = std::move(parsed.value());
    record.receiver_keys = std::move(parsed_keys.value());
    record.created_at_ms = created;
    return record;
}

std::optional<double> estimated_uma_rate(const currency_registry& currencies,
                                         const rate_source& rates, const currency& sending,
                                         const uma::uma_currency& receiving) {
    if (!(receiving.multiplier > 0) || receiving.decimals < 0 || receiving.decimals > 18) {
        return std::nullopt;
    }
    auto msats = msats_per_major(currencies, rates, sending);
    if (!msats) return std::nullopt;
    double rate = *msats / (receiving.multiplier * std::pow(10.0, receiving.decimals));
    if (!std::isfinite(rate) || !(rate > 0)) return std::nullopt;
    return rate;
}

api_error lookup_failure(const uma::uma_error& error) {
    using uma::error_kind;
    json::object details{{"umaCode", uma::code_of(error.kind)}};
    switch (error.kind) {
        case error_kind::invalid_input:
            details["field"] = "receiverUmaAddress";
            return {error_code::invalid_uma_address, "receiverUmaAddress: " + error.reason,
                    std::move(details)};
        case error_kind::user_not_found:
            details["field"] = "receiverUmaAddress";
            return {error_code::user_not_found, error.reason, std::move(details)};
        case error_kind::unsupported_uma_version:
            return {error_code::unsupported_uma_version, error.reason, std::move(details)};
        case error_kind::no_compatible_uma_version:
            return {error_code::no_compatible_uma_version, error.reason, std::move(details)};
        case error_kind::counterparty_pubkey_fetch_error:
        case error_kind::parse_pubkey_response_error:
        case error_kind::invalid_pubkey_format:
        case error_kind::cert_chain_invalid:
            return {error_code::counterparty_pubkey_fetch_error,
                    "the receiver's provider keys cannot be used: " + error.reason,
                    std::move(details)};
        case error_kind::parse_lnurlp_response_error:
            return {error_code::parse_lnurlp_response_error,
                    "the receiver's provider answered something other than an LNURLP response: " +
                        error.reason,
                    std::move(details)};
        default:
            // A bad signature, a replayed nonce, an unreachable or failing provider: the
            // counterparty failed, not the request.
            return {error_code::lnurlp_request_failed,
                    "the lookup at the receiver's provider failed: " + error.reason,
                    std::move(details)};
    }
}

json::object render_uma_lookup(const uma_lookup_record& record, const currency_registry& currencies,
                               const rate_source& rates) {
    json::array supported;
    const currency* sending = currencies.find(record.sending_currency);
    if (sending != nullptr && record.response.currencies) {
        for (const auto& offered : *record.response.currencies) {
            const currency* known = currencies.find(offered.code);
            if (known == nullptr || known->decimals != offered.decimals) continue;
            auto rate = estimated_uma_rate(currencies, rates, *sending, offered);
            if (!rate) continue;
            std::int64_t min = std::max<std::int64_t>(offered.min_sendable, 1);
            if (offered.max_sendable < min) continue;
            supported.push_back(json::object{{"currency", render_currency(currencies, known->code)},
                                             {"estimatedExchangeRate", *rate},
                                             {"min", min},
                                             {"max", offered.max_sendable}});
        }
    }
    json::array fields;
    if (record.response.payer_data) {
        for (const auto& option : *record.response.payer_data) {
            auto name = customer_info_field(option.key);
            if (!name) continue;
            fields.push_back(json::object{{"name", *name}, {"mandatory", option.mandatory}});
        }
    }
    return json::object{{"lookupId", record.id},
                        {"receiverUmaAddress", record.receiver_uma_address},
                        {"supportedCurrencies", std::move(supported)},
                        {"requiredPayerDataFields", std::move(fields)}};
}

}  // namespace corridor
