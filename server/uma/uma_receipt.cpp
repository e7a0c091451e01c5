#include "server/uma/uma_receipt.hpp"

#include <openssl/sha.h>

#include <boost/json.hpp>
#include <fstream>
#include <stdexcept>

#include "ledger/base/assert.hpp"
#include "ledger/book/book.hpp"
#include "ledger/book/pricing.hpp"
#include "ledger/payments/approvals.hpp"
#include "ledger/payments/uma_receipts.hpp"
#include "uma/hex.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

uma::uma_error error_of(uma::error_kind kind, std::string reason) {
    return uma::uma_error{kind, std::move(reason), {}};
}

lightning::bytes32 key_from_hex(const std::string& hex) {
    auto bytes = uma::from_hex(hex);
    if (!bytes || bytes->size() != 32) {
        throw std::runtime_error("plugins.settings.spark: the node key is 64 hex digits");
    }
    lightning::bytes32 key{};
    std::copy(bytes->begin(), bytes->end(), key.begin());
    if (!lightning::node_public_key(key)) {
        throw std::runtime_error(
            "plugins.settings.spark: the node key is not a valid secp256k1 key");
    }
    return key;
}

std::string string_or_empty(const json::object& object, std::string_view key) {
    auto* value = object.if_contains(key);
    if (value == nullptr) return {};
    if (!value->is_string()) {
        throw std::runtime_error("plugins.settings.spark." + std::string(key) +
                                 " must be a string");
    }
    return std::string(value->as_string());
}

// The customer's internal account in the currency, opened if the customer has none yet (the
// caller checked that the platform receives the currency).
std::string receiving_account(soci::session& session, const payment_services& services,
                              const customer& receiver, const std::string& currency) {
    return ensure_account(session, {services.ids, services.random, services.time}, receiver.owner,
                          account_kind::customer, receiver.id, currency);
}

struct conversion {
    std::int64_t amount_msats = 0, fee_msats = 0, received = 0, net_msats = 0;
    std::string rate_details = "{}";
};

// BTC (satoshis) is the sending side of the ledger's pricing; the platform's terms for the
// receiving currency apply as for any quote.
result<conversion, uma::uma_error> convert(const payment_services& services,
                                           const currency& receiving,
                                           const incoming_uma_request& request) {
    const currency* btc = services.currencies.find("BTC");
    if (btc == nullptr) return error_of(uma::error_kind::internal_error, "BTC is not configured");
    constexpr std::int64_t msats_per_sat = 1000;
    conversion out;
    if (receiving.code == "BTC") {
        out.received = request.receiving_amount ? *request.receiving_amount
                                                : *request.amount_msats / msats_per_sat;
        out.amount_msats =
            request.receiving_amount ? out.received * msats_per_sat : *request.amount_msats;
        out.net_msats = out.amount_msats;
        if (out.received <= 0)
            return error_of(uma::error_kind::amount_out_of_range, "amount is below one satoshi");
        return out;
    }
    auto terms = services.rates_for(request.receiver.owner.env).terms(*btc, receiving);
    if (!terms) {
        return error_of(uma::error_kind::invalid_currency,
                        "no exchange rate from BTC to " + receiving.code);
    }
    bool receiving_locked = request.receiving_amount.has_value();
    std::int64_t locked =
        receiving_locked ? *request.receiving_amount : *request.amount_msats / msats_per_sat;
    auto priced =
        price_transfer(*btc, receiving, *terms,
                       receiving_locked ? locked_side::receiving : locked_side::sending, locked);
    if (!priced || priced->total_receiving <= 0) {
        return error_of(uma::error_kind::amount_out_of_range,
                        "the amount is too small or too large to convert to " + receiving.code);
    }
    out.received = priced->total_receiving;
    out.fee_msats = priced->fees_included * msats_per_sat;
    out.net_msats = priced->net_sending * msats_per_sat;
    out.amount_msats =
        receiving_locked ? priced->total_sending * msats_per_sat : *request.amount_msats;
    json::object details{{"sendingCurrency", "BTC"},
                         {"receivingCurrency", receiving.code},
                         {"exchangeRate", priced->exchange_rate.to_decimal(12)},
                         {"feesIncludedSats", priced->fees_included}};
    out.rate_details = json::serialize(details);
    return out;
}

}  // namespace

result<std::pair<std::string, std::string>, uma::uma_error> make_receipt_invoice(
    const payment_services& services, const lightning_node& node, std::int64_t amount_msats,
    const std::string& description, bool sandbox) {
    lightning::invoice_fields fields;
    fields.network = node.network;
    fields.amount_msat = static_cast<std::uint64_t>(amount_msats);
    fields.timestamp = static_cast<std::uint64_t>(services.time.now_ms() / 1000);
    fields.description = description.substr(0, 600);
    fields.expiry_seconds = node.invoice_expiry_seconds;
    fields.feature_bits = {8, 14};
    auto invoice = lightning::encode_fresh_invoice(
        fields, node.private_key, sandbox, [&services](lightning::invoice_fields& f) {
            std::array<std::uint8_t, 32> preimage{};
            services.random.fill(preimage);
            SHA256(preimage.data(), preimage.size(), f.payment_hash.data());
            services.random.fill(f.payment_secret);
        });
    if (!invoice) return error_of(uma::error_kind::internal_error, invoice.error().message);
    return std::pair{invoice.value(), uma::to_hex(fields.payment_hash)};
}

