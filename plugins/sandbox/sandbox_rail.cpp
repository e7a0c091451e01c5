// The sandbox rail: moves no money, and answers like the real rails do, following the interface's
// failure patterns on an external account's primary identifier (account number, CLABE, PIX key,
// IBAN, VPA, wallet address, invoice):
//   ...002  insufficient funds            ...003  account closed or invalid
//   ...004  rejected by the bank          ...005  pending for timeout_ms, then failed (timeout)
//   anything else settles at once.
// Each failure carries the reason code the corresponding real rail would give (ACH R-codes for US
// accounts, ISO 20022 / SPI codes for PIX and IBAN, SPEI return codes for CLABE, Lightning payment
// failure reasons for Spark and Lightning).
//
// Nothing here needs to outlive the process: only 005 operations wait, and their timers live in
// memory. After a restart the host initiates its still-open operations again, so a 005 operation
// is pending for timeout_ms once more from then (and the host's settlement timeout ends it in any
// case); every other pattern answers within initiate.
#include <boost/json.hpp>
#include <map>
#include <string>

#include "plugins/common/plugin_json.hpp"
#include "rails/plugin_sdk.hpp"
#include "rails/rail_sdk/formats/text.hpp"

namespace sdk = corridor::rail_sdk;
namespace json = boost::json;

