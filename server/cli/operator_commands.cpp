// The operator's tools over the database (design.md section 6): platform list, token list|revoke,
// payment show, rails operations, webhooks backlog, kyc approve|reject and audit. Each takes
// --config/--database like the other commands and --json for scripts; none migrates the database
// (a schema that is not this binary's is refused by name, see open_current).
#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <iostream>
#include <map>

#include "ledger/book/audit.hpp"
#include "ledger/base/clock.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/customers/kyc.hpp"
#include "ledger/payments/operator_views.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/base/random.hpp"
#include "ledger/base/time_format.hpp"
#include "server/api/auth.hpp"
#include "server/cli/cli_internal.hpp"

namespace corridor {
namespace po = boost::program_options;
namespace json = boost::json;

namespace {

using args_t = std::vector<std::string>;

// Like parse(), with the command's one positional argument (an id) under the name "id".
po::variables_map parse_with_id(const args_t& args, const po::options_description& options,
                                const char* what) {
    po::options_description all(options);
    all.add_options()("id", po::value<std::vector<std::string>>(), what);
    po::positional_options_description positional;
    positional.add("id", -1);
    po::variables_map values;
    try {
        po::store(po::command_line_parser(args).options(all).positional(positional).run(), values);
        po::notify(values);
    } catch (const po::error& error) {
        throw usage_error(error.what());
    }
    if (values.count("help")) return parse({"--help"}, options);  // prints the usage and exits
    if (!values.count("id")) throw usage_error(std::string(what) + " is required");
    if (values["id"].as<std::vector<std::string>>().size() != 1) {
        throw usage_error(std::string("one ") + what + " only");
    }
    return values;
}

std::string id_of(const po::variables_map& values) {
    return values["id"].as<std::vector<std::string>>().front();
}

// Ids are <Type>:<uuid>: anything else is refused before it reaches a query (payment show
// matches ids inside event payloads with LIKE, where _ and % would be wildcards).
void check_id(const std::string& id, const char* what) {
    bool ok = !id.empty() && id.size() <= 100 &&
              std::all_of(id.begin(), id.end(),
                          [](unsigned char c) { return std::isalnum(c) || c == ':' || c == '-'; });
    if (!ok)
        throw usage_error(std::string(what) + " must look like Type:<uuid>, got \"" + id + "\"");
}

std::string required_text(const po::variables_map& values, const char* name) {
    if (!values.count(name) || values[name].as<std::string>().empty()) {
        throw usage_error(std::string("--") + name + " is required");
    }
    return values[name].as<std::string>();
}

po::options_description with_json() {
    auto options = common_options();
    options.add_options()("json", "print JSON");
    return options;
}

// --- rendering ---------------------------------------------------------------------------------

std::string camel(std::string_view snake) {
    std::string out;
    bool upper = false;
    for (char c : snake) {
        if (c == '_') {
            upper = true;
            continue;
        }
        out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        upper = false;
    }
    return out;
}

// A row as JSON: camelCase names; *_at_ms times as RFC 3339 under *At (null when unset, 0).
json::object row_json(const view_row& row) {
    json::object out;
    for (const auto& field : row) {
        std::string_view name = field.name;
        if (name.ends_with("_at_ms")) {
            std::int64_t ms = field.value ? std::stoll(*field.value) : 0;
            out[camel(name.substr(0, name.size() - 3))] =
                ms > 0 ? json::value(format_timestamp_ms(ms)) : json::value(nullptr);
        } else if (!field.value) {
            out[camel(name)] = nullptr;
        } else if (field.integer) {
            out[camel(name)] = std::stoll(*field.value);
        } else {
            out[camel(name)] = *field.value;
        }
    }
    return out;
}

json::array rows_json(const std::vector<view_row>& rows) {
    json::array out;
    for (const auto& row : rows) out.push_back(row_json(row));
    return out;
}

std::string cell(const json::value& value) {
    if (value.is_null()) return "-";
    if (value.is_string()) return value.as_string().empty() ? "-" : std::string(value.as_string());
    if (value.is_bool()) return value.as_bool() ? "yes" : "no";
    return json::serialize(value);
}

// A table of the given keys of JSON objects, one line per object, columns aligned.
void print_table(const json::array& rows, const std::vector<std::string>& keys) {
    std::vector<std::vector<std::string>> cells;
    std::vector<std::size_t> widths;
    std::vector<std::string> header;
    for (const auto& key : keys) {
        header.push_back(key);
        widths.push_back(key.size());
    }
    for (const auto& row : rows) {
        std::vector<std::string> line;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const auto* value = row.as_object().if_contains(keys[i]);
            line.push_back(value ? cell(*value) : "-");
            widths[i] = std::max(widths[i], line.back().size());
        }
        cells.push_back(std::move(line));
    }
    auto print_line = [&](const std::vector<std::string>& line) {
        std::string text;
        for (std::size_t i = 0; i < line.size(); ++i) {
            text += line[i];
            if (i + 1 < line.size()) text += std::string(widths[i] - line[i].size() + 2, ' ');
        }
        std::cout << text << "\n";
    };
    print_line(header);
    for (const auto& line : cells) print_line(line);
}

void print_object(const json::object& object, const std::string& indent = "") {
    for (const auto& [key, value] : object) {
        if (value.is_array() || value.is_object()) continue;
        std::cout << indent << std::string(key) << ": " << cell(value) << "\n";
    }
}

void print_json(const json::value& value) {
    std::cout << json::serialize(value) << std::endl;
}

// --- commands ----------------------------------------------------------------------------------

int platform_list(const args_t& args) {
    auto values = parse(args, with_json());
    auto session = open_current(load_config(values));
    json::array platforms;
    for (const auto& row : platforms_view(*session)) {
        auto object = row_json(row);
        object["isRegulated"] = object["isRegulated"].as_int64() != 0;
        platforms.push_back(std::move(object));
    }
    if (values.count("json")) {
        print_json(json::object{{"platforms", platforms}});
    } else if (platforms.empty()) {
        std::cout << "no platforms: make one with `corridor platform create`" << std::endl;
    } else {
        print_table(platforms, {"id", "name", "umaDomain", "isRegulated", "liveTokens", "customers",
                                "createdAt"});
    }
    return 0;
}

void require_platform(soci::session& session, const std::string& platform_id) {
    if (!platform_exists(session, platform_id))
        throw std::runtime_error("no platform " + platform_id);
}

int token_list(const args_t& args) {
    auto options = with_json();
    options.add_options()("platform", po::value<std::string>(), "platform id");
    auto values = parse(args, options);
    auto platform_id = required_text(values, "platform");
    check_id(platform_id, "--platform");
    auto session = open_current(load_config(values));
    require_platform(*session, platform_id);
    json::array tokens;
    for (const auto& row : tokens_view(*session, platform_id)) {
        auto object = row_json(row);
        object["permissions"] =
            permission_names(static_cast<unsigned>(object["permissions"].as_int64()));
        object["revoked"] = object["isDeleted"].as_int64() != 0;
        object.erase("isDeleted");
        tokens.push_back(std::move(object));
    }
    if (values.count("json")) {
        print_json(json::object{{"platformId", platform_id}, {"tokens", tokens}});
    } else {
        print_table(tokens, {"id", "environment", "name", "permissions", "clientId", "revoked",
                             "createdAt"});
    }
    return 0;
}

int token_revoke(const args_t& args) {
    auto values = parse_with_id(args, with_json(), "the token id");
    auto token_id = id_of(values);
    check_id(token_id, "the token id");
    auto session = open_current(load_config(values));
    system_clock wall;
    switch (revoke_token_any_tenant(*session, wall, token_id)) {
        case revoke_outcome::not_found: throw std::runtime_error("no token " + token_id);
        case revoke_outcome::already_revoked:
            throw std::runtime_error("token " + token_id + " is already revoked");
        case revoke_outcome::revoked: break;
    }
    if (values.count("json")) {
        print_json(json::object{{"tokenId", token_id}, {"revoked", true}});
    } else {
        std::cout << "token " << token_id
                  << " revoked; running servers refuse it once their token cache expires "
                     "(cache.ttl_ms)"
                  << std::endl;
    }
    return 0;
}

int payment_show(const args_t& args) {
    auto values = parse_with_id(args, with_json(), "the transaction id");
    auto id = id_of(values);
    check_id(id, "the transaction id");
    auto session = open_current(load_config(values));
    auto view = find_payment_view(*session, id);
    if (!view) throw std::runtime_error("no transaction " + id);
    std::map<std::string, json::array> attempts_by_event;
    for (const auto& attempt : view->webhook_attempts) {
        auto object = row_json(attempt);
        std::string event_id(object["eventId"].as_string());
        object.erase("eventId");
        attempts_by_event[event_id].push_back(std::move(object));
    }
    json::array events;
    for (const auto& row : view->webhook_events) {
        auto object = row_json(row);
        object["deliveryAttempts"] = attempts_by_event[std::string(object["id"].as_string())];
        events.push_back(std::move(object));
    }
    json::object transaction = row_json(view->transaction);
    json::array postings = rows_json(view->postings), operations = rows_json(view->rail_operations);
    if (values.count("json")) {
        print_json(json::object{{"transaction", transaction},
                                {"postings", postings},
                                {"railOperations", operations},
                                {"webhookEvents", events}});
        return 0;
    }
    std::cout << "transaction\n";
    print_object(transaction, "  ");
    std::cout << "\nledger postings (" << postings.size() << ")\n";
    if (!postings.empty())
        print_table(postings, {"id", "code", "debitAccountId", "creditAccountId", "amount",
                               "currency", "createdAt"});
    std::cout << "\nrail operations (" << operations.size() << ")\n";
    if (!operations.empty())
        print_table(operations, {"id", "rail", "direction", "status", "amount", "currency",
                                 "railReference", "attempts", "failureReason", "updatedAt"});
    std::cout << "\nwebhook events (" << events.size() << ")\n";
    for (const auto& event : events) {
        const auto& object = event.as_object();
        std::cout << fmt::format("  {} {} {} attempts {}\n", cell(object.at("id")),
                                 cell(object.at("type")), cell(object.at("state")),
                                 cell(object.at("attempts")));
        for (const auto& attempt : object.at("deliveryAttempts").as_array()) {
            const auto& a = attempt.as_object();
            std::cout << fmt::format("    #{} {} {} status {} {}\n", cell(a.at("attempt")),
                                     cell(a.at("attemptedAt")), cell(a.at("outcome")),
                                     cell(a.at("responseStatus")), cell(a.at("error")));
        }
    }
    std::cout << std::flush;
    return 0;
}

int rails_operations(const args_t& args) {
    auto options = with_json();
    options.add_options()("stuck", "only operations without a final outcome in time")(
        "limit", po::value<int>()->default_value(100), "at most this many, newest first");
    auto values = parse(args, options);
    int limit = values["limit"].as<int>();
    if (limit < 1 || limit > 100000) throw usage_error("--limit must be 1 to 100000");
    auto config = load_config(values);
    auto session = open_current(config);
    system_clock wall;
    bool stuck = values.count("stuck") > 0;
    auto operations = rows_json(
        rail_operations_view(*session, stuck, wall.now_ms(), config.rails_call_timeout_ms, limit));
    for (auto& operation : operations) {
        auto& reason = operation.as_object()["stuckReason"];
        if (reason.is_string() && reason.as_string().empty()) reason = nullptr;
    }
    if (values.count("json")) {
        print_json(json::object{{"stuckOnly", stuck},
                                {"callTimeoutMs", config.rails_call_timeout_ms},
                                {"operations", operations}});
    } else if (operations.empty()) {
        std::cout << (stuck ? "no stuck rail operations" : "no rail operations") << std::endl;
    } else {
        print_table(operations,
                    {"id", "rail", "direction", "status", "stuckReason", "amount", "currency",
                     "transactionId", "attempts", "deadlineAt", "updatedAt"});
    }
    return 0;
}

int webhooks_backlog(const args_t& args) {
    auto options = with_json();
    options.add_options()("platform", po::value<std::string>(), "only this platform");
    auto values = parse(args, options);
    std::optional<std::string> platform_id;
    if (values.count("platform")) {
        platform_id = values["platform"].as<std::string>();
        check_id(*platform_id, "--platform");
    }
    auto session = open_current(load_config(values));
    if (platform_id) require_platform(*session, *platform_id);
    system_clock wall;
    std::int64_t now_ms = wall.now_ms();
    json::array groups;
    std::int64_t pending = 0, failing = 0, oldest_ms = 0;
    for (const auto& row : webhook_backlog_view(*session, platform_id)) {
        auto object = row_json(row);
        std::int64_t created_ms = std::stoll(field_text(row, "oldest_created_at_ms"));
        object["oldestAgeMs"] = std::max<std::int64_t>(0, now_ms - created_ms);
        pending += object["pending"].as_int64();
        failing += object["failing"].as_int64();
        if (oldest_ms == 0 || created_ms < oldest_ms) oldest_ms = created_ms;
        groups.push_back(std::move(object));
    }
    json::value oldest_age = oldest_ms ? json::value(std::max<std::int64_t>(0, now_ms - oldest_ms))
                                       : json::value(nullptr);
    if (values.count("json")) {
        print_json(json::object{{"pending", pending},
                                {"failing", failing},
                                {"oldestAgeMs", oldest_age},
                                {"platforms", groups}});
        return 0;
    }
    if (pending == 0) {
        std::cout << "no undelivered webhook events" << std::endl;
        return 0;
    }
    std::cout << pending << " undelivered webhook event(s), " << failing
              << " with failed attempts; the oldest is " << cell(oldest_age) << " ms old\n";
    print_table(groups, {"platformId", "environment", "pending", "failing", "failedAttempts",
                         "oldestCreatedAt", "oldestAgeMs"});
    return 0;
}

int kyc_decide(const std::string& action, const args_t& args) {
    auto options = with_json();
    options.add_options()("customer", po::value<std::string>(), "customer id")(
        "reason", po::value<std::string>(), "why (kept with the review)");
    auto values = parse(args, options);
    auto customer_id = required_text(values, "customer");
    check_id(customer_id, "--customer");
    std::string reason = values.count("reason") ? values["reason"].as<std::string>() : "";
    if (reason.size() > 1000) throw usage_error("--reason must be at most 1000 characters");
    auto session = open_current(load_config(values));
    system_clock wall;
    os_random random;
    id_generator ids(wall, random);
    auto decided = decide_kyc_review(*session, ids, wall, customer_id, action == "approve", reason);
    if (!decided) {
        if (decided.error() == kyc_decision_error::customer_not_found) {
            throw std::runtime_error("no customer " + customer_id);
        }
        std::string status;
        *session << "SELECT kyc_status FROM customers WHERE id = :i", soci::use(customer_id),
            soci::into(status);
        std::string why = "its KYC status is " + status;
        if (status == "PENDING_REVIEW") why += " but it has submitted nothing to review yet";
        throw std::runtime_error("customer " + customer_id + " has no pending KYC review (" + why +
                                 "): there is nothing to " + action);
    }
    json::object body{{"customerId", customer_id},
                      {"reviewId", decided->review_id},
                      {"platformId", decided->owner.platform_id},
                      {"environment", std::string(decided->owner.env_name())},
                      {"kycStatus", decided->decision},
                      {"reason", reason.empty() ? json::value(nullptr) : json::value(reason)}};
    if (values.count("json")) {
        print_json(body);
    } else {
        std::cout << "customer " << customer_id << " is now " << decided->decision << " (review "
                  << decided->review_id << "); the platform gets a KYC_STATUS webhook" << std::endl;
    }
    return 0;
}

int audit(const args_t& args) {
    auto values = parse(args, with_json());
    auto session = open_current(load_config(values));
    auto report = audit_ledger_snapshot(*session);
    if (values.count("json")) {
        json::array findings;
        for (const auto& finding : report.findings) {
            findings.push_back(json::object{
                {"check", finding.check},
                {"accountId", finding.account_id.empty() ? json::value(nullptr)
                                                         : json::value(finding.account_id)},
                {"transferId", finding.transfer_id.empty() ? json::value(nullptr)
                                                           : json::value(finding.transfer_id)},
                {"message", finding.message}});
        }
        print_json(json::object{{"accounts", report.accounts},
                                {"transfers", report.transfers},
                                {"clean", report.clean()},
                                {"findings", findings}});
    } else if (report.clean()) {
        std::cout << "audited " << report.accounts << " account(s) and " << report.transfers
                  << " transfer(s): every balance matches its postings" << std::endl;
    } else {
        std::cout << "audited " << report.accounts << " account(s) and " << report.transfers
                  << " transfer(s): " << report.findings.size() << " difference(s)\n";
        for (const auto& finding : report.findings) {
            std::cout << "  " << finding.check << ": " << finding.message << "\n";
        }
        std::cout << std::flush;
    }
    return report.clean() ? 0 : 1;
}

args_t after_first(const args_t& rest) {
    return args_t(rest.begin() + 1, rest.end());
}

}  // namespace

std::optional<int> run_operator_command(const std::string& command, const args_t& rest) {
    std::string sub = rest.empty() ? "" : rest[0];
    if (command == "platform" && sub == "list") return platform_list(after_first(rest));
    if (command == "token" && sub == "list") return token_list(after_first(rest));
    if (command == "token" && sub == "revoke") return token_revoke(after_first(rest));
    if (command == "payment" && sub == "show") return payment_show(after_first(rest));
    if (command == "rails" && sub == "operations") return rails_operations(after_first(rest));
    if (command == "webhooks" && sub == "backlog") return webhooks_backlog(after_first(rest));
    if (command == "kyc" && (sub == "approve" || sub == "reject"))
        return kyc_decide(sub, after_first(rest));
    if (command == "audit") return audit(rest);
    if (command == "payment" || command == "rails" || command == "webhooks" || command == "kyc") {
        throw usage_error("unknown command: " + command + (sub.empty() ? "" : " " + sub));
    }
    return std::nullopt;
}

}  // namespace corridor
