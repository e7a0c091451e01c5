// The Spark/Lightning rail plugin (spark.so): SPARK_WALLET and LIGHTNING account validation,
// funding instructions carrying a BOLT #11 invoice signed with the service's node key, and payouts
// to a Spark address or a BOLT #11 invoice. Without a node to talk to, an accepted payout is
// reported PENDING (reference: the transfer id or the payment hash) and SETTLED on the next tick.
// Wallets cannot be pulled from.
//
// The sandbox environment (the rail declares CORRIDOR_RAIL_SERVES_SANDBOX, so it serves the sandbox
// itself instead of the sandbox simulator rail): identifiers (address or invoice) ending 002, 003,
// 004 fail with the Lightning reasons of the sandbox patterns, 005 stays pending for
// sandbox_timeout_ms and then times out. With sandbox_network_dir set, a LIGHTNING payout pays the
// invoice through the sandbox network (plugins/spark/sandbox_network.hpp): it settles at once, and
// an invoice someone paid before fails with INVOICE_ALREADY_PAID. Each tick the rail scans the
// network for payments of invoices whose payee is its node key and reports each through
// report_incoming (ABI 1.2), with the funding reference read back from its own funding invoices;
// the host records each once, so a restarted rail reporting them again is harmless.
//
// Payouts survive a restart (plugins/spark/payout_journal.hpp): each is logged (synced) in
// data_dir/state/payouts.log before any money moves or initiate answers OK, and its final outcome
// before it is reported. The host re-initiates after a restart every operation it handed over
// without a final report; a known operation id is answered from the log (the final outcome again,
// or the same wait resumed) and never paid twice. One that had started through the sandbox network
// asks the network again, which counts the payer's own earlier payment of the invoice as this
// operation's success. One process writes the folder; an instance that finds it locked moves no
// money.
//
// Config (JSON): network (mainnet, testnet, signet, regtest), and the node key as
// node_private_key_hex or node_private_key_file (a file holding the hex), data_dir (the rail's own
// folder; the host gives one); optional invoice_expiry_seconds (default 3600),
// min_final_cltv_expiry_delta (default 18), sandbox_network_dir (a folder shared by the instances
// that form one sandbox network; absent or empty: sandbox Lightning payouts settle without it),
// sandbox_timeout_ms (default 30000).
#include <openssl/sha.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "plugins/common/plugin_json.hpp"
#include "plugins/common/random_bytes.hpp"
#include "plugins/spark/payout_journal.hpp"
#include "plugins/spark/sandbox_network.hpp"
#include "plugins/spark/spark_address.hpp"
#include "rails/plugin_sdk.hpp"
#include "rails/rail_sdk/formats/text.hpp"
#include "rails/rail_sdk/lightning/bolt11.hpp"

namespace sdk = corridor::rail_sdk;
using namespace corridor::spark;
using namespace corridor::lightning;
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

// The description of the funding invoices this rail signs; what follows it is the host's funding
// reference, read back when the invoice is paid (the signature proves the rail wrote it).
constexpr std::string_view funding_description = "Corridor funding ";
constexpr std::size_t reference_bytes_max = 200;  // what the host accepts as a reference
constexpr std::size_t arrivals_per_tick_max = 256;

// An outcome without a failure (PENDING, SETTLED).
payout_outcome plain(corridor_rail_outcome state) {
    payout_outcome o;
    o.state = state;
    return o;
}

