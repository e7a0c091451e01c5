// A rail plugin built only for the tests, through the real SDK. One source, several behaviours,
// chosen at compile time (TEST_RAIL_BEHAVIOUR) so each behaviour is its own .so:
//   0 good: validates "accountNumber", settles payouts at once, fails pulls on the next tick;
//     amount 13 is UNAVAILABLE and 14 DECLINED
//   1 throws: every hook throws a std::exception (the host must see INTERNAL and keep running)
//   2 silent: accepts operations and never reports (the host's deadline must close them)
//   3 slow: like good, but initiate first creates the file named by the setting "started_file"
//     and then sleeps a second (a plugin that breaks the "hooks never block" rule)
//   4 pays twice: keeps nothing across a restart, so an operation initiated again is paid again
//     (a new rail reference each time)
//   5 reports twice: reports a payout SETTLED in initiate and again on the next tick
//   6 reports from its own thread: initiate reports through a thread it starts (and joins), not
//     on the thread running the hook
// TEST_RAIL_CAPABILITIES, when defined, is the rail's capabilities (payout, pull and serving the
// sandbox when not). TEST_RAIL_EXTRA_TYPE, when defined, is a third account type it declares.
// Settings: "refuse" makes create fail with a message, "throw_in_create" makes it throw a plain
// exception, and data_dir (when given) must exist when create runs: a file is written there.
#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "rails/plugin_sdk.hpp"

#ifndef TEST_RAIL_BEHAVIOUR
#define TEST_RAIL_BEHAVIOUR 0
#endif
#ifndef TEST_RAIL_NAME
#define TEST_RAIL_NAME "test_good"
#endif

namespace sdk = corridor::rail_sdk;

namespace {

class test_rail final : public sdk::rail {
public:
    static constexpr std::string_view name = TEST_RAIL_NAME;
    static constexpr std::string_view version = "0.0.1";
#ifdef TEST_RAIL_EXTRA_TYPE
    static constexpr std::array<std::string_view, 3> account_types{"SOLANA_WALLET", "TRON_WALLET",
                                                                   TEST_RAIL_EXTRA_TYPE};
#else
    static constexpr std::array<std::string_view, 2> account_types{"SOLANA_WALLET", "TRON_WALLET"};
#endif
    static constexpr uint32_t tick_interval_ms = 1000;
#ifdef TEST_RAIL_CAPABILITIES
    static constexpr uint32_t capabilities = TEST_RAIL_CAPABILITIES;
#else
    static constexpr uint32_t capabilities =
        CORRIDOR_RAIL_CAN_PAYOUT | CORRIDOR_RAIL_CAN_PULL | CORRIDOR_RAIL_SERVES_SANDBOX;
#endif

    test_rail(const sdk::host& host, std::string_view config_json) : host_(host) {
        if (config_json.find("\"refuse\"") != std::string_view::npos) {
            throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT, "config says refuse");
        }
        if (config_json.find("\"throw_in_create\"") != std::string_view::npos) {
            throw std::runtime_error("create threw on purpose: the settings name no bank");
        }
        host_.log(CORRIDOR_RAIL_LOG_INFO, "test rail created");
        started_file_ = setting(config_json, "started_file");
        // The host made data_dir before create: writing there must work now.
        if (std::string dir = setting(config_json, "data_dir"); !dir.empty()) {
            std::ofstream marker(dir + "/created");
            if (!(marker << "created\n")) {
                throw sdk::rail_error(CORRIDOR_RAIL_INTERNAL, "cannot write in data_dir " + dir);
            }
        }
        nonce_ = std::to_string(reinterpret_cast<std::uintptr_t>(this)) + "-" +
                 std::to_string(instances_made++);
    }

