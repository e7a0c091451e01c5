// example_rail: a complete small Corridor rail plugin, the starting point for a new rail.
//
// It pays out to US bank accounts (US_ACCOUNT) and simulates its own network in the sandbox
// (SERVES_SANDBOX), so a sandbox transfer-out through Corridor reaches it. A payout is accepted at
// once (PENDING with a rail reference) and settles settle_after_ms later on the host's clock; an
// account number ending in 002, 003 or 004 fails it (insufficient funds, account invalid,
// rejected), as the interface's sandbox patterns do.
//
// What a real rail needs, each shown once:
//   - settings read from the JSON object create receives (settings.json shows them), data_dir
//     included: the host made that folder before create;
//   - every accepted payout written to a journal in data_dir, synced, before initiate answers OK,
//     so that after a restart a payout initiated again is recognised (same reference, same
//     outcome) and never paid twice;
//   - no blocking and no wall clock: waiting is a timer on host time, finished by tick.
#include <corridor/rail_sdk.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace sdk = corridor::rail_sdk;

namespace {

struct payout {
    std::string reference;  // the rail's id for it, stable across restarts
    int32_t outcome = CORRIDOR_RAIL_OUTCOME_PENDING;
    int32_t failure = CORRIDOR_RAIL_FAILURE_NONE;
    std::string reason_code;
};

bool digits(std::string_view text, std::size_t min, std::size_t max) {
    if (text.size() < min || text.size() > max) return false;
    for (char c : text)
        if (c < '0' || c > '9') return false;
    return true;
}

class example_rail final : public sdk::rail {
public:
    static constexpr std::string_view name = "example";
    static constexpr std::string_view version = "1.0.0";
    static constexpr std::array<std::string_view, 1> account_types{"US_ACCOUNT"};
    static constexpr uint32_t tick_interval_ms = 100;
    static constexpr uint32_t capabilities =
        CORRIDOR_RAIL_CAN_PAYOUT | CORRIDOR_RAIL_SERVES_SANDBOX;

    example_rail(const sdk::host& host, std::string_view config_json)
        : host_(host),
          settings_(sdk::json::parse_object(config_json)),
          settle_after_ms_(settings_.integer_or("settle_after_ms", 1000)),
          journal_(settings_.text("data_dir") + "/payouts.log") {
        if (settle_after_ms_ < 0) throw sdk::json::settings_error("settle_after_ms must be >= 0");
        // The journal: "accepted ID REFERENCE DUE_MS" then "final ID OUTCOME FAILURE CODE".
        for (const auto& line : journal_.lines_at_open()) replay(line);
        if (journal_.cut_at_open() > 0)
            host_.log(CORRIDOR_RAIL_LOG_WARN, "dropped a torn last journal line");
        host_.log(CORRIDOR_RAIL_LOG_INFO,
                  "example rail ready, " + std::to_string(payouts_.size()) + " payouts known");
    }