// The Lightning failure of a sandbox pattern (the codes of rails.md section 5).
payout_outcome pattern_failure(char pattern) {
    switch (pattern) {
        case '2':
            return {CORRIDOR_RAIL_OUTCOME_FAILED, CORRIDOR_RAIL_FAILURE_INSUFFICIENT_FUNDS,
                    "INSUFFICIENT_BALANCE", "LIGHTNING_PAYMENT_FAILED",
                    "sandbox failure pattern 002"};
        case '3':
            return {CORRIDOR_RAIL_OUTCOME_FAILED, CORRIDOR_RAIL_FAILURE_ACCOUNT_INVALID,
                    "INCORRECT_PAYMENT_DETAILS", "LIGHTNING_PAYMENT_FAILED",
                    "sandbox failure pattern 003"};
        case '4':
            return {CORRIDOR_RAIL_OUTCOME_FAILED, CORRIDOR_RAIL_FAILURE_REJECTED,
                    "RISK_SCREENING_FAILED", "LIGHTNING_PAYMENT_FAILED",
                    "sandbox failure pattern 004"};
        default:
            return {CORRIDOR_RAIL_OUTCOME_FAILED, CORRIDOR_RAIL_FAILURE_TIMEOUT, "TIMEOUT",
                    "TIMEOUT", "sandbox failure pattern 005"};
    }
}

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
    // A wallet cannot be debited by us: payers pay our address or invoice. The rail simulates the
    // sandbox itself (its network folder reaches other Corridor instances).
    static constexpr uint32_t capabilities =
        CORRIDOR_RAIL_CAN_PAYOUT | CORRIDOR_RAIL_SERVES_SANDBOX;

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
        sandbox_timeout_ms_ =
            corridor::plugin_json::integer_or(config, "sandbox_timeout_ms", 30000, where);
        if (sandbox_timeout_ms_ < 0)
            throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                                  where + "sandbox_timeout_ms is not negative");
        if (auto dir = optional_string(config, "sandbox_network_dir", where);
            dir && !dir->empty()) {
            try {
                network_folder_ = std::make_unique<sandbox_network>(*dir);
            } catch (const std::runtime_error& error) {
                throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT, where + error.what());
            }
        }
        open_journal(std::filesystem::path(required_string(config, "data_dir", where)) / "state");
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
        fields.description = std::string(funding_description) +
                             std::string(request.reference.substr(0, reference_bytes_max));
        fields.expiry_seconds = static_cast<std::uint64_t>(expiry_seconds_);
        fields.min_final_cltv_expiry_delta = static_cast<std::uint64_t>(cltv_delta_);
        fields.feature_bits = {8, 14};
        bytes32 preimage{};
        auto invoice = encode_fresh_invoice(
            fields, node_key_, request.environment == "sandbox", [&preimage](invoice_fields& f) {
                corridor::plugin_random::fill(preimage.data(), preimage.size());
                SHA256(preimage.data(), preimage.size(), f.payment_hash.data());
                corridor::plugin_random::fill(f.payment_secret.data(), f.payment_secret.size());
            });
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
        if (!journal_->writable())
            return c.fail(CORRIDOR_RAIL_UNAVAILABLE,
                          "the spark state folder is in use by another process");
        std::string id(op.operation_id);
        if (const payout_record* known = journal_->find(id)) {
            // The host retries an operation it handed over before (after its restart or ours):
            // answered from the log, never paid again.
            if (auto mismatch = differs(*known, op))
                return c.fail(CORRIDOR_RAIL_INVALID_ARGUMENT, *mismatch);
            return proceed(c, *known, op.now_ms);
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
        const bool sandbox = op.environment == "sandbox";
        payout_record record;
        record.operation_id = id;
        record.account_type = std::string(op.account_type);
        record.amount_minor = op.amount_minor;
        record.amount_msat = static_cast<std::uint64_t>(op.amount_minor) * 1000;
        record.started_at_ms = op.now_ms;
        if (op.account_type == "SPARK_WALLET") {
            record.destination = required_string(object, "address", "");
            read_address(object);
            std::array<std::uint8_t, 16> transfer{};
            corridor::plugin_random::fill(transfer.data(), transfer.size());
            record.reference = hex_encode(transfer);
            record.pattern =
                sandbox ? corridor::formats::sandbox_failure_pattern(record.destination) : 0;
            return start(c, std::move(record), op.now_ms);
        }
        auto invoice_text = optional_string(object, "invoice", "");
        if (!invoice_text)
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED,
                          "paying a lightningAddress needs an LNURL request; give an invoice");
        auto invoice = read_invoice(*invoice_text);
        std::int64_t now_s = op.now_ms / 1000;
        if (static_cast<std::uint64_t>(now_s) >=
            invoice.fields.timestamp + invoice.fields.expiry_seconds)
            return c.fail(CORRIDOR_RAIL_DECLINED, "the invoice has expired");
        // An invoice with an amount is paid exactly that many millisatoshis, by a payout of the
        // whole satoshis that cover it (an UMA invoice need not be a whole number of satoshis);
        // one without is paid the payout's amount.
        if (invoice.fields.amount_msat) {
            std::uint64_t asked = *invoice.fields.amount_msat;
            if ((asked + 999) / 1000 != static_cast<std::uint64_t>(op.amount_minor))
                return c.fail(CORRIDOR_RAIL_INVALID_ARGUMENT,
                              "the amount differs from the invoice's " + std::to_string(asked) +
                                  " msat (a payout of " + std::to_string((asked + 999) / 1000) +
                                  " sat)");
            record.amount_msat = asked;
        }
        record.destination = *invoice_text;
        record.reference = hex_encode(invoice.fields.payment_hash);
        record.pattern = sandbox ? corridor::formats::sandbox_failure_pattern(*invoice_text) : 0;
        if (sandbox && record.pattern == 0 && network_folder_) record.route = payout_route::network;
        return start(c, std::move(record), op.now_ms);
    }

    sdk::status tick(sdk::call& c, int64_t now_ms) override {
        for (auto it = pending_.begin(); it != pending_.end();) {
            bool done = finish(*journal_->find(*it), plain(CORRIDOR_RAIL_OUTCOME_SETTLED));
            it = done ? pending_.erase(it) : std::next(it);
        }
        for (auto it = timing_out_.begin(); it != timing_out_.end();) {
            bool done =
                it->second <= now_ms && finish(*journal_->find(it->first), pattern_failure('5'));
            it = done ? timing_out_.erase(it) : std::next(it);
        }
        if (network_folder_) receive_from_network(now_ms);
        return CORRIDOR_RAIL_OK;
    }

