#pragma once
// corridor backup --to DIR and corridor restore --from DIR (README "Backup and restore").
#include <functional>
#include <string>
#include <vector>

namespace boost::program_options {
class variables_map;
}

namespace corridor {

struct service_config;

// How the CLI finds the configuration, so both commands read it exactly as serve does.
struct cli_config_access {
    std::function<service_config(const boost::program_options::variables_map&)> load;
    // The folder the configuration's relative paths resolve against.
    std::function<std::string(const boost::program_options::variables_map&)> dir_of;
};

// `command` is "backup" or "restore"; `args` the words after it. Returns the exit code; throws
// std::runtime_error with a message for the operator on failure.
int backup_command(const std::string& command, const std::vector<std::string>& args,
                   const cli_config_access& config);

}  // namespace corridor
