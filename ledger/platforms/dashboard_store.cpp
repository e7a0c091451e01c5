#include "ledger/platforms/dashboard_store.hpp"

#include "ledger/base/assert.hpp"
#include "ledger/store/database.hpp"
#include "ledger/platforms/platform_store.hpp"

namespace corridor {
namespace {

constexpr const char* user_select =
    "SELECT id, platform_id, email, role, password_hash, is_disabled, totp_secret, totp_last_step, "
    "created_at_ms, updated_at_ms FROM dashboard_users";

struct user_row {
    std::string id, platform_id, email, role, password_hash, totp_secret;
    soci::indicator password_set = soci::i_null, totp_set = soci::i_null;
    int disabled = 0;
    long long totp_last_step = 0, created_at_ms = 0, updated_at_ms = 0;

    void bind(soci::statement& statement) {
        statement.exchange(soci::into(id));
        statement.exchange(soci::into(platform_id));
        statement.exchange(soci::into(email));
        statement.exchange(soci::into(role));
        statement.exchange(soci::into(password_hash, password_set));
        statement.exchange(soci::into(disabled));
        statement.exchange(soci::into(totp_secret, totp_set));
        statement.exchange(soci::into(totp_last_step));
        statement.exchange(soci::into(created_at_ms));
        statement.exchange(soci::into(updated_at_ms));
    }
    dashboard_user to_user() const {
        return dashboard_user{id,
                              platform_id,
                              email,
                              role,
                              password_set == soci::i_ok ? password_hash : std::string(),
                              disabled != 0,
                              totp_set == soci::i_ok ? totp_secret : std::string(),
                              totp_last_step,
                              created_at_ms,
                              updated_at_ms};
    }
};

// Runs `sql` (with a where clause bound by `bind_where`) and collects the users it returns.
template <class BindWhere>
std::vector<dashboard_user> select_users(soci::session& session, const std::string& sql,
                                         BindWhere bind_where) {
    user_row row;
    soci::statement statement(session);
    statement.alloc();
    row.bind(statement);
    bind_where(statement);
    statement.prepare(sql);
    statement.define_and_bind();
    std::vector<dashboard_user> users;
    if (statement.execute(true)) {
        do {
            users.push_back(row.to_user());
        } while (statement.fetch());
    }
    return users;
}

long long affected(soci::statement& statement) {
    statement.execute(true);
    return statement.get_affected_rows();
}

}  // namespace

std::optional<dashboard_user> create_dashboard_user(soci::session& session, id_generator& ids,
                                                    const clock& time,
                                                    const new_dashboard_user& request,
                                                    dashboard_user_error& error) {
    if (!platform_exists(session, request.platform_id)) {
        error = dashboard_user_error::platform_not_found;
        return std::nullopt;
    }
    if (find_dashboard_user_by_email(session, request.email)) {
        error = dashboard_user_error::email_taken;
        return std::nullopt;
    }
    dashboard_user user;
    user.id = ids.next("DashboardUser");
    user.platform_id = request.platform_id;
    user.email = request.email;
    user.role = request.role;
    user.password_hash = request.password_hash;
    user.created_at_ms = user.updated_at_ms = time.now_ms();
    long long now_ms = user.created_at_ms;
    soci::indicator password_set = user.password_hash.empty() ? soci::i_null : soci::i_ok;
    try {
        session << "INSERT INTO dashboard_users (id, platform_id, email, role, password_hash, "
                   "is_disabled, totp_secret, totp_last_step, created_at_ms, updated_at_ms) VALUES "
                   "(:i, :p, :e, :r, :h, 0, NULL, 0, :c, :u)",
            soci::use(user.id), soci::use(user.platform_id), soci::use(user.email),
            soci::use(user.role), soci::use(user.password_hash, password_set), soci::use(now_ms),
            soci::use(now_ms);
    } catch (const soci::soci_error& failure) {
        if (!is_unique_violation(failure)) throw;
        error = dashboard_user_error::email_taken;  // created by another process meanwhile
        return std::nullopt;
    }
    return user;
}

std::vector<dashboard_user> list_dashboard_users(soci::session& session,
                                                 const std::string& platform_id) {
    return select_users(
        session, std::string(user_select) + " WHERE platform_id = :p ORDER BY created_at_ms, id",
        [&](soci::statement& s) { s.exchange(soci::use(platform_id)); });
}

std::optional<dashboard_user> find_dashboard_user(soci::session& session, const std::string& id,
                                                  const std::optional<std::string>& platform_id) {
    auto users = select_users(session, std::string(user_select) + " WHERE id = :i",
                              [&](soci::statement& s) { s.exchange(soci::use(id)); });
    if (users.empty()) return std::nullopt;
    if (platform_id && users.front().platform_id != *platform_id) return std::nullopt;
    return users.front();
}

std::optional<dashboard_user> find_dashboard_user_by_email(soci::session& session,
                                                           const std::string& email) {
    auto users = select_users(session, std::string(user_select) + " WHERE email = :e",
                              [&](soci::statement& s) { s.exchange(soci::use(email)); });
    if (users.empty()) return std::nullopt;
    return users.front();
}

bool disable_dashboard_user(soci::session& session, const clock& time, const std::string& id,
                            const std::optional<std::string>& platform_id) {
    if (!find_dashboard_user(session, id, platform_id)) return false;
    long long now_ms = time.now_ms();
    write_transaction transaction(session);
    session << "UPDATE dashboard_users SET is_disabled = 1, updated_at_ms = :t WHERE id = :i",
        soci::use(now_ms), soci::use(id);
    session << "UPDATE dashboard_sessions SET ended_at_ms = :t WHERE user_id = :i AND ended_at_ms "
               "IS NULL",
        soci::use(now_ms), soci::use(id);
    transaction.commit();
    return true;
}

void set_dashboard_password(soci::session& session, const clock& time, const std::string& user_id,
                            const std::string& password_hash) {
    long long now_ms = time.now_ms();
    session << "UPDATE dashboard_users SET password_hash = :h, updated_at_ms = :t WHERE id = :i",
        soci::use(password_hash), soci::use(now_ms), soci::use(user_id);
}

void set_dashboard_totp(soci::session& session, const clock& time, const std::string& user_id,
                        const std::string& secret_base32) {
    long long now_ms = time.now_ms();
    session << "UPDATE dashboard_users SET totp_secret = :s, updated_at_ms = :t WHERE id = :i",
        soci::use(secret_base32), soci::use(now_ms), soci::use(user_id);
}

bool claim_totp_step(soci::session& session, const std::string& user_id, std::int64_t step) {
    long long value = step;
    soci::statement statement =
        (session.prepare << "UPDATE dashboard_users SET totp_last_step = :s WHERE id = :i AND "
                            "totp_last_step < :s2",
         soci::use(value), soci::use(user_id), soci::use(value));
    return affected(statement) == 1;
}

void create_setup_link(soci::session& session, const clock& time, const std::string& user_id,
                       const std::string& token_hash, std::int64_t ttl_ms) {
    long long now_ms = time.now_ms();
    long long expires_ms = now_ms + ttl_ms;
    session << "INSERT INTO dashboard_setup_links (token_hash, user_id, expires_at_ms, used_at_ms, "
               "created_at_ms) VALUES (:h, :u, :e, NULL, :c)",
        soci::use(token_hash), soci::use(user_id), soci::use(expires_ms), soci::use(now_ms);
}

std::optional<std::string> find_setup_link_user(soci::session& session, const clock& time,
                                                const std::string& token_hash) {
    long long now_ms = time.now_ms();
    std::string user_id;
    soci::indicator found = soci::i_null;
    session << "SELECT user_id FROM dashboard_setup_links WHERE token_hash = :h AND used_at_ms IS "
               "NULL AND expires_at_ms > :t",
        soci::use(token_hash), soci::use(now_ms), soci::into(user_id, found);
    if (!session.got_data() || found != soci::i_ok) return std::nullopt;
    return user_id;
}

bool use_setup_link(soci::session& session, const clock& time, const std::string& token_hash) {
    long long now_ms = time.now_ms();
    soci::statement statement =
        (session.prepare
             << "UPDATE dashboard_setup_links SET used_at_ms = :t WHERE token_hash = :h "
                "AND used_at_ms IS NULL AND expires_at_ms > :t2",
         soci::use(now_ms), soci::use(token_hash), soci::use(now_ms));
    return affected(statement) == 1;
}

void create_dashboard_session(soci::session& session, const dashboard_session_row& row) {
    int pending = row.second_factor_pending ? 1 : 0;
    long long created_ms = row.created_at_ms;
    long long seen_ms = row.last_seen_ms;
    session
        << "INSERT INTO dashboard_sessions (id_hash, user_id, platform_id, environment, "
           "csrf_token, second_factor_pending, created_at_ms, last_seen_ms, ended_at_ms) VALUES "
           "(:h, :u, :p, :e, :c, :f, :t, :s, NULL)",
        soci::use(row.id_hash), soci::use(row.user_id), soci::use(row.platform_id),
        soci::use(row.environment), soci::use(row.csrf_token), soci::use(pending),
        soci::use(created_ms), soci::use(seen_ms);
}

std::optional<dashboard_session_row> find_dashboard_session(soci::session& session,
                                                            const clock& time,
                                                            const std::string& id_hash,
                                                            std::int64_t idle_ms,
                                                            std::int64_t absolute_ms) {
    dashboard_session_row row;
    int pending = 0;
    long long created_ms = 0, seen_ms = 0;
    session << "SELECT id_hash, user_id, platform_id, environment, csrf_token, "
               "second_factor_pending, created_at_ms, last_seen_ms FROM dashboard_sessions WHERE "
               "id_hash = :h AND ended_at_ms IS NULL",
        soci::use(id_hash), soci::into(row.id_hash), soci::into(row.user_id),
        soci::into(row.platform_id), soci::into(row.environment), soci::into(row.csrf_token),
        soci::into(pending), soci::into(created_ms), soci::into(seen_ms);
    if (!session.got_data()) return std::nullopt;
    long long now_ms = time.now_ms();
    if (now_ms - seen_ms > idle_ms || now_ms - created_ms > absolute_ms) return std::nullopt;
    row.second_factor_pending = pending != 0;
    row.created_at_ms = created_ms;
    row.last_seen_ms = now_ms;
    session << "UPDATE dashboard_sessions SET last_seen_ms = :t WHERE id_hash = :h",
        soci::use(now_ms), soci::use(id_hash);
    return row;
}

void end_dashboard_session(soci::session& session, const clock& time, const std::string& id_hash) {
    long long now_ms = time.now_ms();
    session << "UPDATE dashboard_sessions SET ended_at_ms = :t WHERE id_hash = :h AND ended_at_ms "
               "IS NULL",
        soci::use(now_ms), soci::use(id_hash);
}

void prune_dashboard_sessions(soci::session& session, const std::string& user_id,
                              std::int64_t started_before_ms) {
    long long cutoff_ms = started_before_ms;
    session << "DELETE FROM dashboard_sessions WHERE user_id = :u AND (ended_at_ms IS NOT NULL OR "
               "created_at_ms < :c)",
        soci::use(user_id), soci::use(cutoff_ms);
}

void set_dashboard_session_environment(soci::session& session, const std::string& id_hash,
                                       environment env) {
    std::string name(to_string(env));
    session << "UPDATE dashboard_sessions SET environment = :e WHERE id_hash = :h", soci::use(name),
        soci::use(id_hash);
}

dashboard_settings load_dashboard_settings(soci::session& session, const std::string& platform_id) {
    int required = 0;
    session << "SELECT totp_required FROM dashboard_settings WHERE platform_id = :p",
        soci::use(platform_id), soci::into(required);
    dashboard_settings settings;
    settings.totp_required = session.got_data() && required != 0;
    return settings;
}

void save_dashboard_settings(soci::session& session, const std::string& platform_id,
                             const dashboard_settings& settings) {
    int required = settings.totp_required ? 1 : 0;
    write_transaction transaction(session);
    session << "DELETE FROM dashboard_settings WHERE platform_id = :p", soci::use(platform_id);
    session << "INSERT INTO dashboard_settings (platform_id, totp_required) VALUES (:p, :r)",
        soci::use(platform_id), soci::use(required);
    transaction.commit();
}

void record_dashboard_audit(soci::session& session, id_generator& ids,
                            const dashboard_audit_entry& entry) {
    std::string id = ids.next("DashboardAudit");
    long long at_ms = entry.at_ms;
    session << "INSERT INTO dashboard_audit (id, platform_id, user_id, email, action, detail, "
               "remote_address, at_ms) VALUES (:i, :p, :u, :e, :a, :d, :r, :t)",
        soci::use(id), soci::use(entry.platform_id), soci::use(entry.user_id),
        soci::use(entry.email), soci::use(entry.action), soci::use(entry.detail),
        soci::use(entry.remote_address), soci::use(at_ms);
}

std::vector<dashboard_audit_entry> list_dashboard_audit(soci::session& session,
                                                        const std::string& platform_id,
                                                        std::size_t limit) {
    dashboard_audit_entry row;
    long long at_ms = 0;
    int row_limit = static_cast<int>(limit);
    soci::statement statement =
        (session.prepare << "SELECT id, platform_id, user_id, email, action, detail, "
                            "remote_address, at_ms FROM dashboard_audit WHERE platform_id = :p "
                            "ORDER BY at_ms DESC, id DESC LIMIT :l",
         soci::use(platform_id), soci::use(row_limit), soci::into(row.id),
         soci::into(row.platform_id), soci::into(row.user_id), soci::into(row.email),
         soci::into(row.action), soci::into(row.detail), soci::into(row.remote_address),
         soci::into(at_ms));
    std::vector<dashboard_audit_entry> entries;
    if (statement.execute(true)) {
        do {
            row.at_ms = at_ms;
            entries.push_back(row);
        } while (statement.fetch());
    }
    return entries;
}

std::optional<std::string> platform_name(soci::session& session, const std::string& platform_id) {
    std::string name;
    session << "SELECT name FROM platforms WHERE id = :p", soci::use(platform_id), soci::into(name);
    if (!session.got_data()) return std::nullopt;
    return name;
}

}  // namespace corridor
