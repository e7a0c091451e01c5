// The Spark/Lightning rail plugin (spark.so): SPARK_WALLET and LIGHTNING account validation,
// funding instructions carrying a BOLT #11 invoice signed with the service's node key, and payouts
// to a Spark address or a BOLT #11 invoice. Without a node to talk to, an accepted payout is
// reported PENDING (reference: the transfer id or the payment hash) and SETTLED on the next tick.
// Wallets cannot be pulled from.
//
// Config (JSON): network (mainnet, testnet, signet, regtest), and the node key as
// node_private_key_hex or node_private_key_file (a file holding the hex); optional
// invoice_expiry_seconds (default 3600), min_final_cltv_expiry_delta (default 18).
#include <openssl/sha.h>

#include <array>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "plugins/common/plugin_json.hpp"
#include "plugins/common/random_bytes.hpp"
#include "plugins/common/text.hpp"
#include "plugins/spark/bolt11.hpp"
#include "plugins/spark/spark_address.hpp"
#include "rails/plugin_sdk.hpp"

namespace sdk = corridor::rail_sdk;
using namespace corridor::spark;
using corridor::formats::hex_encode;
using corridor::plugin_json::optional_string;
using corridor::plugin_json::required_string;

namespace {

struct network_names {
    std::string_view name;
    ln_network lightning;
    spark_network spark;
};
constexpr network_names networks[] = {
    {"mainnet", ln_network::mainnet, spark_network::mainnet},
    {"testnet", ln_network::testnet, spark_network::testnet},
    {"signet", ln_network::signet, spark_network::signet},
    {"regtest", ln_network::regtest, spark_network::regtest},
};

bytes32 read_key(const boost::json::object& config, const std::string& where) {
    std::string hex;
    if (auto inline_key = optional_string(config, "node_private_key_hex", where)) {
        hex = *inline_key;
    } else if (auto file = optional_string(config, "node_private_key_file", where)) {
        std::ifstream in(*file);
        if (!in)
            throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                                  where + "node_private_key_file cannot be read");
        in >> hex;
    } else {
        throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                              where + "node_private_key_hex or node_private_key_file is required");
    }
    std::vector<std::uint8_t> bytes;
    if (!corridor::formats::hex_decode(hex, bytes) || bytes.size() != 32)
        throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                              where + "the node key is 64 hex digits");
    bytes32 key{};
    std::copy(bytes.begin(), bytes.end(), key.begin());
    if (!node_public_key(key))
        throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                              where + "the node key is not a valid secp256k1 key");
    return key;
}

class spark_rail final : public sdk::rail {
public:
    static constexpr std::string_view name = "spark";
    static constexpr std::string_view version = "1.0.0";
    static constexpr std::array<std::string_view, 2> account_types{"SPARK_WALLET", "LIGHTNING"};
    static constexpr uint32_t tick_interval_ms = 1000;
    // A wallet cannot be debited by us: payers pay our address or invoice.
    static constexpr uint32_t capabilities = CORRIDOR_RAIL_CAN_PAYOUT;