    sdk::status validate_account(sdk::call& c, std::string_view type, std::string_view currency,
                                 std::string_view account_json) override {
        if (type != "US_ACCOUNT") return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "only US_ACCOUNT");
        if (!currency.empty() && currency != "USD")
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "this rail moves USD only");
        auto account = sdk::json::parse_object(account_json, "accountInfo");
        if (!digits(account.text_or("accountNumber", ""), 4, 17))
            return c.fail(CORRIDOR_RAIL_INVALID_ARGUMENT, "accountNumber must be 4 to 17 digits");
        if (!digits(account.text_or("routingNumber", ""), 9, 9))
            return c.fail(CORRIDOR_RAIL_INVALID_ARGUMENT, "routingNumber must be 9 digits");
        return CORRIDOR_RAIL_OK;
    }

    sdk::status initiate(sdk::call& c, const sdk::operation& op) override {
        clock_.observe(op.now_ms);
        if (op.direction != CORRIDOR_RAIL_PAYOUT)
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "this rail only pays out");
        std::string id(op.operation_id);
        if (auto known = payouts_.find(id); known != payouts_.end()) {
            // A retry after a restart: answer with what we know, never pay again.
            report(id, known->second);
            return CORRIDOR_RAIL_OK;
        }
        sdk::status valid = validate_account(c, op.account_type, op.currency, op.account_json);
        if (valid != CORRIDOR_RAIL_OK) return valid;
        auto account = sdk::json::parse_object(op.account_json, "accountInfo");
        std::string number = account.text("accountNumber");
        payout made;
        made.reference =
            "EX" + std::to_string(op.now_ms) + "-" + std::to_string(payouts_.size() + 1);
        std::int64_t due_ms = op.now_ms + settle_after_ms_;
        // Durable before we answer OK: a crash after this line still knows the payout.
        journal_.append("accepted " + id + " " + made.reference + " " + std::to_string(due_ms) +
                        " " + number.substr(number.size() - 3));
        payouts_[id] = made;
        timers_.at(due_ms, id);
        ending_[id] = number.substr(number.size() - 3);
        report(id, made);
        return CORRIDOR_RAIL_OK;
    }

    sdk::status tick(sdk::call&, int64_t now_ms) override {
        clock_.observe(now_ms);
        for (const auto& id : timers_.take_due(clock_.now_ms())) finish(id);
        return CORRIDOR_RAIL_OK;
    }

private:
    void replay(const std::string& line) {
        std::vector<std::string> words;
        for (std::size_t at = 0; at <= line.size();) {
            std::size_t end = line.find(' ', at);
            if (end == std::string::npos) end = line.size();
            words.push_back(line.substr(at, end - at));
            at = end + 1;
        }
        if (words.size() == 5 && words[0] == "accepted") {
            payouts_[words[1]].reference = words[2];
            timers_.at(std::stoll(words[3]), words[1]);
            ending_[words[1]] = words[4];
        } else if (words.size() == 5 && words[0] == "final") {
            payout& p = payouts_[words[1]];
            p.outcome = std::stoi(words[2]);
            p.failure = std::stoi(words[3]);
            p.reason_code = words[4] == "-" ? "" : words[4];
        } else {
            throw sdk::rail_error(CORRIDOR_RAIL_INTERNAL, "payouts.log: bad line: " + line);
        }
    }

    void finish(const std::string& id) {
        payout& p = payouts_[id];
        if (p.outcome != CORRIDOR_RAIL_OUTCOME_PENDING) return;  // finished before a restart
        const std::string& ending = ending_[id];
        p.outcome = CORRIDOR_RAIL_OUTCOME_FAILED;
        if (ending == "002") {
            p.failure = CORRIDOR_RAIL_FAILURE_INSUFFICIENT_FUNDS;
            p.reason_code = "R01";
        } else if (ending == "003") {
            p.failure = CORRIDOR_RAIL_FAILURE_ACCOUNT_INVALID;
            p.reason_code = "R03";
        } else if (ending == "004") {
            p.failure = CORRIDOR_RAIL_FAILURE_REJECTED;
            p.reason_code = "R23";
        } else {
            p.outcome = CORRIDOR_RAIL_OUTCOME_SETTLED;
        }
        journal_.append("final " + id + " " + std::to_string(p.outcome) + " " +
                        std::to_string(p.failure) + " " +
                        (p.reason_code.empty() ? "-" : p.reason_code));
        report(id, p);
    }

    void report(const std::string& id, const payout& p) {
        sdk::report r;
        r.outcome = static_cast<corridor_rail_outcome>(p.outcome);
        r.operation_id = id;
        r.failure = static_cast<corridor_rail_failure>(p.failure);
        r.rail_reason_code = p.reason_code;
        r.rail_reference = p.reference;
        host_.send(r);
    }

    sdk::host host_;
    sdk::json::value settings_;
    std::int64_t settle_after_ms_;
    sdk::files::line_log journal_;
    sdk::host_clock clock_;
    sdk::host_timers<std::string> timers_;
    std::map<std::string, payout> payouts_;
    std::map<std::string, std::string> ending_;  // last three digits of the account number
};

}  // namespace

CORRIDOR_RAIL_PLUGIN(example_rail)
