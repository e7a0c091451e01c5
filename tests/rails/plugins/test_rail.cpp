// A rail plugin built only for the tests, through the real SDK. One source, several behaviours,
// chosen at compile time (TEST_RAIL_BEHAVIOUR) so each behaviour is its own .so:
//   0 good: validates "accountNumber", settles payouts at once, fails pulls on the next tick;
//     amount 13 is UNAVAILABLE and 14 DECLINED
//   1 throws: every hook throws a std::exception (the host must see INTERNAL and keep running)
//   2 silent: accepts operations and never reports (the host's deadline must close them)
//   3 slow: like good, but initiate first creates the file named by the setting "started_file"
//     and then sleeps a second (a plugin that breaks the "hooks never block" rule)
// TEST_RAIL_CAPABILITIES, when defined, is the rail's ABI 1.1 capabilities (both when not).
#include <chrono>
#include <fstream>
#include <map>
#include <string>
#include <thread>

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
    static constexpr std::array<std::string_view, 2> account_types{"TEST_ACCOUNT", "OTHER_ACCOUNT"};
    static constexpr uint32_t tick_interval_ms = 1000;
#ifdef TEST_RAIL_CAPABILITIES
    static constexpr uint32_t capabilities = TEST_RAIL_CAPABILITIES;
#endif

    test_rail(const sdk::host& host, std::string_view config_json) : host_(host) {
        if (config_json.find("\"refuse\"") != std::string_view::npos) {
            throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT, "config says refuse");
        }
        host_.log(CORRIDOR_RAIL_LOG_INFO, "test rail created");
        std::string_view key = "\"started_file\":\"";
        if (auto at = config_json.find(key); at != std::string_view::npos) {
            auto begin = at + key.size();
            started_file_ =
                std::string(config_json.substr(begin, config_json.find('"', begin) - begin));
        }
    }

    sdk::status validate_account(sdk::call& c, std::string_view type, std::string_view currency,
                                 std::string_view json) override {
        maybe_throw();
        if (type != "TEST_ACCOUNT" && type != "OTHER_ACCOUNT") {
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "account type not served");
        }
        if (json.find("\"accountNumber\"") == std::string_view::npos) {
            return c.fail(CORRIDOR_RAIL_INVALID_ARGUMENT, "accountNumber is required");
        }
        c.set_result(R"({"normalised":true})");
        return CORRIDOR_RAIL_OK;
    }

    sdk::status funding_instructions(sdk::call& c, const sdk::funding_request& r) override {
        maybe_throw();
        c.set_result(std::string(R"([{"accountType":"TEST_ACCOUNT","reference":")") +
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
            host_.send({CORRIDOR_RAIL_OUTCOME_SETTLED, id, CORRIDOR_RAIL_FAILURE_NONE, "", "",
                        "trace-1", ""});
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
        return CORRIDOR_RAIL_OK;
    }

private:
    static void maybe_throw() {
        if (TEST_RAIL_BEHAVIOUR == 1) throw std::runtime_error("test rail throws on purpose");
    }

    sdk::host host_;
    std::map<std::string, int64_t> pending_;
    std::string started_file_;
};

}  // namespace

CORRIDOR_RAIL_PLUGIN(test_rail)