private:
    void send(const payout_record& record, const payout_outcome& o) const {
        host_.send({o.state, record.operation_id, o.failure, o.code, o.reason, record.reference,
                    o.message});
    }

    // Why a retried operation is not the one logged under its id, if it is not.
    static std::optional<std::string> differs(const payout_record& known,
                                              const sdk::operation& op) {
        std::string destination;
        boost::system::error_code error;
        auto parsed = boost::json::parse(op.account_json, error);
        if (!error && parsed.is_object()) {
            const char* key = known.account_type == "SPARK_WALLET" ? "address" : "invoice";
            if (const auto* value = parsed.as_object().if_contains(key);
                value && value->is_string())
                destination = std::string(value->as_string());
        }
        if (op.account_type != known.account_type || op.amount_minor != known.amount_minor ||
            destination != known.destination || op.direction != CORRIDOR_RAIL_PAYOUT)
            return "operation " + known.operation_id +
                   " was initiated before with another destination or amount";
        return std::nullopt;
    }

    // Logs a new payout, then sets it going; nothing moves when it cannot be logged.
    sdk::status start(sdk::call& c, payout_record record, std::int64_t now_ms) {
        try {
            journal_->start(record);
        } catch (const std::exception& error) {
            host_.log(CORRIDOR_RAIL_LOG_ERROR, error.what());
            return c.fail(CORRIDOR_RAIL_UNAVAILABLE, "the spark state cannot be written now");
        }
        return proceed(c, *journal_->find(record.operation_id), now_ms);
    }

    // Takes a logged payout on from where it stands: its final outcome again; through the
    // network (which finds its own earlier payment); a sandbox pattern's outcome; or PENDING
    // until a tick settles it or times it out.
    sdk::status proceed(sdk::call& c, const payout_record& record, std::int64_t now_ms) {
        if (record.outcome) {
            send(record, *record.outcome);
            return CORRIDOR_RAIL_OK;
        }
        if (record.route == payout_route::network) return pay_through_network(c, record, now_ms);
        if (record.pattern == '2' || record.pattern == '3' || record.pattern == '4')
            return finish(record, pattern_failure(record.pattern))
                       ? CORRIDOR_RAIL_OK
                       : c.fail(CORRIDOR_RAIL_UNAVAILABLE, "the spark state cannot be written now");
        if (record.pattern == '5')
            timing_out_[record.operation_id] = record.started_at_ms + sandbox_timeout_ms_;
        else
            pending_.insert(record.operation_id);
        send(record, plain(CORRIDOR_RAIL_OUTCOME_PENDING));
        return CORRIDOR_RAIL_OK;
    }

    // Logs a final outcome, then reports it; false (and nothing reported) when it cannot be
    // logged, so that it is tried again rather than reported and forgotten.
    bool finish(const payout_record& record, const payout_outcome& o) {
        try {
            journal_->finish(record.operation_id, o);
        } catch (const std::exception& error) {
            host_.log(CORRIDOR_RAIL_LOG_ERROR, error.what());
            return false;
        }
        send(record, o);
        return true;
    }

    sdk::status pay_through_network(sdk::call& c, const payout_record& record,
                                    std::int64_t now_ms) {
        if (!network_folder_)
            return c.fail(CORRIDOR_RAIL_UNAVAILABLE,
                          "operation " + record.operation_id +
                              " started through the sandbox network, which is not configured now");
        auto invoice = decode_invoice(record.destination);
        if (!invoice)
            return c.fail(CORRIDOR_RAIL_INTERNAL,
                          "a logged invoice does not decode: " + invoice.error().message);
        // The record in the network names this node and operation, so asking again after a
        // crash finds the payment made before it rather than making another.
        auto paid = network_folder_->pay(record.destination, invoice.value(), record.amount_msat,
                                         hex_encode(node_public_), record.operation_id, now_ms);
        payout_outcome o = plain(CORRIDOR_RAIL_OUTCOME_SETTLED);
        switch (paid.outcome) {
            case payment_outcome::paid:
            case payment_outcome::paid_before_by_us: break;
            case payment_outcome::already_paid:
                o = {CORRIDOR_RAIL_OUTCOME_FAILED, CORRIDOR_RAIL_FAILURE_REJECTED,
                     "INVOICE_ALREADY_PAID", "LIGHTNING_PAYMENT_FAILED", paid.message};
                break;
            case payment_outcome::failed:
                // Nothing was paid: the host tries again once its lease runs out.
                return c.fail(CORRIDOR_RAIL_UNAVAILABLE, paid.message);
        }
        // Paid but not logged: the retry asks the network again and finds this payment.
        if (!finish(record, o))
            return c.fail(CORRIDOR_RAIL_UNAVAILABLE, "the spark state cannot be written now");
        return CORRIDOR_RAIL_OK;
    }

    // Takes the state folder's lock and reads back every payout handed over before.
    void open_journal(const std::filesystem::path& state_dir) {
        try {
            journal_ = std::make_unique<payout_journal>(state_dir);
        } catch (const std::exception& error) {
            throw sdk::rail_error(CORRIDOR_RAIL_INTERNAL, std::string("spark: ") + error.what());
        }
        if (!journal_->writable())
            host_.log(CORRIDOR_RAIL_LOG_WARN,
                      "the state folder " + state_dir.string() +
                          " is in use by another process: this instance moves no money");
        if (journal_->cut_at_open() > 0)
            host_.log(CORRIDOR_RAIL_LOG_WARN,
                      journal_->path().string() + ": cut off a torn last line of " +
                          std::to_string(journal_->cut_at_open()) +
                          " bytes (an append a crash interrupted; it was never acknowledged)");
    }

    // Payments of our invoices found in the sandbox network, each reported once per run (the host
    // records each once across runs). A funding invoice of ours carries the host's reference.
    void receive_from_network(std::int64_t now_ms) {
        std::vector<std::string> problems;
        auto found = network_folder_->receive(node_public_, network_.lightning,
                                              arrivals_per_tick_max, problems);
        for (const auto& problem : problems)
            host_.log(CORRIDOR_RAIL_LOG_WARN, "sandbox network: " + problem);
        for (const auto& payment : found) {
            if (payment.amount_msat < 1000) {
                host_.log(CORRIDOR_RAIL_LOG_WARN, "sandbox network: payment " +
                                                      payment.payment_hash +
                                                      " is below one satoshi; not reported");
                continue;
            }
            std::string reference;
            const auto& description = payment.invoice.fields.description;
            if (description && description->starts_with(funding_description) &&
                description->size() - funding_description.size() <= reference_bytes_max)
                reference = description->substr(funding_description.size());
            auto status =
                host_.receive({"sandbox", payment.payment_hash, payment.payment_hash, reference,
                               "BTC", static_cast<std::int64_t>(payment.amount_msat / 1000),
                               static_cast<std::int64_t>(payment.amount_msat), now_ms,
                               "paid through the sandbox Lightning network"});
            if (status != CORRIDOR_RAIL_OK)
                host_.log(CORRIDOR_RAIL_LOG_ERROR,
                          "sandbox network: the host refused payment " + payment.payment_hash);
        }
    }

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
    std::int64_t sandbox_timeout_ms_ = 30000;
    std::unique_ptr<sandbox_network> network_folder_;  // null: no sandbox network
    std::map<std::string, bytes32> preimages_;         // payment hash -> preimage of our invoices
    std::unique_ptr<payout_journal> journal_;          // every payout handed to us, on disk
    std::set<std::string> pending_;                    // operation ids that settle on a tick
    std::map<std::string, std::int64_t> timing_out_;   // operation id -> when pattern 005 fails
};

}  // namespace

CORRIDOR_RAIL_PLUGIN(spark_rail)
