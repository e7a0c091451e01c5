// The UMA endpoints Corridor hosts for its platforms: GET /.well-known/lnurlp/{user},
// GET /.well-known/lnurlpubkey, GET /.well-known/uma-configuration, and the pay-request and
// post-transaction callbacks. Public routes: the platform is found from the addressed host.
#include <any>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "ledger/base/assert.hpp"
#include "server/api/app.hpp"
#include "server/api/uma_node.hpp"
#include "server/http/outbound_get.hpp"
#include "server/uma/uma_receiver.hpp"

namespace corridor {
namespace {

constexpr std::int64_t counterparty_keys_cache_ms = 10 * 60 * 1000;

uma_receiver_services receiver_services(request_context& context) {
    auto& services = context.services;
    uma_receiver_services out{services.time,
                              services.random,
                              services.currencies,
                              *services.rates,
                              *services.uma_keys,
                              services.config.uma_proxy_host,
                              services.config.public_base_url,
                              services.uma_sealing ? &*services.uma_sealing : nullptr};
    out.sandbox_rates = services.sandbox_rates.get();
    out.previous_key_overlap_ms = services.config.uma_previous_key_overlap_seconds * 1000;
    return out;
}

std::string host_of(const request_context& context) {
    return requested_host(context.request.header("x-forwarded-host"),
                          context.request.header("host"));
}

http_response render(const uma_reply& reply) {
    auto response = json_response(reply.status, reply.body);
    // UMA documents are read by wallets in browsers too.
    response.headers.emplace_back("Access-Control-Allow-Origin", "*");
    return response;
}

http_response lnurlp(request_context& context) {
    return render(answer_lnurlp(context.session(), receiver_services(context), host_of(context),
                                context.request.target));
}

http_response lnurlpubkey(request_context& context) {
    return render(answer_pubkeys(context.session(), receiver_services(context), host_of(context)));
}

http_response uma_configuration(request_context& context) {
    return render(
        answer_uma_configuration(context.session(), receiver_services(context), host_of(context)));
}

// The pay-request callback's first step, on a pool session: everything that reads or waits on the
// sending provider (its keys). A refusal answers here and never reaches the ledger writer.
std::any check_pay_request_on_pool(request_context& context, std::optional<std::string_view> body) {
    auto checked = check_pay_request(context.session(), receiver_services(context),
                                     context.param(0), context.request.target, body);
    if (!checked) return render(checked.error());
    return std::move(checked.value());
}

std::any prepare_pay_request_post(request_context& context) {
    return check_pay_request_on_pool(context, context.request.body);
}

std::any prepare_pay_request_get(request_context& context) {
    return check_pay_request_on_pool(context, std::nullopt);
}

// The second step, on the ledger writer: the payment, its invoice and the signed answer.
http_response pay_request(request_context& context) {
    const auto* checked = std::any_cast<checked_pay_request>(context.prepared);
    CORRIDOR_ASSERT(checked != nullptr);
    auto payments = context.services.payments();
    auto services = receiver_services(context);
    services.payments = &payments;
    services.node = &uma_lightning_node(context.services);
    return render(answer_checked_pay_request(context.session(), services, *checked));
}

http_response post_transaction(request_context& context) {
    return render(answer_post_transaction(context.request.body));
}

}  // namespace

const lightning_node& uma_lightning_node(app_services& services) {
    CORRIDOR_ASSERT(services.uma_node != nullptr);
    return *services.uma_node;
}

void app_services::init_uma() {
    // The process's key-encryption key, installed by serve before the services start
    // (server/process/key_encryption.hpp); none in tests that never seal.
    if (const auto* kek = installed_key_encryption_key()) uma_sealing = *kek;
    uma_transport = std::make_unique<outbound_get>(outbound_get_limits{
        config.outbound_allow_private_addresses, config.outbound_timeout_ms, 64 * 1024});
    uma_keys = std::make_unique<uma::cached_pubkey_fetcher>(*uma_transport, time,
                                                            counterparty_keys_cache_ms);
    // Per app_services, not per process: each instance has its own settings. A bad node key
    // stops start-up.
    auto spark = config.plugins_settings.find("spark");
    uma_node = std::make_shared<const lightning_node>(lightning_node_from_settings(
        spark == config.plugins_settings.end() ? std::string() : spark->second, random));
}

void register_uma_routes(router& routes) {
    routes.add({.method = http_method::get,
                .pattern = "/.well-known/lnurlp/{user}",
                .who = access::public_route,
                .handler = lnurlp});
    routes.add({.method = http_method::get,
                .pattern = "/.well-known/lnurlpubkey",
                .who = access::public_route,
                .handler = lnurlpubkey});
    routes.add({.method = http_method::get,
                .pattern = "/.well-known/uma-configuration",
                .who = access::public_route,
                .handler = uma_configuration});
    routes.add({.method = http_method::post,
                .pattern = "/uma/payreq/{customerId}",
                .who = access::public_route,
                .on_ledger_writer = true,
                .handler = pay_request,
                .prepare = prepare_pay_request_post});
    routes.add({.method = http_method::get,
                .pattern = "/uma/payreq/{customerId}",
                .who = access::public_route,
                .on_ledger_writer = true,
                .handler = pay_request,
                .prepare = prepare_pay_request_get});
    routes.add({.method = http_method::post,
                .pattern = "/uma/post-transaction",
                .who = access::public_route,
                .handler = post_transaction});
}

}  // namespace corridor