lightning_node lightning_node_from_settings(const std::string& spark_settings_json,
                                            random_source& random) {
    lightning_node node;
    if (spark_settings_json.empty()) {
        // No Spark rail settings: invoices are still well-formed and signed, by a key that lives
        // as long as the process (the sandbox settles them internally).
        do {
            random.fill(node.private_key);
        } while (!lightning::node_public_key(node.private_key));
        return node;
    }
    boost::system::error_code parse_error;
    json::value parsed = json::parse(spark_settings_json, parse_error);
    if (parse_error || !parsed.is_object()) {
        throw std::runtime_error("plugins.settings.spark must be a JSON object");
    }
    const auto& config = parsed.as_object();
    std::string network = string_or_empty(config, "network");
    if (network == "mainnet")
        node.network = lightning::ln_network::mainnet;
    else if (network == "testnet")
        node.network = lightning::ln_network::testnet;
    else if (network == "signet")
        node.network = lightning::ln_network::signet;
    else if (network == "regtest")
        node.network = lightning::ln_network::regtest;
    else
        throw std::runtime_error(
            "plugins.settings.spark.network is mainnet, testnet, signet or regtest");
    std::string hex = string_or_empty(config, "node_private_key_hex");
    if (hex.empty()) {
        std::string file = string_or_empty(config, "node_private_key_file");
        if (file.empty()) {
            throw std::runtime_error(
                "plugins.settings.spark: node_private_key_hex or node_private_key_file is "
                "required");
        }
        std::ifstream in(file);
        if (!in)
            throw std::runtime_error("plugins.settings.spark.node_private_key_file cannot be read");
        in >> hex;
    }
    node.private_key = key_from_hex(hex);
    if (auto* expiry = config.if_contains("invoice_expiry_seconds")) {
        if (!expiry->is_int64() || expiry->as_int64() <= 0) {
            throw std::runtime_error("plugins.settings.spark.invoice_expiry_seconds is positive");
        }
        node.invoice_expiry_seconds = static_cast<std::uint64_t>(expiry->as_int64());
    }
    node.configured = true;
    return node;
}

result<incoming_uma_payment, uma::uma_error> start_incoming_uma_payment(
    soci::session& session, const payment_services& services, const lightning_node& node,
    const incoming_uma_request& request) {
    CORRIDOR_ASSERT(request.receiving_amount.has_value() != request.amount_msats.has_value());
    const currency* receiving = services.currencies.find(request.receiving_currency);
    if (receiving == nullptr) {
        return error_of(uma::error_kind::invalid_currency,
                        "unknown currency " + request.receiving_currency);
    }
    std::string account_id =
        receiving_account(session, services, request.receiver, receiving->code);
    auto converted = convert(services, *receiving, request);
    if (!converted) return converted.error();

    incoming_payment_request incoming;
    incoming.owner = request.receiver.owner;
    incoming.destination_account_id = account_id;
    incoming.amount = converted->received;
    incoming.source_currency = "BTC";
    incoming.sender_uma_address = request.sender_uma_address;
    incoming.counterparty_information = request.counterparty_information;
    incoming.requested_fields = request.requested_fields;
    incoming.description = request.description;
    incoming.rate_details = converted->rate_details;
    auto begun = begin_incoming_approval(session, services, incoming);
    if (!begun) return error_of(uma::error_kind::invalid_input, begun.error().message);

    auto invoice = make_receipt_invoice(services, node, converted->amount_msats,
                                        "Pay " + request.receiver.uma_address,
                                        request.receiver.owner.env == environment::sandbox);
    if (!invoice) return invoice.error();
    uma_invoice_record record;
    record.payment_hash = invoice->second;
    record.transaction_id = begun->id;
    record.owner = request.receiver.owner;
    record.invoice = invoice->first;
    record.amount_msats = converted->amount_msats;
    record.state = "OPEN";
    record.created_at_ms = services.time.now_ms();
    record_uma_invoice(session, record);

    incoming_uma_payment out;
    out.transaction = std::move(begun.value());
    out.invoice = std::move(invoice->first);
    out.payment_hash = std::move(invoice->second);
    out.amount_msats = converted->amount_msats;
    out.fee_msats = converted->fee_msats;
    out.received_amount = converted->received;
    out.decimals = receiving->decimals;
    out.multiplier =
        static_cast<double>(converted->net_msats) / static_cast<double>(converted->received);
    return out;
}

}  // namespace corridor
