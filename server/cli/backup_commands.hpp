#pragma once
// corridor backup --to DIR and corridor restore --from DIR (README "Backup and restore").
#include <string>
#include <vector>

namespace corridor {

// `command` is "backup" or "restore"; `args` the words after it. Reads the configuration as every
// command does (cli_internal.hpp). Returns the exit code; throws std::runtime_error with a message
// for the operator on failure.
int backup_command(const std::string& command, const std::vector<std::string>& args);

}  // namespace corridor
