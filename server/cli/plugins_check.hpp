#pragma once
// corridor plugins check FILE [--settings JSON|FILE] [--account JSON] [--data-dir DIR]
//                             [--hook-time-limit-ms N]
// The rail conformance kit (rails/conformance.hpp) on one plugin file: no database, no server.
#include <string>
#include <vector>

namespace corridor {

// Returns the exit status: 0 the plugin kept the contract, 1 a breach, 2 a usage error.
int plugins_check(const std::vector<std::string>& args);

}  // namespace corridor
