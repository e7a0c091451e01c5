#pragma once
// Receiving an UMA payment for one of our customers: the amount converted with the ledger's pricing
// (BTC, in satoshis, is the sending side; the receiver's currency the receiving side), the INCOMING
// transaction created through the approval protocol (ledger/payments/approvals.hpp), and the BOLT
// #11 invoice for it, signed with the service's Lightning node key, whose payment hash is kept with
// the transaction (ledger/payments/uma_receipts.hpp settles it when paid and approved). Shared by
// the pay-request callback and POST /sandbox/uma/receive. Runs in the ledger writer's transaction.
#include <soci/soci.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ledger/base/result.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "rails/rail_sdk/lightning/bolt11.hpp"
#include "uma/uma_error.hpp"

namespace corridor {

// The node that issues the invoices. The Spark rail signs its funding invoices with the same key:
// both read plugins.settings.spark (network, node_private_key_hex or node_private_key_file,
// invoice_expiry_seconds).
struct lightning_node {
    lightning::bytes32 private_key{};
    lightning::ln_network network = lightning::ln_network::regtest;
    std::uint64_t invoice_expiry_seconds = 3600;
    bool configured = false;  // false: a key drawn at start-up (no Spark settings)
};

// From the Spark rail's settings (a JSON object text, empty when absent). Throws
// std::runtime_error naming the bad key. Without settings a fresh key is drawn from `random`.
lightning_node lightning_node_from_settings(const std::string& spark_settings_json,
                                            random_source& random);

// An invoice of `node` for `amount_msats` and its payment hash (hex). In the sandbox it never
// ends in a failure pattern: a payer there would fail it as 002-005 do, and its checksum's last
// characters make one about once in 8,192.
result<std::pair<std::string, std::string>, uma::uma_error> make_receipt_invoice(
    const payment_services& services, const lightning_node& node, std::int64_t amount_msats,
    const std::string& description, bool sandbox);

struct incoming_uma_request {
    customer receiver;
    std::string receiving_currency;
    // Exactly one: an amount in the receiving currency's smallest units, or in millisatoshis.
    std::optional<std::int64_t> receiving_amount, amount_msats;
    std::string sender_uma_address;
    std::string counterparty_information = "{}";       // JSON object text (the payer data)
    std::vector<counterparty_field> requested_fields;  // receiver information the sender asks for
    std::string description;
};

struct incoming_uma_payment {
    transaction_record transaction;
    std::string invoice, payment_hash;
    std::int64_t amount_msats = 0;     // the invoice amount
    std::int64_t fee_msats = 0;        // of which fees
    std::int64_t received_amount = 0;  // receiving smallest units, fees excluded
    int decimals = 0;
    double multiplier = 0;  // millisatoshis per receiving smallest unit, fees excluded
};

result<incoming_uma_payment, uma::uma_error> start_incoming_uma_payment(
    soci::session& session, const payment_services& services, const lightning_node& node,
    const incoming_uma_request& request);

}  // namespace corridor