namespace {

enum class family { ach, pix, spei, sepa, lightning, generic };

family family_of(std::string_view type) {
    if (type == "US_ACCOUNT" || type == "USD_ACCOUNT") return family::ach;
    if (type == "PIX" || type == "BRL_ACCOUNT") return family::pix;
    if (type == "CLABE" || type == "MXN_ACCOUNT") return family::spei;
    if (type == "IBAN" || type == "EUR_ACCOUNT") return family::sepa;
    if (type == "SPARK_WALLET" || type == "LIGHTNING") return family::lightning;
    return family::generic;
}

// The field of accountInfo that identifies the destination, by account type.
std::string_view primary_field(std::string_view type) {
    if (type == "CLABE") return "clabeNumber";
    if (type == "PIX") return "pixKey";
    if (type == "IBAN") return "iban";
    if (type == "UPI") return "vpa";
    if (type == "SPARK_WALLET") return "address";
    if (type == "LIGHTNING") return "invoice";
    return "accountNumber";
}

struct failure_code {
    corridor_rail_failure failure;
    std::string_view code;
};

// rails.md section 5: the code each rail gives for each sandbox pattern.
failure_code code_for(family f, char pattern, corridor_rail_direction direction) {
    bool pull = direction == CORRIDOR_RAIL_PULL;
    switch (pattern) {
        case '2':
            switch (f) {
                case family::ach: return {CORRIDOR_RAIL_FAILURE_INSUFFICIENT_FUNDS, "R01"};
                case family::pix: return {CORRIDOR_RAIL_FAILURE_INSUFFICIENT_FUNDS, "AM04"};
                case family::sepa: return {CORRIDOR_RAIL_FAILURE_INSUFFICIENT_FUNDS, "AM04"};
                case family::lightning:
                    return {CORRIDOR_RAIL_FAILURE_INSUFFICIENT_FUNDS, "INSUFFICIENT_BALANCE"};
                default: return {CORRIDOR_RAIL_FAILURE_INSUFFICIENT_FUNDS, "INSUFFICIENT_FUNDS"};
            }
        case '3':
            switch (f) {
                case family::ach: return {CORRIDOR_RAIL_FAILURE_ACCOUNT_INVALID, "R03"};
                case family::pix: return {CORRIDOR_RAIL_FAILURE_ACCOUNT_INVALID, "AC03"};
                case family::spei: return {CORRIDOR_RAIL_FAILURE_ACCOUNT_INVALID, "01"};
                case family::sepa: return {CORRIDOR_RAIL_FAILURE_ACCOUNT_INVALID, "AC04"};
                case family::lightning:
                    return {CORRIDOR_RAIL_FAILURE_ACCOUNT_INVALID, "INCORRECT_PAYMENT_DETAILS"};
                default: return {CORRIDOR_RAIL_FAILURE_ACCOUNT_INVALID, "ACCOUNT_CLOSED"};
            }
        case '4':
            switch (f) {
                case family::ach: return {CORRIDOR_RAIL_FAILURE_REJECTED, pull ? "R10" : "R23"};
                case family::pix: return {CORRIDOR_RAIL_FAILURE_REJECTED, "DS04"};
                case family::spei: return {CORRIDOR_RAIL_FAILURE_REJECTED, "02"};
                case family::sepa: return {CORRIDOR_RAIL_FAILURE_REJECTED, "AC06"};
                case family::lightning:
                    return {CORRIDOR_RAIL_FAILURE_REJECTED, "RISK_SCREENING_FAILED"};
                default: return {CORRIDOR_RAIL_FAILURE_REJECTED, "REJECTED"};
            }
        default:
            switch (f) {
                case family::pix: return {CORRIDOR_RAIL_FAILURE_TIMEOUT, "AB03"};
                // ACH has no return code for "no answer": a processor-level timeout.
                default: return {CORRIDOR_RAIL_FAILURE_TIMEOUT, "TIMEOUT"};
            }
    }
}

// The interface's failureReason for an outgoing failure, when one is more precise than the host's
// default: Lightning payouts fail as LIGHTNING_PAYMENT_FAILED, timeouts as TIMEOUT.
std::string_view outgoing_reason(family f, corridor_rail_failure failure) {
    if (failure == CORRIDOR_RAIL_FAILURE_TIMEOUT) return "TIMEOUT";
    if (f == family::lightning) return "LIGHTNING_PAYMENT_FAILED";
    return "";
}

// The sandbox's receiving accounts, one per currency, in each country's format (the well-known
// test IBAN, CLABE and ABA routing number); the same details as the service's default
// conf/funding.json, so instructions read the same whichever of the two gives them. Empty for a
// currency the sandbox does not receive.
json::object sandbox_bank_details(std::string_view currency) {
    if (currency == "USD")
        return {{"accountType", "US_ACCOUNT"},   {"paymentRails", json::array{"ACH"}},
                {"accountNumber", "4002718830"}, {"routingNumber", "021000021"},
                {"accountCategory", "CHECKING"}, {"bankName", "Corridor Sandbox Bank"}};
    if (currency == "EUR")
        return {{"accountType", "IBAN"},
                {"iban", "DE89370400440532013000"},
                {"swiftBic", "COBADEFFXXX"}};
    if (currency == "GBP")
        return {
            {"accountType", "GBP_ACCOUNT"}, {"sortCode", "040004"}, {"accountNumber", "41288302"}};
    if (currency == "MXN") return {{"accountType", "CLABE"}, {"clabeNumber", "002010077777777771"}};
    if (currency == "BRL")
        return {{"accountType", "PIX"},
                {"pixKey", "4d2b8c1e-6f1a-4c55-9d3e-2f3c6a7b8e90"},
                {"pixKeyType", "RANDOM"},
                {"taxId", "11222333000181"}};
    if (currency == "INR") return {{"accountType", "UPI"}, {"vpa", "corridor.sandbox@upi"}};
    if (currency == "NGN")
        return {{"accountType", "NGN_ACCOUNT"},
                {"accountNumber", "0123456789"},
                {"bankName", "Corridor Sandbox Bank Nigeria"}};
    if (currency == "CAD")
        return {{"accountType", "CAD_ACCOUNT"},
                {"bankCode", "001"},
                {"branchCode", "00011"},
                {"accountNumber", "1234567"}};
    if (currency == "SGD")
        return {{"accountType", "SGD_ACCOUNT"},
                {"bankName", "Corridor Sandbox Bank Singapore"},
                {"swiftCode", "DBSSSGSG"},
                {"accountNumber", "0721234567"}};
    if (currency == "PHP")
        return {{"accountType", "PHP_ACCOUNT"},
                {"bankName", "Corridor Sandbox Bank Philippines"},
                {"accountNumber", "001234567890"}};
    if (currency == "BTC")
        return {
            {"accountType", "SPARK_WALLET"},
            {"address", "sparkrt1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc8pt5y4"},
            {"assetType", "BTC"}};
    return {};
}

class sandbox_rail final : public sdk::rail {
public:
    static constexpr std::string_view name = "sandbox";
    static constexpr std::string_view version = "1.0.0";
    static constexpr std::array<std::string_view, 17> account_types{
        "US_ACCOUNT",  "USD_ACCOUNT", "CLABE",       "MXN_ACCOUNT",  "PIX",         "BRL_ACCOUNT",
        "IBAN",        "EUR_ACCOUNT", "UPI",         "INR_ACCOUNT",  "NGN_ACCOUNT", "CAD_ACCOUNT",
        "GBP_ACCOUNT", "PHP_ACCOUNT", "SGD_ACCOUNT", "SPARK_WALLET", "LIGHTNING"};
    static constexpr uint32_t tick_interval_ms = 250;
    // The simulator plays both directions for every account type.
    static constexpr uint32_t capabilities = CORRIDOR_RAIL_CAN_PAYOUT | CORRIDOR_RAIL_CAN_PULL;

