#include "rails/registry.hpp"

#include <algorithm>

namespace corridor {

void rail_registry::add(std::unique_ptr<rail_instance> rail) {
    if (by_name(rail->name()) != nullptr) {
        throw rail_load_error("rail plugin " + rail->file() + " declares the name \"" +
                              rail->name() + "\", which " + by_name(rail->name())->file() +
                              " already uses");
    }
    rails_.push_back(std::move(rail));
}

rail_instance* rail_registry::by_name(const std::string& name) const {
    for (const auto& rail : rails_) {
        if (rail->name() == name) return rail.get();
    }
    return nullptr;
}

bool rail_registry::has_production_rails() const {
    return std::any_of(rails_.begin(), rails_.end(),
                       [](const auto& rail) { return rail->name() != sandbox_rail_name; });
}

bool interface_can_pull(const std::string& account_type) {
    return account_type == "US_ACCOUNT";
}

rail_instance* rail_registry::for_account_type(const std::string& environment,
                                               const std::string& account_type) const {
    if (environment == "sandbox") {
        // A rail that simulates its own sandbox network (ABI 1.2) serves it ahead of the simulator.
        for (const auto& rail : rails_) {
            if (rail->name() != sandbox_rail_name && rail->serves_sandbox() &&
                rail->serves(account_type))
                return rail.get();
        }
        rail_instance* sandbox = by_name(std::string(sandbox_rail_name));
        if (sandbox != nullptr && sandbox->serves(account_type)) return sandbox;
        // Never a real-money rail: sandbox operations move no money.
        return nullptr;
    }
    for (const auto& rail : rails_) {
        if (rail->name() == sandbox_rail_name) continue;
        if (rail->serves(account_type)) return rail.get();
    }
    return nullptr;
}

}  // namespace corridor
