#pragma once
// Loads rail plugins at start-up, and only then. Each rail named in plugins.rails is the file
// <dir>/<name>.so of the first folder of plugins.dir that has it; it is checked (optional SHA-256
// pin, ABI version and build signature, table size, required hooks, declared name) before its
// instance is created, and it is never unloaded (the host holds function pointers into it for the
// life of the process). Every failure is a rail_load_error whose message names the file and what is
// wrong, so start-up can stop with it.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "rails/registry.hpp"

namespace corridor {

struct rail_load_config {
    std::vector<std::string> plugins_dirs;             // searched in order
    std::vector<std::string> rails;                    // names, in load order
    std::map<std::string, std::string> sha256_pins;    // name -> lowercase hex SHA-256 of the file
    std::map<std::string, std::string> settings_json;  // name -> the JSON object given to create
};

// Loads every configured rail into a registry; throws rail_load_error on the first problem.
rail_registry load_rails(const rail_load_config& config, rail_log_sink* log);

// One rail of plugins.rails as load_each_rail found it: loaded, or the loader's refusal.
struct rail_load_attempt {
    std::string name;
    std::string file;
    std::unique_ptr<rail_instance> rail;  // null when it did not load
    std::string error;                    // the rail_load_error text when it did not
};
// Tries every configured rail, carrying on past one that cannot load (for `plugins list`, which
// shows each rail's own error). Throws rail_load_error only for a configuration problem (a bad
// name, a pin for a rail not listed).
std::vector<rail_load_attempt> load_each_rail(const rail_load_config& config, rail_log_sink* log);

// Loads one plugin file and creates its instance. expected_name, when not empty, must equal the
// name the plugin declares. sha256_pin, when not empty, must equal the file's SHA-256 (hex).
std::unique_ptr<rail_instance> load_rail_file(const std::string& path,
                                              const std::string& expected_name,
                                              const std::string& sha256_pin,
                                              const std::string& settings_json, rail_log_sink* log);

// Opens a plugin file (SHA-256 pin, dlopen, entry point given `host`) and checks its table as
// rail_abi.h VERSIONING says, and its account types against CORRIDOR_RAIL_FOR_EACH_ACCOUNT_TYPE;
// nothing of the plugin but its entry point runs. The file stays loaded for the process's life.
const corridor_rail_plugin* open_rail_plugin(const std::string& path, const std::string& sha256_pin,
                                             const corridor_rail_host_api* host);

// Creates the folder named by the settings' "data_dir" (mode 0700, parents as needed) when it is
// missing, as the host does before create; throws rail_load_error naming the plugin file.
void make_rail_data_dir(const std::string& path, const std::string& settings_json);

// The account types a rail may declare (rail_abi.h), and them as "A, B, C" for messages.
const std::vector<std::string>& rail_account_types();
std::string rail_account_type_list();

// Where plugins.rails' name is found: the first of dirs holding name.so, or (none does) the path
// in the first folder, which the loader then refuses as missing.
std::string find_rail_file(const std::vector<std::string>& dirs, const std::string& name);

// Lowercase hex SHA-256 of a file's bytes; throws rail_load_error when it cannot be read.
std::string sha256_file_hex(const std::string& path);

// True for names a rail may have: 1 to 32 of [a-z0-9_-] (so never a path).
bool valid_rail_name(const std::string& name);

}  // namespace corridor
