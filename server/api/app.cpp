#include "server/api/app.hpp"

#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include <openssl/sha.h>

#include "ledger/base/assert.hpp"
#include "ledger/store/idempotency.hpp"
#include "ledger/store/statement_cache.hpp"
#include "server/api/errors.hpp"
#include "server/api/openapi_document.hpp"
#include "server/dashboard/routes.hpp"

namespace corridor {
namespace {

bool looks_like_version(std::string_view segment) {
    if (segment.size() != 10 || segment[4] != '-' || segment[7] != '-') return false;
    for (std::size_t i = 0; i < segment.size(); ++i) {
        if (i != 4 && i != 7 && (segment[i] < '0' || segment[i] > '9')) return false;
    }
    return true;
}

std::string_view path_of(std::string_view target) { return target.substr(0, target.find('?')); }

principal principal_of(const token_credentials& credentials) {
    return principal{credentials.token.id, credentials.token.client_id, credentials.token.owner,
                     credentials.token.permissions};
}

void authorize(const route_spec& route, const principal& who) {
    unsigned missing = route.permission & ~who.permissions;
    if (missing != 0) {
        fail(error_code::forbidden,
             "this token lacks the " + permission_names(missing) + " permission");
    }
    if (route.sandbox_only && who.owner.env != environment::sandbox) {
        fail(error_code::forbidden, "sandbox operations are not available with production credentials");
    }
}

http_response method_not_allowed(const std::vector<http_method>& allowed) {
    auto response = error_response(error_code::method_not_allowed, "method not allowed on this path");
    std::string list;
    for (auto method : allowed) {
        if (!list.empty()) list += ", ";
        list += to_string(method);
    }
    response.headers.emplace_back("Allow", list);
    return response;
}

// What is wrong with an Idempotency-Key header, or empty when it is well formed.
std::string idempotency_key_error(std::string_view key) {
    if (key.empty() || key.size() > idempotency_key_chars_max) return "must be 1 to 255 characters";
    for (char c : key) {
        if (c < 0x21 || c > 0x7e) return "must be printable ASCII without spaces";
    }
    return {};
}

}  // namespace

std::string versioned(std::string_view path) {
    return "/" + std::string(api_version) + std::string(path);
}

http_response json_response(int status, const boost::json::value& body) {
    http_response response;
    response.status = status;
    response.body = boost::json::serialize(body);
    return response;
}

std::string tenant_key(const tenant& owner) {
    return owner.platform_id + "|" + std::string(owner.env_name());
}

soci::session& request_context::session() const {
    CORRIDOR_ASSERT(db != nullptr);
    return *db;
}

const tenant& request_context::owner() const {
    CORRIDOR_ASSERT(who.has_value());
    return who->owner;
}

api::api(app_services& services, api_surface surface) : services_(services) {
    if (surface == api_surface::admin) {
        register_admin_routes(router_);
        return;
    }
    register_health_routes(router_);
    register_config_routes(router_);
    register_token_routes(router_);
    register_customer_routes(router_);
    register_account_routes(router_);
    register_exchange_rate_routes(router_);
    register_quote_routes(router_);
    register_transaction_routes(router_);
    register_sandbox_routes(router_);
    register_webhook_routes(router_);
    register_external_account_routes(router_);
    register_bank_link_routes(router_);
    register_bulk_import_routes(router_);
    register_kyc_routes(router_);
    register_uma_routes(router_);
    register_uma_lookup_routes(router_);
    register_transfer_routes(router_);
    register_invitation_routes(router_);
    register_uma_provider_routes(router_);
    register_openapi_routes(router_);
    register_dashboard_routes(router_);
    register_dashboard_page_routes(router_);
    std::vector<std::string> labels;
    for (const auto& route : router_.routes()) {
        labels.push_back(std::string(to_string(route.method)) + " " + route.pattern);
    }
    services_.stats = std::make_unique<metrics>(std::move(labels));
}

// 405 when the path exists for other methods, 404 naming the supported version when the version
// segment is unknown, 404 otherwise.
http_response api::no_route(std::string_view path, const route_match& match) const {
    auto segments = split_path(path);
    if (segments && !segments->empty() && looks_like_version(segments->front()) &&
        segments->front() != api_version) {
        boost::json::object details;
        details["supportedVersions"] = boost::json::array{api_version};
        return error_response(api_error{error_code::unsupported_version,
                                        "API version " + segments->front() +
                                            " is not supported; use " + std::string(api_version),
                                        std::move(details)});
    }
    if (!match.allowed.empty()) return method_not_allowed(match.allowed);
    return error_response(error_code::not_found, "no such endpoint");
}

// The caller from the token cache, or nullopt when it is not cached (the database decides then).
// Only the parts needed are copied out of the cache; the secret is hashed outside its lock.
std::optional<principal> api::cached_principal(const basic_credentials& credentials) const {
    std::string secret_hash;
    std::optional<principal> who;
    bool cached = services_.tokens.visit(credentials.client_id, services_.time.now_ms(),
                                         [&](const token_credentials& found) {
                                             secret_hash = found.secret_hash;
                                             who = principal_of(found);
                                         });
    if (!cached) return std::nullopt;
    if (!secret_matches(credentials.client_secret, secret_hash)) {
        fail(error_code::unauthorized, "invalid credentials");
    }
    return who;
}

// Marks the client's Idempotency-Key as in progress: a retry arriving meanwhile is refused (409)
// rather than run twice. The returned guard releases the key when the job holding it is destroyed,
// after its outcome is durable.
std::shared_ptr<void> api::claim_in_flight(const std::string& client_id,
                                           std::string_view key) const {
    std::string slot = client_id + "|" + std::string(key);
    {
        std::lock_guard lock(in_flight_mutex_);
        if (!in_flight_.insert(slot).second) {
            fail(error_code::idempotency_key_in_use,
                 "a request with this Idempotency-Key is still being processed");
        }
    }
    return std::shared_ptr<void>(nullptr, [this, slot](void*) {
        std::lock_guard lock(in_flight_mutex_);
        in_flight_.erase(slot);
    });
}

bool api::body_to_file(http_method method, std::string_view target) const {
    if (method != http_method::post) return false;  // spares the other requests a second match
    auto match = router_.match(method, path_of(target));
    return match.route && match.route->body_to_file;
}

dispatch_plan api::plan(std::shared_ptr<const http_request> request) const {
    dispatch_plan plan;
    route_match match;
    try {
        std::string_view path = path_of(request->target);
        match = router_.match(request->method, path);
        if (!match.route) {
            plan.immediate = no_route(path, match);
            return plan;
        }
        const route_spec& route = *match.route;
        std::optional<principal> who;
        std::optional<basic_credentials> credentials;
        if (route.who == access::authenticated) {
            auto header = request->header("authorization");
            if (header) credentials = parse_basic_authorization(*header);
            if (!credentials) {
                fail(error_code::unauthorized,
                     "HTTP Basic credentials (clientId:clientSecret) are required");
            }
            who = cached_principal(*credentials);
            if (who) authorize(route, *who);
        }
        bool authenticated = route.who == access::public_route || who.has_value();
        if (authenticated && (route.fast || !route.needs_database)) {
            // The principal moves into the context and back out if the database is still needed.
            request_context context{*request, query_params(request->target), match.params,
                                    std::move(who), nullptr, services_, {}};
            if (route.fast) {
                if (auto response = route.fast(context)) plan.immediate = std::move(response);
            } else {
                plan.immediate = route.handler(context);
            }
            if (plan.immediate && context.who) {
                plan.immediate->client_id = std::move(context.who->client_id);
            }
            if (!plan.immediate) who = std::move(context.who);
        }
        if (!plan.immediate) {
            std::shared_ptr<void> in_flight;
            // Only for a caller already authenticated here: an unverified clientId must not be
            // able to hold another client's key. (Uncached callers are serialised by the writer.)
            auto key = request->header("idempotency-key");
            if (route.idempotent && who && key) in_flight = claim_in_flight(who->client_id, *key);
            plan.on_ledger_writer = route.on_ledger_writer;
            // What the prepare step hands the writer step: its result, and the caller it
            // authenticated (so the writer does not look the token up again).
            struct prepared_state {
                std::optional<principal> who;
                std::any value;
            };
            auto state = std::make_shared<prepared_state>(prepared_state{who, {}});
            if (route.prepare) {
                CORRIDOR_ASSERT(route.on_ledger_writer);
                plan.prepare = [this, request, match, credentials,
                                state](soci::session& session) {
                    return run_prepare(session, *request, match, state->who, credentials,
                                       state->value);
                };
            }
            plan.job = [this, request, match, credentials, in_flight,
                        state](soci::session& session) {
                // Lent, not copied: the writer may run a command again with its batch (a
                // refused optimistic attempt, a stale configuration), and each run reads it.
                return run_with_database(session, *request, match, state->who, credentials,
                                         state->value);
            };
            return plan;
        }
    } catch (const api_error& error) {
        plan.immediate = error_response(error);
    }
    CORRIDOR_ASSERT(plan.immediate.has_value());
    plan.immediate->route_index = match.index;
    return plan;
}

// Database and unexpected errors become a 500 that names nothing internal; api_errors their own
// answer. A database out of reach (a lost connection, a restarting server) is not a fault of the
// request: 503 with Retry-After, and the session is marked failed so that its thread replaces it.
template <typename Run>
http_response api::answering_errors(soci::session& session, const http_request& request,
                                    const route_match& match, Run&& run) const {
    try {
        return run();
    } catch (const api_error& error) {
        return error_response(error);
    } catch (const soci::soci_error& error) {
        if (is_database_unavailable(session, error)) {
            spdlog::warn("database unavailable on {} {}: {}", to_string(request.method),
                         match.route ? match.route->pattern : "?", error.what());
            auto response = error_response(error_code::service_unavailable,
                                           "the database is unavailable; retry later");
            response.database_failed = true;
            return response;
        }
        spdlog::error("database error on {} {}: {}", to_string(request.method),
                      match.route ? match.route->pattern : "?", error.what());
        auto response = error_response(error_code::internal_error, "internal error; retry later");
        response.database_failed = true;
        response.contention = is_retryable_conflict(error);
        return response;
    } catch (const std::exception& error) {
        spdlog::error("unexpected error on {} {}: {}", to_string(request.method),
                      match.route ? match.route->pattern : "?", error.what());
        return error_response(error_code::internal_error, "internal error; retry later");
    }
}

// Credentials the io thread could not check from its cache are checked against the database.
void api::authenticate(soci::session& session, const route_spec& route,
                       const std::optional<basic_credentials>& credentials,
                       std::optional<principal>& who) const {
    if (route.who != access::authenticated || who) return;
    CORRIDOR_ASSERT(credentials.has_value());
    auto epoch = services_.tokens.epoch();
    auto stored = find_token_by_client_id(session, credentials->client_id);
    if (!stored || !secret_matches(credentials->client_secret, stored->secret_hash)) {
        fail(error_code::unauthorized, "invalid credentials");
    }
    services_.tokens.put(credentials->client_id, *stored, services_.time.now_ms(), epoch);
    who = principal_of(*stored);
    authorize(route, *who);
}

std::optional<http_response> api::run_prepare(soci::session& session,
                                              const http_request& request,
                                              const route_match& match,
                                              std::optional<principal>& who,
                                              const std::optional<basic_credentials>& credentials,
                                              std::any& prepared) const {
    bool go_on = false;
    http_response response = answering_errors(session, request, match, [&] {
        const route_spec& route = *match.route;
        authenticate(session, route, credentials, who);
        request_context context{
            request, query_params(request.target), match.params, who, &session, services_, {}};
        // A replay is answered from the stored response by the writer step: preparing it again
        // would repeat the work (another invoice, another signature check) for nothing.
        auto key = request.header("idempotency-key");
        bool replay = route.idempotent && key && idempotency_key_error(*key).empty() &&
                      find_idempotent_response(session, context.owner(), std::string(*key));
        if (!replay) prepared = route.prepare(context);
        // A step may answer the request itself, in a body shape other than the service's errors
        // (the UMA callbacks answer in the UMA error shape).
        if (auto* answer = std::any_cast<http_response>(&prepared)) return std::move(*answer);
        go_on = true;
        return http_response{};
    });
    if (go_on) return std::nullopt;
    response.route_index = match.index;
    if (who) response.client_id = who->client_id;
    return response;
}

http_response api::run_with_database(soci::session& session, const http_request& request,
                                     const route_match& match, std::optional<principal> who,
                                     const std::optional<basic_credentials>& credentials,
                                     std::any& prepared) const {
    http_response response = answering_errors(session, request, match, [&] {
        const route_spec& route = *match.route;
        authenticate(session, route, credentials, who);
        request_context context{
            request, query_params(request.target), match.params, who, &session, services_, {}};
        context.prepared = &prepared;
        auto key = request.header("idempotency-key");
        if (route.idempotent && key) return run_idempotent(session, route, context, std::string(*key));
        return run_handler(session, route, context);
    });
    response.route_index = match.index;
    if (who) response.client_id = who->client_id;
    return response;
}

http_response api::run_handler(soci::session& session, const route_spec& route,
                               request_context& context) const {
    if (!route.on_ledger_writer) return route.handler(context);
    // On the writer the request shares a batch transaction: a failed request must leave nothing,
    // so its writes sit in a savepoint that is rolled back unless it succeeded.
    run_control(session, "SAVEPOINT request");
    http_response response;
    try {
        response = route.handler(context);
    } catch (const api_error& error) {
        response = error_response(error);
    }
    if (response.status >= 400) run_control(session, "ROLLBACK TO SAVEPOINT request");
    run_control(session, "RELEASE SAVEPOINT request");
    return response;
}

namespace {

std::string request_fingerprint(const http_request& request) {
    std::string material = std::string(to_string(request.method)) + " " +
                           request.target.substr(0, request.target.find('?')) + "\n" + request.body;
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(material.data()), material.size(), digest);
    static constexpr char digits[] = "0123456789abcdef";
    std::string hex;
    for (unsigned char byte : digest) {
        hex.push_back(digits[byte >> 4]);
        hex.push_back(digits[byte & 0xf]);
    }
    return hex;
}

}  // namespace