    spark_rail(const sdk::host& host, std::string_view config_json) : host_(host) {
        auto config = corridor::plugin_json::parse_object(config_json, "the spark rail's config");
        const std::string where = "spark config: ";
        std::string network = required_string(config, "network", where);
        const network_names* found = nullptr;
        for (const auto& entry : networks)
            if (entry.name == network) found = &entry;
        if (!found)
            throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                                  where + "network is mainnet, testnet, signet or regtest");
        network_ = *found;
        node_key_ = read_key(config, where);
        node_public_ = node_public_key(node_key_).value();
        expiry_seconds_ =
            corridor::plugin_json::integer_or(config, "invoice_expiry_seconds", 3600, where);
        cltv_delta_ =
            corridor::plugin_json::integer_or(config, "min_final_cltv_expiry_delta", 18, where);
        if (expiry_seconds_ <= 0 || cltv_delta_ <= 0)
            throw sdk::rail_error(
                CORRIDOR_RAIL_INVALID_ARGUMENT,
                where + "invoice_expiry_seconds and min_final_cltv_expiry_delta are positive");
    }

    sdk::status validate_account(sdk::call& c, std::string_view type, std::string_view currency,
                                 std::string_view json) override {
        if (type != "SPARK_WALLET" && type != "LIGHTNING")
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED,
                          "the spark rail serves SPARK_WALLET and LIGHTNING");
        if (!currency.empty() && currency != "BTC")
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "the spark rail moves BTC only");
        auto object = corridor::plugin_json::parse_object(json, "accountInfo");
        if (type == "SPARK_WALLET") {
            auto address = read_address(object);
            c.set_result(boost::json::serialize(boost::json::object{
                {"accountType", "SPARK_WALLET"},
                {"address", required_string(object, "address", "")},
                {"identityPublicKey", hex_encode(address.identity_public_key)}}));
            return CORRIDOR_RAIL_OK;
        }
        boost::json::object normalised{{"accountType", "LIGHTNING"}};
        auto invoice_text = optional_string(object, "invoice", "");
        auto lightning_address = optional_string(object, "lightningAddress", "");
        if (!invoice_text && !lightning_address)
            return c.fail(CORRIDOR_RAIL_INVALID_ARGUMENT,
                          "invoice or lightningAddress is required");
        if (invoice_text) {
            auto invoice = read_invoice(*invoice_text);
            normalised["invoice"] = *invoice_text;
            normalised["paymentHash"] = hex_encode(invoice.fields.payment_hash);
            normalised["payee"] = hex_encode(invoice.payee);
            if (invoice.fields.amount_msat) normalised["amountMsat"] = *invoice.fields.amount_msat;
            normalised["expiresAt"] = invoice.fields.timestamp + invoice.fields.expiry_seconds;
        }
        if (lightning_address) {
            if (auto verdict = check_lightning_address(*lightning_address); !verdict)
                return c.fail(CORRIDOR_RAIL_INVALID_ARGUMENT,
                              "lightningAddress: " + verdict.error().message);
            normalised["lightningAddress"] = *lightning_address;
        }
        c.set_result(boost::json::serialize(normalised));
        return CORRIDOR_RAIL_OK;
    }

    sdk::status funding_instructions(sdk::call& c, const sdk::funding_request& request) override {
        if (request.currency != "BTC")
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "the spark rail funds BTC accounts only");
        if (request.amount_minor < 0)
            return c.fail(CORRIDOR_RAIL_INVALID_ARGUMENT, "amount is negative");
        invoice_fields fields;
        fields.network = network_.lightning;
        if (request.amount_minor > 0)
            fields.amount_msat =
                static_cast<std::uint64_t>(request.amount_minor) * 1000;  // sat -> msat
        fields.timestamp = static_cast<std::uint64_t>(request.now_ms / 1000);
        bytes32 preimage{};
        corridor::plugin_random::fill(preimage.data(), preimage.size());
        SHA256(preimage.data(), preimage.size(), fields.payment_hash.data());
        corridor::plugin_random::fill(fields.payment_secret.data(), fields.payment_secret.size());
        fields.description = "Corridor funding " + std::string(request.reference.substr(0, 500));
        fields.expiry_seconds = static_cast<std::uint64_t>(expiry_seconds_);
        fields.min_final_cltv_expiry_delta = static_cast<std::uint64_t>(cltv_delta_);
        fields.feature_bits = {8, 14};
        auto invoice = encode_invoice(fields, node_key_);
        if (!invoice) return c.fail(CORRIDOR_RAIL_INVALID_ARGUMENT, invoice.error().message);
        preimages_[hex_encode(fields.payment_hash)] = preimage;
        boost::json::object info{{"accountType", "SPARK_WALLET"},
                                 {"address", encode_spark_address(network_.spark, node_public_)},
                                 {"assetType", "BTC"},
                                 {"invoice", invoice.value()}};
        c.set_result(corridor::plugin_json::funding_instructions(
            std::move(info), "Pay the Lightning invoice before it expires.", false));
        return CORRIDOR_RAIL_OK;
    }

    sdk::status initiate(sdk::call& c, const sdk::operation& op) override {
        std::string id(op.operation_id);
        if (auto known = references_.find(id); known != references_.end()) {
            host_.send({CORRIDOR_RAIL_OUTCOME_PENDING, id, CORRIDOR_RAIL_FAILURE_NONE, "", "",
                        known->second, ""});
            return CORRIDOR_RAIL_OK;
        }
        if (op.account_type != "SPARK_WALLET" && op.account_type != "LIGHTNING")
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED,
                          "the spark rail serves SPARK_WALLET and LIGHTNING");
        if (op.direction != CORRIDOR_RAIL_PAYOUT)
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "a wallet cannot be pulled from");
        if (op.currency != "BTC")
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "the spark rail moves BTC only");
        if (op.amount_minor <= 0)
            return c.fail(CORRIDOR_RAIL_INVALID_ARGUMENT, "amount must be positive");
        auto object = corridor::plugin_json::parse_object(op.account_json, "accountInfo");
        std::string reference;
        if (op.account_type == "SPARK_WALLET") {
            read_address(object);
            std::array<std::uint8_t, 16> transfer{};
            corridor::plugin_random::fill(transfer.data(), transfer.size());
            reference = hex_encode(transfer);
        } else {
            auto invoice_text = optional_string(object, "invoice", "");
            if (!invoice_text)
                return c.fail(CORRIDOR_RAIL_UNSUPPORTED,
                              "paying a lightningAddress needs an LNURL request; give an invoice");
            auto invoice = read_invoice(*invoice_text);
            std::int64_t now_s = op.now_ms / 1000;
            if (static_cast<std::uint64_t>(now_s) >=
                invoice.fields.timestamp + invoice.fields.expiry_seconds)
                return c.fail(CORRIDOR_RAIL_DECLINED, "the invoice has expired");
            std::uint64_t amount_msat = static_cast<std::uint64_t>(op.amount_minor) * 1000;
            if (invoice.fields.amount_msat && *invoice.fields.amount_msat != amount_msat)
                return c.fail(CORRIDOR_RAIL_INVALID_ARGUMENT,
                              "the amount differs from the invoice's " +
                                  std::to_string(*invoice.fields.amount_msat) + " msat");
            reference = hex_encode(invoice.fields.payment_hash);
        }
        references_[id] = reference;
        pending_.push_back(id);
        host_.send(
            {CORRIDOR_RAIL_OUTCOME_PENDING, id, CORRIDOR_RAIL_FAILURE_NONE, "", "", reference, ""});
        return CORRIDOR_RAIL_OK;
    }

    sdk::status tick(sdk::call& c, int64_t now_ms) override {
        for (const auto& id : pending_)
            host_.send({CORRIDOR_RAIL_OUTCOME_SETTLED, id, CORRIDOR_RAIL_FAILURE_NONE, "", "",
                        references_[id], ""});
        pending_.clear();
        return CORRIDOR_RAIL_OK;
    }

