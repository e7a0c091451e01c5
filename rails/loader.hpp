#pragma once
// Loads rail plugins at start-up, and only then. Each rail named in plugins.rails is the file
// <plugins.dir>/<name>.so; it is checked (optional SHA-256 pin, ABI version and build signature,
// table size, required hooks, declared name) before its instance is created, and it is never
// unloaded (the host holds function pointers into it for the life of the process). Every failure is
// a rail_load_error whose message names the file and what is wrong, so start-up can stop with it.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "rails/registry.hpp"

namespace corridor {

struct rail_load_config {
    std::string plugins_dir;
    std::vector<std::string> rails;                    // names, in load order
    std::map<std::string, std::string> sha256_pins;    // name -> lowercase hex SHA-256 of the file
    std::map<std::string, std::string> settings_json;  // name -> the JSON object given to create
};

// Loads every configured rail into a registry; throws rail_load_error on the first problem.
rail_registry load_rails(const rail_load_config& config, rail_log_sink* log);

// Loads one plugin file and creates its instance. expected_name, when not empty, must equal the
// name the plugin declares. sha256_pin, when not empty, must equal the file's SHA-256 (hex).
std::unique_ptr<rail_instance> load_rail_file(const std::string& path,
                                              const std::string& expected_name,
                                              const std::string& sha256_pin,
                                              const std::string& settings_json, rail_log_sink* log);

// Lowercase hex SHA-256 of a file's bytes; throws rail_load_error when it cannot be read.
std::string sha256_file_hex(const std::string& path);

// True for names a rail may have: 1 to 32 of [a-z0-9_-] (so never a path).
bool valid_rail_name(const std::string& name);

}  // namespace corridor