http_response api::run_idempotent(soci::session& session, const route_spec& route,
                                  request_context& context, const std::string& key) const {
    if (auto problem = idempotency_key_error(key); !problem.empty()) {
        fail_field("Idempotency-Key", problem);
    }
    std::string fingerprint = request_fingerprint(context.request);
    if (auto stored = find_idempotent_response(session, context.owner(), key)) {
        if (stored->request_hash != fingerprint) {
            fail(error_code::idempotency_key_mismatch,
                 "this Idempotency-Key was used with a different request");
        }
        http_response replay;
        replay.status = stored->status;
        replay.body = stored->body;
        replay.headers.emplace_back("Idempotent-Replayed", "true");
        return replay;
    }
    run_control(session, "SAVEPOINT keyed");
    http_response response = run_handler(session, route, context);
    if (response.status < 500) {
        try {
            store_idempotent_response(session, context.owner(), key,
                                      {fingerprint, response.status, response.body},
                                      services_.time.now_ms());
        } catch (const soci::soci_error& error) {
            if (!is_unique_violation(error)) throw;
            // Another process stored this key first: its request is the one that counts, and
            // this one's effects are undone.
            run_control(session, "ROLLBACK TO SAVEPOINT keyed");
            run_control(session, "RELEASE SAVEPOINT keyed");
            fail(error_code::idempotency_key_in_use,
                 "a request with this Idempotency-Key is being processed elsewhere");
        }
    }
    run_control(session, "RELEASE SAVEPOINT keyed");
    return response;
}

}  // namespace corridor
