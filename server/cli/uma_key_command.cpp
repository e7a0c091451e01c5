// `corridor uma-key show|rotate`: the UMA signing and encryption keys a platform publishes at
// /.well-known/lnurlpubkey, rotated with an overlap the way webhook-key rotates: a next pair is
// staged (`rotate --next [--at TIME]`, seen with `show --next`) while the current one signs, and
// takes over at that time or on `rotate --activate`. A plain `rotate` switches at once.
#include <boost/json.hpp>
#include <iostream>

#include "ledger/store/key_sealing.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/base/time_format.hpp"
#include "server/cli/cli_internal.hpp"
#include "server/process/key_encryption.hpp"
#include "uma/sql_stores.hpp"

namespace corridor {
namespace {

namespace po = boost::program_options;
namespace json = boost::json;

json::object render_pair(const uma::key_pair& signing, const uma::key_pair& encryption) {
    return json::object{{"signingPubKey", uma::to_hex(uma::public_key_of(signing.secret))},
                        {"encryptionPubKey", uma::to_hex(uma::public_key_of(encryption.secret))}};
}

json::object render_next(const uma::environment_keys& keys) {
    auto out = render_pair(*keys.next_signing, *keys.next_encryption);
    out["switchAt"] = keys.next_activate_at_ms
                          ? json::value(format_timestamp_ms(*keys.next_activate_at_ms))
                          : json::value(nullptr);
    return out;
}

json::object render_current(const tenant& owner, const uma::environment_keys& keys) {
    auto out = render_pair(keys.signing, keys.encryption);
    out["platformId"] = owner.platform_id;
    out["environment"] = std::string(owner.env_name());
    if (keys.next_signing && keys.next_encryption) out["next"] = render_next(keys);
    if (keys.previous_retired_at_ms) {
        out["previousRetiredAt"] = format_timestamp_ms(*keys.previous_retired_at_ms);
    }
    return out;
}

int uma_key(const std::string& action, const std::vector<std::string>& args) {
    auto options = common_options();
    options.add_options()("platform", po::value<std::string>(), "platform id")(
        "environment", po::value<std::string>(),
        "sandbox or production (default production; a domain both share uses production's keys)")(
        "next", "the next keys (show), or stage them (rotate)")(
        "at", po::value<std::string>(), "when the next keys take over (RFC 3339)")(
        "activate", "make the staged next keys current");
    auto values = parse(args, options);
    if (!values.count("platform")) throw usage_error("--platform is required");
    auto env = values.count("environment")
                   ? parse_environment(values["environment"].as<std::string>())
                   : std::optional<environment>(environment::production);
    if (!env) throw usage_error("--environment must be sandbox or production");
    auto what = key_rotation_action_of("uma-key", action, values);
    system_clock wall;
    auto switch_at_ms = staged_switch_time_of("uma-key", values, wall.now_ms());
    auto config = load_config(values);
    auto session = open_migrated(config);
    prepare_keys_at_rest(config, *session);
    auto platform_id = values["platform"].as<std::string>();
    auto platform = load_platform_config(*session, tenant{platform_id, *env});
    if (!platform) throw std::runtime_error("no platform " + platform_id);
    // The environment whose keys the platform's UMA domain publishes.
    tenant owner = uma_key_owner(*session, *platform);
    os_random random;
    uma::sql_key_store keys(*session, wall, random, installed_key_encryption_key());
    std::string no_next = "no next UMA keys are staged for " + platform_id + " (" +
                          std::string(owner.env_name()) +
                          "); stage them with uma-key rotate --next";
    write_transaction transaction(*session);
    json::object out;
    switch (what) {
        case key_rotation_action::show:
            out = render_current(owner, keys.keys_for(owner, platform->uma_domain));
            break;
        case key_rotation_action::show_next: {
            auto current = keys.keys_for(owner, platform->uma_domain);
            if (!current.next_signing || !current.next_encryption)
                throw std::runtime_error(no_next);
            out = render_next(current);
            break;
        }
        case key_rotation_action::stage_next: {
            auto staged = keys.stage_next(owner, platform->uma_domain, switch_at_ms);
            out = render_next(staged);
            std::cerr << "The next UMA keys are staged; the current keys sign until "
                      << (switch_at_ms ? format_timestamp_ms(*switch_at_ms)
                                       : std::string("uma-key rotate --activate"))
                      << ", and /.well-known/lnurlpubkey expires then." << std::endl;
            break;
        }
        case key_rotation_action::rotate_now: {
            keys.stage_next(owner, platform->uma_domain, std::nullopt);
            auto current = keys.activate_next(owner, platform->uma_domain);
            out = render_current(owner, *current);
            break;
        }
        case key_rotation_action::activate_next: {
            auto current = keys.activate_next(owner, platform->uma_domain);
            if (!current) throw std::runtime_error(no_next);
            out = render_current(owner, *current);
            break;
        }
    }
    transaction.commit();
    std::cout << json::serialize(out) << std::endl;
    return 0;
}

}  // namespace

std::optional<int> run_uma_key_command(const std::string& command,
                                       const std::vector<std::string>& rest) {
    if (command != "uma-key" || rest.empty() || (rest[0] != "show" && rest[0] != "rotate")) {
        return std::nullopt;
    }
    return uma_key(rest[0], std::vector<std::string>(rest.begin() + 1, rest.end()));
}

}  // namespace corridor