    sandbox_rail(const sdk::host& host, std::string_view config_json) : host_(host) {
        json::value config = json::parse(config_json);
        if (!config.is_object())
            throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT, "settings must be an object");
        if (const auto* timeout = config.as_object().if_contains("timeout_ms")) {
            if (!timeout->is_int64() || timeout->as_int64() < 0) {
                throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                                      "timeout_ms must be a non-negative integer");
            }
            timeout_ms_ = timeout->as_int64();
        }
    }

    sdk::status validate_account(sdk::call& c, std::string_view type, std::string_view currency,
                                 std::string_view account_json) override {
        std::string identifier;
        if (!read_identifier(c, type, account_json, identifier))
            return CORRIDOR_RAIL_INVALID_ARGUMENT;
        return CORRIDOR_RAIL_OK;
    }

    sdk::status funding_instructions(sdk::call& c, const sdk::funding_request& r) override {
        json::object info = sandbox_bank_details(r.currency);
        if (info.empty()) {
            return c.fail(
                CORRIDOR_RAIL_UNSUPPORTED,
                "the sandbox gives no funding instructions for " + std::string(r.currency));
        }
        info["reference"] = r.reference;
        c.set_result(corridor::plugin_json::funding_instructions(
            std::move(info), "Sandbox: no real money moves", true));
        return CORRIDOR_RAIL_OK;
    }

    sdk::status initiate(sdk::call& c, const sdk::operation& op) override {
        std::string identifier;
        if (!read_identifier(c, op.account_type, op.account_json, identifier))
            return CORRIDOR_RAIL_INVALID_ARGUMENT;
        std::string id(op.operation_id);
        std::string reference = "SBX-" + id.substr(id.size() > 12 ? id.size() - 12 : 0);
        char pattern = corridor::formats::sandbox_failure_pattern(identifier);
        family f = family_of(op.account_type);
        if (pattern == '5') {
            host_.send({CORRIDOR_RAIL_OUTCOME_PENDING, id, CORRIDOR_RAIL_FAILURE_NONE, "", "",
                        reference, ""});
            waiting_[id] = {op.now_ms + timeout_ms_, f, op.direction, reference};
            return CORRIDOR_RAIL_OK;
        }
        if (pattern == 0) {
            host_.send({CORRIDOR_RAIL_OUTCOME_SETTLED, id, CORRIDOR_RAIL_FAILURE_NONE, "", "",
                        reference, ""});
            return CORRIDOR_RAIL_OK;
        }
        report_failure(id, f, pattern, op.direction, reference);
        return CORRIDOR_RAIL_OK;
    }

    sdk::status tick(sdk::call& c, int64_t now_ms) override {
        for (auto it = waiting_.begin(); it != waiting_.end();) {
            if (it->second.due_ms > now_ms) {
                ++it;
                continue;
            }
            report_failure(it->first, it->second.rail_family, '5', it->second.direction,
                           it->second.reference);
            it = waiting_.erase(it);
        }
        return CORRIDOR_RAIL_OK;
    }

private:
    struct waiting {
        int64_t due_ms;
        family rail_family;
        corridor_rail_direction direction;
        std::string reference;
    };

    bool read_identifier(sdk::call& c, std::string_view type, std::string_view account_json,
                         std::string& out) const {
        boost::system::error_code ec;
        json::value info = json::parse(account_json, ec);
        if (ec || !info.is_object()) {
            c.set_error("accountInfo must be a JSON object");
            return false;
        }
        std::string_view field = primary_field(type);
        const json::value* value = info.as_object().if_contains(field);
        // A Lightning destination is an invoice or a lightning address.
        if (value == nullptr && type == "LIGHTNING")
            value = info.as_object().if_contains("lightningAddress");
        if (value == nullptr || !value->is_string() || value->as_string().empty()) {
            c.set_error("accountInfo." + std::string(field) + " is required for " +
                        std::string(type));
            return false;
        }
        out = std::string(value->as_string());
        return true;
    }

    void report_failure(const std::string& id, family f, char pattern,
                        corridor_rail_direction direction, const std::string& reference) {
        failure_code code = code_for(f, pattern, direction);
        std::string_view reason =
            direction == CORRIDOR_RAIL_PAYOUT ? outgoing_reason(f, code.failure) : "";
        host_.send({CORRIDOR_RAIL_OUTCOME_FAILED, id, code.failure, code.code, reason, reference,
                    "sandbox failure pattern 00" + std::string(1, pattern)});
    }

    sdk::host host_;
    int64_t timeout_ms_ = 30000;
    std::map<std::string, waiting> waiting_;
};

}  // namespace

CORRIDOR_RAIL_PLUGIN(sandbox_rail)
