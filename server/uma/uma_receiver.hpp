#pragma once
// Corridor as the receiving UMA provider of every platform it hosts: the answers to
// /.well-known/lnurlp/{user}, /.well-known/lnurlpubkey and /.well-known/uma-configuration. The
// platform is found from the host the request was addressed to (X-Forwarded-Host, else Host): its
// umaDomain, or <proxyUmaSubdomain>.<uma.proxy_host>. No HTTP types here; the handlers render.
#include <soci/soci.h>

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/base/clock.hpp"
#include "ledger/book/currencies.hpp"
#include "ledger/payments/payments.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/base/random.hpp"
#include "ledger/book/rates.hpp"
#include "ledger/base/result.hpp"
#include "server/uma/uma_receipt.hpp"
#include "uma/key_sealing.hpp"
#include "uma/pay_request.hpp"
#include "uma/pubkey_fetcher.hpp"
#include "uma/signing.hpp"

namespace corridor {

struct uma_reply {
    int status = 200;
    boost::json::object body;
};

struct uma_receiver_services {
    const clock& time;
    random_source& random;
    const currency_registry& currencies;
    const rate_source& rates;
    uma::pubkey_fetcher& counterparty_keys;
    std::string proxy_host;                     // uma.proxy_host
    std::string public_base_url;                // where pay-request callbacks are reached
    const uma::sealing_key* sealing = nullptr;  // UMA private keys at rest
    // uma.previous_key_overlap_seconds: how long after a key switch the replaced encryption key
    // still decrypts travel-rule data.
    std::int64_t previous_key_overlap_ms = 0;
    // For the pay-request callback, which creates the incoming payment (on the ledger writer).
    const payment_services* payments = nullptr;
    const lightning_node* node = nullptr;
    const rate_source* sandbox_rates = nullptr;  // null: the sandbox prices with `rates`

    const rate_source& rates_for(environment env) const {
        return env == environment::sandbox && sandbox_rates != nullptr ? *sandbox_rates : rates;
    }
};

// The platform environments that serve `host`, production first. A proxy subdomain names one
// environment; a UMA domain may be shared by both environments of its platform, and then each
// address is answered by the environment that holds it (/.well-known/lnurlpubkey publishes the
// keys both sign with there, see uma_key_owner).
std::vector<platform_config> uma_platforms_for_host(soci::session& session, std::string_view host,
                                                    std::string_view proxy_host);

uma_reply answer_lnurlp(soci::session& session, const uma_receiver_services& services,
                        std::string_view host, std::string_view target);
uma_reply answer_pubkeys(soci::session& session, const uma_receiver_services& services,
                         std::string_view host);
uma_reply answer_uma_configuration(soci::session& session, const uma_receiver_services& services,
                                   std::string_view host);
// The pay-request callback (POST JSON body, or the LNURL GET query when body is empty), in two
// steps so that nothing the ledger writer runs waits on another server.
//
// check_pay_request reads and verifies, outside the writer: the receiver, the currency, the amount
// range, and for UMA the payer's mandatory data, its provider's signature (keys fetched from the
// payer's domain, cached) and nonce, and the travel-rule data's decryption. The nonce is recorded
// last, by one insert that only one copy of a request can make: a refused request (a forgery)
// spends none, and a replay fails even when it races the original. A request the writer then
// refuses has spent its nonce (senders sign each attempt afresh). An error is the UMA answer.
struct checked_pay_request {
    uma::pay_request request;
    incoming_uma_request incoming;
    std::optional<uma::private_key> signing;  // the platform's UMA signing key, for UMA requests
};
result<checked_pay_request, uma_reply> check_pay_request(soci::session& session,
                                                         const uma_receiver_services& services,
                                                         std::string_view customer_id,
                                                         std::string_view target,
                                                         std::optional<std::string_view> body);
// On the ledger writer: the INCOMING payment, created PENDING the platform's approval (the answer
// does not wait for it), and the signed pay response carrying its BOLT #11 invoice
// (uma_receipt.hpp). No network, no key store.
uma_reply answer_checked_pay_request(soci::session& session, const uma_receiver_services& services,
                                     const checked_pay_request& checked);
// Both steps on one session (tests and tools).
uma_reply answer_pay_request(soci::session& session, const uma_receiver_services& services,
                             std::string_view customer_id, std::string_view target,
                             std::optional<std::string_view> body);
uma_reply answer_post_transaction(std::string_view body);

// The UMA-domain host named by a request: X-Forwarded-Host's first value, else Host.
std::string requested_host(std::optional<std::string_view> forwarded_host,
                           std::optional<std::string_view> host);

}  // namespace corridor
