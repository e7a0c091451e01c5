#pragma once
// The API: the route table and the dispatcher that runs a request through version check, routing,
// authentication, permission checks and its handler. The io thread calls plan(); what needs the
// database comes back as a job for a database thread. No Beast or Asio here.
#include <any>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <soci/soci.h>

#include "ledger/base/clock.hpp"
#include "ledger/book/currencies.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/base/random.hpp"
#include "ledger/book/rates.hpp"
#include "ledger/platforms/token_store.hpp"
#include "ledger/platforms/uma_providers.hpp"
#include "rails/payment_engine.hpp"
#include "rails/registry.hpp"
#include "server/api/auth.hpp"
#include "server/api/cache.hpp"
#include "server/api/input.hpp"
#include "server/api/router.hpp"
#include "server/process/config.hpp"
#include "server/http/http_types.hpp"
#include "server/process/metrics.hpp"
#include "uma/key_sealing.hpp"
#include "uma/pubkey_fetcher.hpp"

namespace corridor {

struct lightning_node;  // server/uma/uma_receipt.hpp

constexpr std::string_view api_version = "2025-10-13";

class webhook_sender;

struct app_services {
    service_config config;
    const clock& time;
    random_source& random;
    id_generator& ids;
    currency_registry currencies;
    shared_cache<token_credentials> tokens;  // by clientId
    shared_cache<std::string> configs;       // rendered PlatformConfig by tenant key
    std::unique_ptr<metrics> stats;
    std::unique_ptr<rate_source> rates;  // production's: the operator's, never samples
    funding_directory funding;           // production's
    // The sandbox's prices and bank details (its own files or the built-in samples); null: the
    // sandbox shares production's, as tests that build services by hand do.
    std::unique_ptr<rate_source> sandbox_rates;
    std::optional<funding_directory> sandbox_funding;
    // Signs and sends webhooks (POST /webhooks/test); null when delivery is not running.
    webhook_sender* webhooks = nullptr;
    uma_provider_catalog uma_providers;  // GET /uma-providers; empty until serve loads the file
    // Wakes the bulk import runner when a job is queued (unset in tests without one).
    std::function<void()> wake_bulk_import;
    // Counterparties' UMA keys, fetched over outbound HTTP and cached. Tests may replace both.
    std::unique_ptr<uma::http_transport> uma_transport;
    std::unique_ptr<uma::pubkey_fetcher> uma_keys;
    // Seals the UMA private keys at rest (uma.key_encryption_key_file); none when unset.
    std::optional<uma::sealing_key> uma_sealing;
    // Issues UMA receive invoices (plugins.settings.spark), read once in init_uma.
    std::shared_ptr<const lightning_node> uma_node;
    rail_registry rails;  // loaded at serve start; empty elsewhere
    // External accounts as the payment engine needs them; null until a store provides them.
    std::unique_ptr<external_account_directory> external_accounts;
    // Quote payouts to external accounts through the payment engine; null until serve wires it.
    std::unique_ptr<external_payout_gateway> payouts;
    // Funding instructions from the rails; null until serve wires it (then only `funding` answers).
    std::unique_ptr<funding_instruction_source> funding_rails;

    app_services(service_config config, const clock& time, random_source& random, id_generator& ids,
                 currency_registry currencies, std::unique_ptr<rate_source> rates,
                 funding_directory funding)
        : config(std::move(config)),
          time(time),
          random(random),
          ids(ids),
          currencies(std::move(currencies)),
          tokens(this->config.cache_ttl_ms),
          configs(this->config.cache_ttl_ms),
          rates(std::move(rates)),
          funding(std::move(funding)) {
        init_uma();
    }
    void init_uma();

    const rate_source& rates_for(environment env) const {
        return env == environment::sandbox && sandbox_rates ? *sandbox_rates : *rates;
    }
    const funding_directory& funding_for(environment env) const {
        return env == environment::sandbox && sandbox_funding ? *sandbox_funding : funding;
    }

    payment_services payments() {
        return payment_services{ids,     random,
                                time,    currencies,
                                *rates,  funding,
                                config.quotes_ttl_seconds * 1000, payouts.get(),
                                funding_rails.get(), sandbox_rates.get(),
                                sandbox_funding ? &*sandbox_funding : nullptr};
    }
    rail_engine_services rail_payments() {
        rail_engine_settings settings;
        settings.call_timeout_ms = config.rails_call_timeout_ms;
        settings.settlement_timeout_ms = config.rails_settlement_timeout_ms;
        return rail_engine_services{ids, random, time, currencies, rails, settings};
    }
};

struct request_context {
    const http_request& request;
    query_params query;
    std::vector<std::string> params;
    std::optional<principal> who;
    soci::session* db = nullptr;
    app_services& services;
    // What the route's prepare step returned, if it has one. Borrowed, not copied: the writer may
    // run a command again with its batch, and each run reads the same value (a handler may only
    // set in it what every run would set the same way).
    std::any* prepared = nullptr;

