#pragma once
// The key-encryption key (KEK) that seals every private key the database holds (webhook signing
// keys, UMA keys): where it is read from, made on first start, and the start-up step that seals
// keys stored in clear by older versions.
#include <soci/soci.h>

#include <string>

#include "ledger/store/key_sealing.hpp"

namespace corridor {

struct service_config;

// Reads the KEK file (64 hex digits). When the file does not exist and `create` is set, writes a
// new random key first: mode 0600, its folder made 0700 when missing, written atomically (a
// temporary file linked into place, so a process starting at the same moment reads either no file
// or the whole key, and two such processes end up with the same one). Throws std::runtime_error
// naming the file on any problem.
// `made`, when given, is set to whether this call wrote the file.
sealing_key load_key_encryption_key(const std::string& path, bool create, bool* made = nullptr);

// What `serve`, `migrate` and the commands that write keys run once the schema is current: loads
// (or makes) the configured KEK, installs it for the process, seals the private keys still stored
// in clear, and checks that every sealed key opens with it. A key that does not open stops the
// command with a message naming the KEK file: keys are never silently made anew, because a
// platform's webhook receivers and UMA counterparties know the old public keys.
//
// Why not a numbered migration: migrations are SQL that runs the same on every database, and
// sealing needs the KEK, which lives outside the database. This step runs after the migrations
// instead, every time; it is idempotent (sealed rows are only checked) and runs in one
// transaction, so processes starting together on one PostgreSQL database do not interfere.
struct keys_at_rest {
    bool made_key = false;  // the KEK file did not exist and was written now
    int sealed = 0;         // keys found in clear and sealed now
};
keys_at_rest prepare_keys_at_rest(const service_config& config, soci::session& session);

}  // namespace corridor
