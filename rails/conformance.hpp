#pragma once
// The conformance kit behind `corridor plugins check FILE`: loads one rail plugin, with no
// database and no server, and drives it through the contract of rail_abi.h with a scripted host.
// Each step is printed as it passes; the first breach of the contract stops the run, named.
#include <cstdint>
#include <ostream>
#include <string>

namespace corridor {

struct conformance_options {
    std::string file;           // the plugin .so
    std::string settings_json;  // the rail's settings object; data_dir is added when missing
    std::string account_json;   // optional accountInfo (with accountType) to pay out and pull with
    std::string data_dir;       // where the rail keeps its files; empty: a new temporary folder
    std::int64_t hook_time_limit_ms = 500;    // a hook taking longer blocks: a breach
    std::int64_t hook_hang_limit_ms = 10000;  // a hook still running then: breach, and exit
};

// Runs the kit, writing each step to out. Returns 0 when the plugin kept the contract, 1 at the
// first breach (printed as "BREACH: <step>: <what>").
int run_conformance_check(const conformance_options& options, std::ostream& out);

}  // namespace corridor
