#pragma once
// The platform dashboard's records: its users (one platform each), their single-use setup links,
// their sessions (only a hash of the session id is kept), the platform's dashboard settings and the
// audit log. Passwords arrive here already hashed; secrets (setup tokens, session ids) as hashes.
#include <soci/soci.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ledger/base/clock.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/base/tenant.hpp"

namespace corridor {

struct dashboard_user {
    std::string id;  // DashboardUser:<uuid>
    std::string platform_id;
    std::string email;          // lower case
    std::string role;           // admin, developer, viewer
    std::string password_hash;  // empty until the setup link is used
    bool disabled = false;
    std::string totp_secret;          // base32; empty when not enrolled
    std::int64_t totp_last_step = 0;  // the last time step accepted (a code is never reused)
    std::int64_t created_at_ms = 0;
    std::int64_t updated_at_ms = 0;
};

enum class dashboard_user_error { email_taken, platform_not_found };

struct new_dashboard_user {
    std::string platform_id, email, role, password_hash;  // password_hash may be empty
};

// Creates the user; nullopt with `error` set when the e-mail is taken on that platform or the
// platform does not exist.
std::optional<dashboard_user> create_dashboard_user(soci::session& session, id_generator& ids,
                                                    const clock& time,
                                                    const new_dashboard_user& request,
                                                    dashboard_user_error& error);
std::vector<dashboard_user> list_dashboard_users(soci::session& session,
                                                 const std::string& platform_id);
// By id; with a platform, only that platform's user.
std::optional<dashboard_user> find_dashboard_user(soci::session& session, const std::string& id,
                                                  const std::optional<std::string>& platform_id);
std::optional<dashboard_user> find_dashboard_user_by_email(soci::session& session,
                                                           const std::string& email);
// Marks the user disabled and ends their sessions; false when no such user (of that platform).
bool disable_dashboard_user(soci::session& session, const clock& time, const std::string& id,
                            const std::optional<std::string>& platform_id);
void set_dashboard_password(soci::session& session, const clock& time, const std::string& user_id,
                            const std::string& password_hash);
void set_dashboard_totp(soci::session& session, const clock& time, const std::string& user_id,
                        const std::string& secret_base32);
// Records `step` as used when it is later than the last accepted one; false for a replayed code.
bool claim_totp_step(soci::session& session, const std::string& user_id, std::int64_t step);

// Setup links: single use, expiring.
void create_setup_link(soci::session& session, const clock& time, const std::string& user_id,
                       const std::string& token_hash, std::int64_t ttl_ms);
// The user of a live link (unused, unexpired), or nullopt.
std::optional<std::string> find_setup_link_user(soci::session& session, const clock& time,
                                                const std::string& token_hash);
// Marks the link used; false when it was used or expired meanwhile.
bool use_setup_link(soci::session& session, const clock& time, const std::string& token_hash);

struct dashboard_session_row {
    std::string id_hash, user_id, platform_id, environment, csrf_token;
    bool second_factor_pending = false;
    std::int64_t created_at_ms = 0, last_seen_ms = 0;
};

void create_dashboard_session(soci::session& session, const dashboard_session_row& row);
// A live session: not ended, within both expiries. Touches last_seen_ms.
std::optional<dashboard_session_row> find_dashboard_session(soci::session& session,
                                                            const clock& time,
                                                            const std::string& id_hash,
                                                            std::int64_t idle_ms,
                                                            std::int64_t absolute_ms);
void end_dashboard_session(soci::session& session, const clock& time, const std::string& id_hash);
// Deletes the user's sessions that ended or began before `started_before_ms` (past the absolute
// limit): run at each sign-in, it keeps the table to the live sessions.
void prune_dashboard_sessions(soci::session& session, const std::string& user_id,
                              std::int64_t started_before_ms);
void set_dashboard_session_environment(soci::session& session, const std::string& id_hash,
                                       environment env);

struct dashboard_settings {
    bool totp_required = false;
};
dashboard_settings load_dashboard_settings(soci::session& session, const std::string& platform_id);
void save_dashboard_settings(soci::session& session, const std::string& platform_id,
                             const dashboard_settings& settings);

struct dashboard_audit_entry {
    std::string id, platform_id, user_id, email, action, detail, remote_address;
    std::int64_t at_ms = 0;
};
void record_dashboard_audit(soci::session& session, id_generator& ids,
                            const dashboard_audit_entry& entry);
// Newest first, at most `limit`.
std::vector<dashboard_audit_entry> list_dashboard_audit(soci::session& session,
                                                        const std::string& platform_id,
                                                        std::size_t limit);

std::optional<std::string> platform_name(soci::session& session, const std::string& platform_id);

}  // namespace corridor
