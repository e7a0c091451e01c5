#pragma once
// What the command files of the CLI share (cli.cpp, schema_commands.cpp, operator_commands.cpp):
// option parsing, the configuration and the database as every command takes them.
#include <boost/program_options.hpp>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ledger/store/database.hpp"
#include "server/process/config.hpp"

namespace corridor {

// A command line that cannot be understood: reported with the usage text, exit code 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// --config, --database and --help, which every command takes.
boost::program_options::options_description common_options();
boost::program_options::variables_map parse(
    const std::vector<std::string>& args,
    const boost::program_options::options_description& options);
service_config load_config(const boost::program_options::variables_map& values);

// What `webhook-key` and `uma-key` do, from their flags: show the current or the staged next key,
// rotate at once, stage a next key (at --at or for later), or make the staged key current.
enum class key_rotation_action { show, show_next, rotate_now, stage_next, activate_next };
key_rotation_action key_rotation_action_of(const std::string& command, const std::string& action,
                                           const boost::program_options::variables_map& values);
// The --at of a staged rotation: an RFC 3339 time in the future, or nullopt without --at.
std::optional<std::int64_t> staged_switch_time_of(const std::string& command,
                                                  const boost::program_options::variables_map& values,
                                                  std::int64_t now_ms);
// The folder the configuration's relative paths resolve against.
std::string config_dir_of(const service_config& config);
// The database with every migration applied (refused, applying nothing, when it is newer than
// this binary).
session_ptr open_migrated(const service_config& config);
// The database as it is, for commands that must not migrate it: refused when its schema is not
// exactly this binary's (newer, or with migrations pending), with both versions named.
session_ptr open_current(const service_config& config);

// schema_commands.cpp
// `corridor --version` (one line) and `corridor version [--json]`.
int version_command(const std::vector<std::string>& args, bool one_line);
int migrate_command(const std::vector<std::string>& args);
// At serve start: applies pending migrations, or with `migrate` false (serve --no-migrate,
// migrate_on_start false) refuses a database that still needs them. Refuses a newer database
// either way.
void prepare_schema_for_serve(const service_config& config, bool migrate);

// operator_commands.cpp: platform list, token list|revoke, payment show, rails operations,
// webhooks backlog, kyc approve|reject, audit. nullopt when `command` is none of them.
std::optional<int> run_operator_command(const std::string& command,
                                        const std::vector<std::string>& rest);

// uma_key_command.cpp: uma-key show|rotate. nullopt when `command` is not it.
std::optional<int> run_uma_key_command(const std::string& command,
                                       const std::vector<std::string>& rest);
// user_commands.cpp: user create|list|disable (the platform dashboard's users). nullopt when
// `command` is not `user`.
std::optional<int> run_user_command(const std::string& command,
                                    const std::vector<std::string>& rest);

}  // namespace corridor
