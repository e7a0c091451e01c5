// corridor user create|list|disable: the operator's side of the platform dashboard's users. The
// first admin of a platform is made here; it then invites the others from the dashboard.
#include <boost/json.hpp>
#include <fstream>
#include <iostream>
#include <sstream>

#include "ledger/platforms/dashboard_store.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/base/random.hpp"
#include "ledger/base/time_format.hpp"
#include "server/cli/cli_internal.hpp"
#include "server/dashboard/passwords.hpp"
#include "server/dashboard/session.hpp"
#include "server/dashboard/users.hpp"

namespace corridor {
namespace po = boost::program_options;
namespace json = boost::json;
namespace {

std::string required(const po::variables_map& values, const char* name) {
    if (!values.count(name) || values[name].as<std::string>().empty()) {
        throw usage_error(std::string("--") + name + " is required");
    }
    return values[name].as<std::string>();
}

// The password from a file: its first line (a trailing newline is not part of it).
std::string read_password_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read the password file " + path);
    std::ostringstream text;
    text << in.rdbuf();
    std::string password = text.str();
    auto end = password.find_first_of("\r\n");
    if (end != std::string::npos) password.resize(end);
    return password;
}

json::object user_json(const dashboard_user& user) {
    return json::object{{"userId", user.id},
                        {"platformId", user.platform_id},
                        {"email", user.email},
                        {"role", user.role},
                        {"state", user.disabled                ? "disabled"
                                  : user.password_hash.empty() ? "invited"
                                                               : "active"},
                        {"totp", !user.totp_secret.empty()},
                        {"createdAt", format_timestamp_ms(user.created_at_ms)}};
}

int user_create(const std::vector<std::string>& args) {
    auto options = common_options();
    options.add_options()("platform", po::value<std::string>(), "platform id")(
        "email", po::value<std::string>(), "the user's e-mail address")(
        "role", po::value<std::string>(), "admin, developer or viewer")(
        "password-file", po::value<std::string>(), "a file holding the password")("json",
                                                                                  "print JSON");
    auto values = parse(args, options);
    auto platform_id = required(values, "platform");
    auto email = normalize_email(required(values, "email"));
    if (!email) throw usage_error("--email must be an e-mail address (local@domain)");
    auto role = parse_dashboard_role(required(values, "role"));
    if (!role) throw usage_error("--role must be admin, developer or viewer");
    std::string password_hash;
    system_clock wall;
    os_random random;
    if (values.count("password-file")) {
        std::string password = read_password_file(values["password-file"].as<std::string>());
        if (auto problem = password_problem(password); !problem.empty()) {
            throw std::runtime_error("the password in --password-file " + problem);
        }
        password_hash = hash_password(random, password);
    }
    auto config = load_config(values);
    auto session = open_migrated(config);
    id_generator ids(wall, random);
    dashboard_user_error error{};
    auto user = create_dashboard_user(
        *session, ids, wall, {platform_id, *email, std::string(to_string(*role)), password_hash},
        error);
    if (!user) {
        if (error == dashboard_user_error::platform_not_found) {
            throw std::runtime_error("no platform " + platform_id);
        }
        throw std::runtime_error("a dashboard user with the e-mail " + *email + " already exists");
    }
    std::optional<std::string> link;
    if (password_hash.empty()) link = issue_setup_link(*session, random, wall, config, user->id);
    std::string expires = format_timestamp_ms(wall.now_ms() + config.dashboard.setup_link_ttl_ms);
    if (values.count("json")) {
        auto body = user_json(*user);
        if (link) {
            body["setupUrl"] = *link;
            body["setupExpiresAt"] = expires;
        }
        std::cout << json::serialize(body) << std::endl;
    } else {
        std::cout << "dashboard user " << user->id << " (" << user->email << ", " << user->role
                  << ") on platform " << platform_id << "\n";
        if (link) {
            std::cout << "setup link (single use, expires " << expires << "):\n" << *link << "\n";
        } else {
            std::cout << "password set from the file; sign in at /dashboard/sign-in\n";
        }
        std::cout << std::flush;
    }
    return 0;
}

int user_list(const std::vector<std::string>& args) {
    auto options = common_options();
    options.add_options()("platform", po::value<std::string>(), "platform id")("json",
                                                                               "print JSON");
    auto values = parse(args, options);
    auto platform_id = required(values, "platform");
    auto session = open_current(load_config(values));
    if (!platform_exists(*session, platform_id))
        throw std::runtime_error("no platform " + platform_id);
    json::array users;
    for (const auto& user : list_dashboard_users(*session, platform_id))
        users.push_back(user_json(user));
    if (values.count("json")) {
        std::cout << json::serialize(json::object{{"platformId", platform_id}, {"users", users}})
                  << std::endl;
        return 0;
    }
    if (users.empty()) std::cout << "no dashboard users on platform " << platform_id << "\n";
    for (const auto& item : users) {
        const auto& user = item.as_object();
        std::cout << user.at("userId").as_string() << "  " << user.at("email").as_string() << "  "
                  << user.at("role").as_string() << "  " << user.at("state").as_string()
                  << (user.at("totp").as_bool() ? "  totp" : "") << "\n";
    }
    std::cout << std::flush;
    return 0;
}

int user_disable(const std::vector<std::string>& args) {
    auto options = common_options();
    options.add_options()("id", po::value<std::string>(), "the user id")("json", "print JSON");
    po::positional_options_description positional;
    positional.add("id", 1);
    po::variables_map values;
    try {
        po::store(po::command_line_parser(args).options(options).positional(positional).run(),
                  values);
        po::notify(values);
    } catch (const po::error& error) {
        throw usage_error(error.what());
    }
    auto id = required(values, "id");
    if (!is_typed_id("DashboardUser", id)) {
        throw usage_error("the user id must be DashboardUser:<uuid> (see user list)");
    }
    auto session = open_current(load_config(values));
    system_clock wall;
    auto user = find_dashboard_user(*session, id, std::nullopt);
    if (!user) throw std::runtime_error("no dashboard user " + id);
    if (user->disabled) throw std::runtime_error("dashboard user " + id + " is already disabled");
    disable_dashboard_user(*session, wall, id, std::nullopt);
    if (values.count("json")) {
        std::cout << json::serialize(json::object{{"userId", id}, {"disabled", true}}) << std::endl;
    } else {
        std::cout << "dashboard user " << id << " (" << user->email
                  << ") is disabled; their sessions are ended" << std::endl;
    }
    return 0;
}

}  // namespace

std::optional<int> run_user_command(const std::string& command,
                                    const std::vector<std::string>& rest) {
    if (command != "user") return std::nullopt;
    if (rest.empty()) throw usage_error("user takes create, list or disable");
    std::vector<std::string> args(rest.begin() + 1, rest.end());
    if (rest[0] == "create") return user_create(args);
    if (rest[0] == "list") return user_list(args);
    if (rest[0] == "disable") return user_disable(args);
    throw usage_error("user takes create, list or disable, not " + rest[0]);
}

}  // namespace corridor