    sdk::status validate_account(sdk::call& c, std::string_view type, std::string_view currency,
                                 std::string_view json) override {
        maybe_throw();
        if (type != "SOLANA_WALLET" && type != "TRON_WALLET") {
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "account type not served");
        }
        // An account number, or a wallet address (the conformance kit's samples).
        if (json.find("\"accountNumber\"") == std::string_view::npos &&
            json.find("\"address\"") == std::string_view::npos) {
            return c.fail(CORRIDOR_RAIL_INVALID_ARGUMENT, "accountNumber is required");
        }
        c.set_result(R"({"normalised":true})");
        return CORRIDOR_RAIL_OK;
    }

    sdk::status funding_instructions(sdk::call& c, const sdk::funding_request& r) override {
        maybe_throw();
        c.set_result(std::string(R"([{"accountType":"SOLANA_WALLET","reference":")") +
                     std::string(r.reference) + "\"}]");
        return CORRIDOR_RAIL_OK;
    }

    sdk::status initiate(sdk::call& c, const sdk::operation& op) override {
        maybe_throw();
        if (op.amount_minor <= 0) return c.fail(CORRIDOR_RAIL_INVALID_ARGUMENT, "amount");
        // 13 minor units: the rail cannot take work now (the host must retry later).
        if (op.amount_minor == 13) return c.fail(CORRIDOR_RAIL_UNAVAILABLE, "try again later");
        // 14: the rail declines the operation outright.
        if (op.amount_minor == 14) return c.fail(CORRIDOR_RAIL_DECLINED, "over the rail's limit");
        if (TEST_RAIL_BEHAVIOUR == 2) return CORRIDOR_RAIL_OK;
        if (TEST_RAIL_BEHAVIOUR == 3) {
            std::ofstream(started_file_) << "started\n";
            std::this_thread::sleep_for(std::chrono::seconds(1));
        }
        std::string id(op.operation_id);
        if (op.direction == CORRIDOR_RAIL_PAYOUT) {
            // Paying twice: every instance makes a new payment, with its own reference.
            std::string reference = TEST_RAIL_BEHAVIOUR == 4 ? "pay-" + nonce_ : "trace-1";
            auto settle = [&] {
                host_.send({CORRIDOR_RAIL_OUTCOME_SETTLED, id, CORRIDOR_RAIL_FAILURE_NONE, "", "",
                            reference, ""});
            };
            if (TEST_RAIL_BEHAVIOUR == 6) {
                std::thread(settle).join();
            } else {
                settle();
            }
            if (TEST_RAIL_BEHAVIOUR == 5) settled_again_.push_back(id);
        } else {
            host_.send({CORRIDOR_RAIL_OUTCOME_PENDING, id, CORRIDOR_RAIL_FAILURE_NONE, "", "",
                        "trace-2", ""});
            pending_[id] = op.now_ms;
        }
        return CORRIDOR_RAIL_OK;
    }

    sdk::status tick(sdk::call& c, int64_t now_ms) override {
        maybe_throw();
        for (const auto& [id, since] : pending_) {
            host_.send({CORRIDOR_RAIL_OUTCOME_FAILED, id, CORRIDOR_RAIL_FAILURE_INSUFFICIENT_FUNDS,
                        "R01", "", "trace-2", "insufficient funds"});
        }
        pending_.clear();
        for (const auto& id : settled_again_) {
            host_.send({CORRIDOR_RAIL_OUTCOME_SETTLED, id, CORRIDOR_RAIL_FAILURE_NONE, "", "",
                        "trace-1", ""});
        }
        settled_again_.clear();
        return CORRIDOR_RAIL_OK;
    }

private:
    // The string value of "key" in the settings, or "" (enough JSON for these tests).
    static std::string setting(std::string_view config_json, std::string_view name) {
        std::string key = "\"" + std::string(name) + "\":\"";
        auto at = config_json.find(key);
        if (at == std::string_view::npos) return "";
        auto begin = at + key.size();
        return std::string(config_json.substr(begin, config_json.find('"', begin) - begin));
    }

    static void maybe_throw() {
        if (TEST_RAIL_BEHAVIOUR == 1) throw std::runtime_error("test rail throws on purpose");
    }

    sdk::host host_;
    std::map<std::string, int64_t> pending_;
    std::string started_file_;
    std::string nonce_;
    std::vector<std::string> settled_again_;
    static inline int instances_made = 0;
};

}  // namespace

CORRIDOR_RAIL_PLUGIN(test_rail)