    soci::session& session() const;
    const tenant& owner() const;
    const std::string& param(std::size_t index) const { return params.at(index); }
};

struct dispatch_plan {
    std::optional<http_response> immediate;
    // Run first, on the pool, when set: a response ends the request there; nullopt goes on to job.
    std::function<std::optional<http_response>(soci::session&)> prepare;
    std::function<http_response(soci::session&)> job;  // set when immediate is not
    bool on_ledger_writer = false;                      // run job on the writer, not the pool
};

// The public API, or the admin listener's routes (/metrics, /healthz, /readyz). The public api
// creates services.stats; an admin api is made after it and reports into the same.
enum class api_surface { public_api, admin };

class api {
public:
    explicit api(app_services& services, api_surface surface = api_surface::public_api);
    dispatch_plan plan(std::shared_ptr<const http_request> request) const;
    // Whether the route of this request streams its body to a file (decided from the head alone).
    bool body_to_file(http_method method, std::string_view target) const;
    const router& routes() const { return router_; }
    app_services& services() const { return services_; }

private:
    http_response run_with_database(soci::session& session, const http_request& request,
                                    const route_match& match,
                                    std::optional<principal> who,
                                    const std::optional<basic_credentials>& credentials,
                                    std::any& prepared) const;
    // Runs the route's prepare step; on going on, `who` holds the caller it authenticated, for
    // the writer step to reuse.
    std::optional<http_response> run_prepare(soci::session& session, const http_request& request,
                                             const route_match& match,
                                             std::optional<principal>& who,
                                             const std::optional<basic_credentials>& credentials,
                                             std::any& prepared) const;
    void authenticate(soci::session& session, const route_spec& route,
                      const std::optional<basic_credentials>& credentials,
                      std::optional<principal>& who) const;
    template <typename Run>
    http_response answering_errors(soci::session& session, const http_request& request,
                                   const route_match& match, Run&& run) const;
    http_response no_route(std::string_view path, const route_match& match) const;
    std::optional<principal> cached_principal(const basic_credentials& credentials) const;
    std::shared_ptr<void> claim_in_flight(const std::string& client_id, std::string_view key) const;
    http_response run_handler(soci::session& session, const route_spec& route,
                              request_context& context) const;
    http_response run_idempotent(soci::session& session, const route_spec& route,
                                 request_context& context, const std::string& key) const;

    app_services& services_;
    router router_;
    // Idempotency keys of requests in progress in this process, by clientId and key.
    mutable std::mutex in_flight_mutex_;
    mutable std::set<std::string> in_flight_;
};

// Route registration, one function per resource file.
void register_health_routes(router& routes);
void register_admin_routes(router& routes);  // the health routes and GET /metrics
void register_config_routes(router& routes);
void register_token_routes(router& routes);
void register_customer_routes(router& routes);
void register_account_routes(router& routes);
void register_exchange_rate_routes(router& routes);
void register_quote_routes(router& routes);
void register_transaction_routes(router& routes);
void register_sandbox_routes(router& routes);
void register_webhook_routes(router& routes);
void register_external_account_routes(router& routes);
void register_bank_link_routes(router& routes);
void register_bulk_import_routes(router& routes);
void register_kyc_routes(router& routes);
void register_uma_routes(router& routes);
void register_uma_lookup_routes(router& routes);
void register_transfer_routes(router& routes);
void register_invitation_routes(router& routes);
void register_uma_provider_routes(router& routes);

// Helpers shared by the handlers.
std::string versioned(std::string_view path);  // "/customers" -> "/2025-10-13/customers"
http_response json_response(int status, const boost::json::value& body);
std::string tenant_key(const tenant& owner);

// The list envelope of every paginated endpoint: {data, hasMore, nextCursor (only when hasMore),
// totalCount}, each item rendered by `render`.
template <class Item, class Render>
http_response page_response(const page<Item>& found, Render render) {
    boost::json::array data;
    for (const auto& item : found.items) data.push_back(render(item));
    boost::json::object body{{"data", std::move(data)},
                             {"hasMore", found.has_more},
                             {"totalCount", found.total_count}};
    if (found.has_more) body["nextCursor"] = found.next_cursor;
    return json_response(200, body);
}

}  // namespace corridor