private:
    spark_address read_address(const boost::json::object& object) const {
        auto address = parse_spark_address(required_string(object, "address", ""));
        if (!address)
            throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                                  "address: " + address.error().message);
        if (address->network != network_.spark)
            throw sdk::rail_error(
                CORRIDOR_RAIL_INVALID_ARGUMENT,
                "address: not a " + std::string(network_.name) + " Spark address");
        if (address->has_invoice_fields)
            throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                                  "address: a Spark invoice, not a plain wallet address");
        return address.value();
    }

    decoded_invoice read_invoice(const std::string& text) const {
        auto invoice = decode_invoice(text);
        if (!invoice)
            throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                                  "invoice: " + invoice.error().message);
        if (invoice->fields.network != network_.lightning)
            throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                                  "invoice: not a " + std::string(network_.name) + " invoice");
        return invoice.value();
    }

    sdk::host host_;
    network_names network_;
    bytes32 node_key_{};
    bytes33 node_public_{};
    std::int64_t expiry_seconds_ = 3600;
    std::int64_t cltv_delta_ = 18;
    std::map<std::string, bytes32> preimages_;       // payment hash -> preimage of our invoices
    std::map<std::string, std::string> references_;  // operation id -> transfer id / payment hash
    std::vector<std::string> pending_;
};

}  // namespace

CORRIDOR_RAIL_PLUGIN(spark_rail)
