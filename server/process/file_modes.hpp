#pragma once
// Files Corridor creates are readable by its own user only: 0600 for files, 0700 for folders. The
// process umask (077, set at the start of every command) covers what is created from now on;
// these bring what an earlier run (or an older version) left wider back to those modes.
#include <string>

namespace corridor {

struct service_config;

// The process umask for every command: nothing Corridor creates is readable by group or others.
void restrict_umask();

// The SQLite database of `database_url` with its -wal, -shm and -journal files: 0600 (nothing
// for PostgreSQL). Files that do not exist are skipped.
void restrict_database_files(const std::string& database_url);

// The state folders of the configuration (rails.data_dir and everything under it, the bulk-import
// folder) and the key files Corridor makes (the spark node key): folders 0700, files 0600. Made
// when missing (the folders) so that they start with the right mode.
void restrict_state_files(const service_config& config);

// A folder and everything under it: folders 0700, files 0600 (a rail's own data_dir).
void restrict_folder_tree(const std::string& path);

}  // namespace corridor
