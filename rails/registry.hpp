#pragma once
// The loaded rails of a process, by name and by the account type they serve.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "rails/rail.hpp"

namespace corridor {

struct rail_load_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class rail_registry {
public:
    // The rail with this name is the sandbox simulator: it serves the sandbox environment only,
    // and there it takes precedence over every other rail for the account types it serves, except
    // over a rail that declares CORRIDOR_RAIL_SERVES_SANDBOX (ABI 1.2: it simulates its own
    // network), which serves its account types in the sandbox itself.
    static constexpr std::string_view sandbox_rail_name = "sandbox";

    // Throws rail_load_error when a rail of the same name is already registered.
    void add(std::unique_ptr<rail_instance> rail);

    rail_instance* by_name(const std::string& name) const;
    // The rail that moves money for account_type in the environment ("sandbox" or "production"),
    // or nullptr when none serves it. In the sandbox only the sandbox rail and rails declaring
    // CORRIDOR_RAIL_SERVES_SANDBOX are candidates: a sandbox operation never reaches a rail that
    // moves real money.
    rail_instance* for_account_type(const std::string& environment,
                                    const std::string& account_type) const;
    // Whether a rail that moves real money is loaded (any rail but the sandbox simulator). When one
    // is, sandbox operations routed to the simulator are held to what production would accept.
    bool has_production_rails() const;
    const std::vector<std::unique_ptr<rail_instance>>& all() const { return rails_; }
    bool empty() const { return rails_.empty(); }

private:
    std::vector<std::unique_ptr<rail_instance>> rails_;
};

// The interface's own rule for pulls (transfer-in), which governs the sandbox when the simulator is
// the only rail loaded: money is pulled only from accounts with direct pull, an ACH debit of a
// US_ACCOUNT. Every other type is funded through the internal account's payment instructions.
// Payouts are allowed to every account type the interface defines.
bool interface_can_pull(const std::string& account_type);

}  // namespace corridor
