#include "server/uma/uma_receiver.hpp"

#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>

#include "ledger/book/rates.hpp"
#include "ledger/payments/approvals.hpp"
#include "ledger/payments/uma_receipts.hpp"
#include "rails/rail_sdk/formats/text.hpp"
#include "rails/rail_sdk/lightning/bolt11.hpp"
#include "tests/support/store_fixture.hpp"
#include "uma/ecies.hpp"
#include "uma/hex.hpp"
#include "uma/lnurlp.hpp"
#include "uma/pay_request.hpp"
#include "uma/pay_response.hpp"
#include "uma/pubkey_response.hpp"
#include "uma/signing.hpp"
#include "uma/sql_stores.hpp"
#include "uma/verify.hpp"

using namespace corridor;

namespace {

constexpr char proxy_host[] = "uma.corridor.localhost";

// One USD at 0.00001 BTC.
class fixed_rates final : public rate_source {
public:
    std::optional<corridor_terms> terms(const currency& sending,
                                        const currency& receiving) const override {
        corridor_terms out;
        if (sending.code == "USD" && receiving.code == "BTC") {
            out.mid_rate = *rational::parse_decimal("0.00001");
        } else if (sending.code == "BTC" && receiving.code == "USD") {
            out.mid_rate = *rational::parse_decimal("100000");
        } else {
            return std::nullopt;
        }
        return out;
    }
};

class fake_keys final : public uma::pubkey_fetcher {
public:
    std::optional<uma::public_key> key;
    int calls = 0;
    result<uma::pubkey_response, uma::uma_error> fetch(std::string_view) override {
        ++calls;
        if (!key)
            return uma::uma_error{uma::error_kind::counterparty_pubkey_fetch_error, "down", {}};
        uma::pubkey_response out;
        out.signing_pub_key = uma::to_hex(*key);
        return out;
    }
};

struct receiver_world : testing::store_fixture {
    currency_registry currencies = currency_registry::from_json(
        R"({"currencies":[{"code":"USD","name":"US Dollar","symbol":"$","decimals":2},)"
        R"({"code":"BTC","name":"Bitcoin","symbol":"B","decimals":8}]})");
    fixed_rates rates;
    fake_keys keys;
    uma_receiver_services services{
        clock, random, currencies, rates, keys, proxy_host, "https://corridor.example"};
    funding_directory funding = funding_directory::from_json("{}");
    payment_services payments{ids, random, clock, currencies, rates, funding};
    lightning_node node = lightning_node_from_settings(
        R"({"network":"regtest","node_private_key_hex":")" + std::string(64, '1') + R"("})",
        random);
    std::string platform_id = make_platform("vasp.example:8443");

    receiver_world() {
        services.payments = &payments;
        services.node = &node;
    }

    platform_config config(environment env) {
        return *load_platform_config(session(), tenant{platform_id, env});
    }

    void add_customer(environment env, const std::string& address) {
        new_customer request;
        request.customer_type = "INDIVIDUAL";
        request.kyc_status = "APPROVED";
        request.fields.uma_address = address;
        auto created = create_customer(session(), customers(), tenant{platform_id, env},
                                       "vasp.example:8443", request);
        REQUIRE(created.ok());
    }

    std::string signed_target(const uma::private_key& sender, const std::string& user,
                              const std::string& nonce) {
        uma::lnurlp_request request;
        request.receiver_address = user + "@vasp.example:8443";
        request.vasp_domain = "sender.example";
        request.nonce = nonce;
        request.timestamp_s = clock.now_ms() / 1000;
        request.uma_version = "1.0";
        request.is_subject_to_travel_rule = true;
        request.signature = uma::sign_payload(uma::signable_payload(request), sender);
        auto url = uma::lnurlp_request_url(request);
        return url.substr(url.find("/.well-known"));
    }
};

}  // namespace

TEST_CASE("the platform is found by its UMA domain or its proxy subdomain",
          "[uma][receiver][store]") {
    receiver_world world;
    auto by_domain = uma_platforms_for_host(world.session(), "VASP.example:8443", proxy_host);
    REQUIRE(by_domain.size() == 2);
    CHECK(by_domain[0].owner.env == environment::production);
    CHECK(by_domain[1].owner.env == environment::sandbox);
    CHECK(uma_platforms_for_host(world.session(), "vasp.example", proxy_host).empty());
    CHECK(uma_platforms_for_host(world.session(), "vasp.example:8444", proxy_host).empty());
    CHECK(uma_platforms_for_host(world.session(), "", proxy_host).empty());

    auto sandbox = world.config(environment::sandbox);
    for (std::string host : {sandbox.proxy_uma_subdomain + ".uma.corridor.localhost",
                             sandbox.proxy_uma_subdomain + ".UMA.corridor.localhost:8080"}) {
        INFO(host);
        auto found = uma_platforms_for_host(world.session(), host, proxy_host);
        REQUIRE(found.size() == 1);
        CHECK(found[0].owner.env == environment::sandbox);
    }
    CHECK(uma_platforms_for_host(world.session(),
                                 "x." + sandbox.proxy_uma_subdomain + ".uma.corridor.localhost",
                                 proxy_host)
              .empty());
    CHECK(uma_platforms_for_host(world.session(), "nobody.uma.corridor.localhost", proxy_host)
              .empty());
}

TEST_CASE("the addressed host is X-Forwarded-Host's first value, else Host", "[uma][receiver]") {
    CHECK(requested_host(std::string_view("Pay.Example:443, proxy.internal"),
                         std::string_view("x")) == "pay.example:443");
    CHECK(requested_host(std::nullopt, std::string_view("Vasp.Example:8443")) ==
          "vasp.example:8443");
    CHECK(requested_host(std::string_view(""), std::string_view("h")) == "h");
    CHECK(requested_host(std::nullopt, std::nullopt).empty());
}

TEST_CASE("an UMA lookup is verified, answered and signed on the platform's domain",
          "[uma][receiver][store]") {
    receiver_world world;
    world.add_customer(environment::sandbox, "$bob@vasp.example:8443");
    auto sender = uma::generate_private_key(world.random);
    world.keys.key = uma::public_key_of(sender);

    // Reached through the sandbox proxy subdomain; the signed address is still the UMA domain.
    auto proxy = world.config(environment::sandbox).proxy_uma_subdomain + "." + proxy_host;
    auto reply = answer_lnurlp(world.session(), world.services, proxy,
                               world.signed_target(sender, "$bob", "1"));
    INFO(boost::json::serialize(reply.body));
    REQUIRE(reply.status == 200);
    auto response = uma::parse_lnurlp_response(boost::json::serialize(reply.body));
    REQUIRE(response.ok());
    CHECK(response->compliance->receiver_identifier == "$bob@vasp.example:8443");
    CHECK(response->compliance->kyc_status == "VERIFIED");
    REQUIRE(response->currencies->size() == 1);
    // 0.00001 BTC per dollar = 1000 sat = 1,000,000 msat per dollar = 10,000 msat per cent.
    CHECK(response->currencies->front().multiplier == 10000.0);
    CHECK(response->min_sendable_msats == 10000);
    CHECK(response->max_sendable_msats == 10000000000);
    CHECK(response->callback.rfind("https://corridor.example/uma/payreq/Customer:", 0) == 0);

    auto keys = answer_pubkeys(world.session(), world.services, proxy);
    REQUIRE(keys.status == 200);
    auto document = uma::parse_pubkey_response(boost::json::serialize(keys.body));
    REQUIRE(document.ok());
    auto signing = uma::signing_key(document.value());
    REQUIRE(signing.ok());
    CHECK(uma::verify_payload(uma::signable_payload(*response->compliance),
                              response->compliance->signature, signing.value()));

    SECTION("a replay is refused") {
        auto again = answer_lnurlp(world.session(), world.services, proxy,
                                   world.signed_target(sender, "$bob", "1"));
        CHECK(again.status == 400);
        CHECK(again.body.at("code") == "INVALID_NONCE");
    }
    SECTION("another key's signature is refused") {
        auto other = uma::generate_private_key(world.random);
        auto refused = answer_lnurlp(world.session(), world.services, proxy,
                                     world.signed_target(other, "$bob", "2"));
        CHECK(refused.status == 401);
        CHECK(refused.body.at("code") == "INVALID_SIGNATURE");
    }
    SECTION("unreachable sender keys are 424") {
        world.keys.key.reset();
        auto refused = answer_lnurlp(world.session(), world.services, proxy,
                                     world.signed_target(sender, "$bob", "3"));
        CHECK(refused.status == 424);
        CHECK(refused.body.at("code") == "COUNTERPARTY_PUBKEY_FETCH_ERROR");
    }
    SECTION("unknown users and hosts are 404 in the UMA error shape") {
        auto missing = answer_lnurlp(world.session(), world.services, "vasp.example:8443",
                                     world.signed_target(sender, "$alice", "4"));
        CHECK(missing.status == 404);
        CHECK(missing.body.at("status") == "ERROR");
        CHECK(missing.body.at("code") == "USER_NOT_FOUND");
        CHECK(answer_lnurlp(world.session(), world.services, "other.example",
                            "/.well-known/lnurlp/bob")
                  .status == 404);
        CHECK(answer_pubkeys(world.session(), world.services, "other.example").status == 404);
        CHECK(answer_uma_configuration(world.session(), world.services, "other.example").status ==
              404);
        auto configuration =
            answer_uma_configuration(world.session(), world.services, "vasp.example:8443");
        CHECK(configuration.status == 200);
        CHECK(configuration.body.at("name") == "Acme");
    }
    SECTION("an unsupported UMA version is 412 naming the versions we support") {
        auto target = world.signed_target(sender, "$bob", "7");
        target.replace(target.find("umaVersion=1.0"), 14, "umaVersion=2.0");
        auto calls = world.keys.calls;
        auto refused = answer_lnurlp(world.session(), world.services, proxy, target);
        CHECK(refused.status == 412);
        CHECK(refused.body.at("code") == "UNSUPPORTED_UMA_VERSION");
        CHECK(boost::json::serialize(refused.body.at("supportedMajorVersions")) == "[1,0]");
        CHECK(world.keys.calls == calls);
    }
    SECTION("a plain LUD-16 lookup needs no signature") {
        auto calls = world.keys.calls;
        auto plain =
            answer_lnurlp(world.session(), world.services, proxy, "/.well-known/lnurlp/bob");
        CHECK(plain.status == 200);
        CHECK_FALSE(plain.body.contains("compliance"));
        CHECK(world.keys.calls == calls);
    }
    SECTION("on the domain both environments share, each address resolves to its holder") {
        // One key set per domain: the production environment's, which both sign with, published
        // at the domain and at the sandbox's proxy subdomain alike.
        auto domain_keys = answer_pubkeys(world.session(), world.services, "vasp.example:8443");
        CHECK(domain_keys.body.at("signingPubKey") == keys.body.at("signingPubKey"));
        uma::sql_key_store store(world.session(), world.clock, world.random, nullptr);
        auto production_keys =
            store.keys_for(tenant{world.platform_id, environment::production}, "vasp.example:8443");
        CHECK(boost::json::serialize(domain_keys.body) ==
              boost::json::serialize(uma::to_json(uma::public_keys_of(production_keys))));
        // The sandbox customer is found at the domain, with the sandbox's terms.
        auto found = answer_lnurlp(world.session(), world.services, "vasp.example:8443",
                                   world.signed_target(sender, "$bob", "5"));
        REQUIRE(found.status == 200);
        auto sandbox_response =
            uma::parse_lnurlp_response(boost::json::serialize(found.body)).value();
        CHECK(sandbox_response.callback == response->callback);
        CHECK(uma::verify_payload(uma::signable_payload(*sandbox_response.compliance),
                                  sandbox_response.compliance->signature, signing.value()));
        // A production customer of the domain is production's, with production's terms.
        tenant production{world.platform_id, environment::production};
        config_patch narrow;
        narrow.supported_currencies =
            std::vector<supported_currency>{{"USD", 1, 5000, {"OUTGOING", "INCOMING"}, {}}};
        REQUIRE(
            update_platform_config(world.session(), world.platforms(), production, narrow).ok());
        world.add_customer(environment::production, "$carol@vasp.example:8443");
        auto live = answer_lnurlp(world.session(), world.services, "vasp.example:8443",
                                  world.signed_target(sender, "$carol", "6"));
        REQUIRE(live.status == 200);
        auto live_response = uma::parse_lnurlp_response(boost::json::serialize(live.body)).value();
        CHECK(live_response.callback != response->callback);
        CHECK(live_response.max_sendable_msats == 50000000);
        CHECK(uma::verify_payload(uma::signable_payload(*live_response.compliance),
                                  live_response.compliance->signature, signing.value()));
        // Through the sandbox's proxy subdomain, only the sandbox answers.
        auto not_sandbox = answer_lnurlp(world.session(), world.services, proxy,
                                         world.signed_target(sender, "$carol", "8"));
        CHECK(not_sandbox.status == 404);
    }
}

namespace {

struct payer {
    uma::private_key key;
    std::string nonce;
    std::optional<std::string> name = "Alice";
    std::optional<uma::public_key> travel_rule_to;
    std::string amount = "1000.USD";
    int major_version = 1;
};

std::string pay_request_json(const payer& who, const corridor::clock& time, random_source& random) {
    uma::pay_request request;
    request.major_version = who.major_version;
    auto parsed_amount = uma::parse_pay_request(R"({"amount":")" + who.amount + R"("})").value();
    request.amount = parsed_amount.amount;
    request.sending_currency = parsed_amount.sending_currency;
    request.receiving_currency = "USD";
    request.payer_data["identifier"] = "$alice@sender.example";
    if (who.name) request.payer_data["name"] = *who.name;
    uma::payer_compliance compliance;
    compliance.kyc_status = "VERIFIED";
    compliance.signature_nonce = who.nonce;
    compliance.signature_timestamp_s = time.now_ms() / 1000;
    if (who.travel_rule_to) {
        compliance.encrypted_travel_rule_info =
            uma::to_hex(uma::ecies_encrypt(*who.travel_rule_to, R"({"name":"Alice"})", random));
    }
    request.compliance = compliance;
    request.compliance->signature = uma::sign_payload(*uma::signable_payload(request), who.key);
    return boost::json::serialize(uma::to_json(request));
}

long long invoice_count(soci::session& session) {
    long long count = 0;
    session << "SELECT COUNT(*) FROM uma_invoices", soci::into(count);
    return count;
}

}  // namespace

TEST_CASE("a sandbox receipt's invoice never ends in a failure pattern", "[uma][receiver]") {
    // A bech32 checksum ends in 002-005 about once in 8,192 invoices, and a sandbox payer fails
    // such an invoice as its pattern says: 40,000 draws would meet one 99 times in 100.
    receiver_world world;
    int patterned = 0;
    for (int i = 0; i < 40'000; ++i) {
        auto invoice = make_receipt_invoice(world.payments, world.node, 1000, "Pay $bob", true);
        REQUIRE(invoice.ok());
        if (corridor::formats::sandbox_failure_pattern(invoice->first) != 0) ++patterned;
    }
    CHECK(patterned == 0);
}

TEST_CASE("the pay-request callback checks what the receiver can, then answers an invoice",
          "[uma][receiver][store]") {
    receiver_world world;
    tenant production{world.platform_id, environment::production};
    config_patch patch;
    patch.supported_currencies = std::vector<supported_currency>{
        {"USD", 1, 1000000, {"OUTGOING", "INCOMING"}, {{"FULL_NAME", true}}}};
    REQUIRE(update_platform_config(world.session(), world.platforms(), production, patch).ok());
    world.add_customer(environment::production, "$bob@vasp.example:8443");
    std::string id = world.config(environment::production).uma_domain;  // placeholder
    {
        customer_filter filter;
        filter.uma_address = "$bob@vasp.example:8443";
        id = list_customers(world.session(), production, filter, {}).items.at(0).id;
    }
    auto sender = uma::generate_private_key(world.random);
    world.keys.key = uma::public_key_of(sender);
    auto post = [&](const std::string& body, std::string_view customer = {}) {
        return answer_pay_request(world.session(), world.services, customer.empty() ? id : customer,
                                  "/uma/payreq/x", std::string_view(body));
    };
    auto code = [](const uma_reply& reply) {
        return std::string(reply.body.at("code").as_string());
    };

    auto accepted = post(pay_request_json({sender, "1"}, world.clock, world.random));
    INFO(boost::json::serialize(accepted.body));
    REQUIRE(accepted.status == 200);
    auto response = uma::parse_pay_response(boost::json::serialize(accepted.body));
    REQUIRE(response.ok());
    {
        // Signed with the platform's signing key over payer|payee|nonce|timestamp.
        auto ours = uma::signing_key(
            uma::parse_pubkey_response(
                boost::json::serialize(
                    answer_pubkeys(world.session(), world.services, "vasp.example:8443").body))
                .value());
        uma::sql_nonce_store nonces(world.session(), world.clock, uma::default_nonce_window_s);
        CHECK_FALSE(uma::verify_pay_response(response.value(), "$alice@sender.example",
                                             "$bob@vasp.example:8443", ours.value(), "test",
                                             nonces));
        CHECK(uma::verify_pay_response(response.value(), "$eve@sender.example",
                                       "$bob@vasp.example:8443", ours.value(), "test2", nonces));
    }
    // 1000 cents at 100000 USD per BTC: 1000000 sats, no fees configured.
    REQUIRE(response->converted.has_value());
    CHECK(response->converted->amount == 1000);
    CHECK(response->converted->currency_code == "USD");
    CHECK(response->converted->fee_msats == 0);
    CHECK(response->converted->multiplier == Approx(10000.0));
    auto invoice = lightning::decode_invoice(response->pr);
    REQUIRE(invoice.ok());
    CHECK(invoice.value().fields.amount_msat == 10000000ull);
    CHECK(invoice.value().fields.network == lightning::ln_network::regtest);
    CHECK(invoice.value().payee == lightning::node_public_key(world.node.private_key).value());
    std::string hash = uma::to_hex(invoice.value().fields.payment_hash);
    auto stored = find_uma_invoice(world.session(), production, hash);
    REQUIRE(stored.has_value());
    CHECK(stored->state == "OPEN");
    CHECK(stored->amount_msats == 10000000);
    auto transaction = find_transaction(world.session(), production, stored->transaction_id);
    REQUIRE(transaction.has_value());
    CHECK(transaction->type == "INCOMING");
    CHECK(transaction->status == "PENDING");
    CHECK(transaction->received_amount == 1000);
    CHECK(transaction->customer_id == id);
    auto approval = find_incoming_approval(world.session(), production, transaction->id);
    REQUIRE(approval.has_value());
    CHECK(approval->state == "AWAITING_WEBHOOK");
    CHECK(approval->sender_uma_address == "$alice@sender.example");

    SECTION("a v0 pay request gets the v0 shape") {
        payer old{sender, "9"};
        old.amount = "1000.USD";
        old.major_version = 0;
        auto answered = post(pay_request_json(old, world.clock, world.random));
        INFO(boost::json::serialize(answered.body));
        REQUIRE(answered.status == 200);
        CHECK(answered.body.contains("paymentInfo"));
        CHECK(answered.body.contains("compliance"));
        CHECK_FALSE(answered.body.contains("converted"));
        CHECK(answered.body.at("paymentInfo").at("currencyCode").as_string() == "USD");
        CHECK(answered.body.at("paymentInfo").at("exchangeFeesMillisatoshi").as_int64() == 0);
        CHECK(answered.body.at("compliance").as_object().contains("utxos"));
    }
    SECTION("a replay is refused") {
        auto again = post(pay_request_json({sender, "1"}, world.clock, world.random));
        CHECK(code(again) == "INVALID_NONCE");
    }
    SECTION("a timestamp outside the window, past or future, is refused and writes nothing") {
        constexpr std::int64_t beyond_ms = (uma::default_nonce_window_s + 60) * 1000;
        auto invoices = invoice_count(world.session());
        auto old = pay_request_json({sender, "10"}, world.clock, world.random);
        world.clock.advance_ms(beyond_ms);
        auto stale = post(old);
        CHECK(stale.status == 400);
        CHECK(code(stale) == "INVALID_NONCE");
        auto early = pay_request_json({sender, "11"}, world.clock, world.random);
        world.clock.advance_ms(-2 * beyond_ms);
        CHECK(code(post(early)) == "INVALID_NONCE");
        CHECK(invoice_count(world.session()) == invoices);
    }
    SECTION("the first step verifies and spends the nonce; the second writes and asks no one") {
        auto body = pay_request_json({sender, "12"}, world.clock, world.random);
        auto invoices = invoice_count(world.session());
        auto checked = check_pay_request(world.session(), world.services, id, "/uma/payreq/x",
                                         std::string_view(body));
        REQUIRE(checked.ok());
        CHECK(checked->signing.has_value());
        CHECK(checked->incoming.receiving_amount == 1000);
        CHECK(checked->incoming.sender_uma_address == "$alice@sender.example");
        CHECK(invoice_count(world.session()) == invoices);
        // A second copy is a replay already: the nonce was recorded by the first step.
        auto copy = check_pay_request(world.session(), world.services, id, "/uma/payreq/x",
                                      std::string_view(body));
        REQUIRE_FALSE(copy.ok());
        CHECK(copy.error().body.at("code") == "INVALID_NONCE");
        auto fetched = world.keys.calls;
        auto answered =
            answer_checked_pay_request(world.session(), world.services, checked.value());
        CHECK(answered.status == 200);
        CHECK(answered.body.contains("pr"));
        CHECK(world.keys.calls == fetched);
        CHECK(invoice_count(world.session()) == invoices + 1);
    }
    SECTION("another key's signature is refused") {
        auto other = uma::generate_private_key(world.random);
        auto refused = post(pay_request_json({other, "2"}, world.clock, world.random));
        CHECK(refused.status == 401);
        CHECK(code(refused) == "INVALID_SIGNATURE");
        // The forgery spent no nonce: the sender's own request with it goes through.
        CHECK(post(pay_request_json({sender, "2"}, world.clock, world.random)).status == 200);
    }
    SECTION("mandatory payer data must be there") {
        payer nameless{sender, "3"};
        nameless.name.reset();
        auto refused = post(pay_request_json(nameless, world.clock, world.random));
        CHECK(refused.status == 400);
        CHECK(code(refused) == "MISSING_MANDATORY_PAYER_DATA");
        CHECK(std::string(refused.body.at("reason").as_string()).find("payerData.name") !=
              std::string::npos);
    }
    SECTION("travel-rule data must decrypt with our encryption key") {
        auto ours = uma::parse_pubkey_response(boost::json::serialize(
            answer_pubkeys(world.session(), world.services, "vasp.example:8443").body));
        payer good{sender, "4"};
        good.travel_rule_to = uma::encryption_key(ours.value()).value();
        CHECK(post(pay_request_json(good, world.clock, world.random)).status == 200);
        payer bad{sender, "5"};
        bad.travel_rule_to = uma::public_key_of(uma::generate_private_key(world.random));
        auto refused = post(pay_request_json(bad, world.clock, world.random));
        CHECK(refused.status == 400);
        CHECK(code(refused) == "INVALID_INPUT");
        payer retried{sender, "5"};
        retried.travel_rule_to = good.travel_rule_to;
        CHECK(post(pay_request_json(retried, world.clock, world.random)).status == 200);
    }
    SECTION("amounts outside the offered range are refused") {
        payer big{sender, "6"};
        big.amount = "1000001.USD";
        CHECK(code(post(pay_request_json(big, world.clock, world.random))) ==
              "AMOUNT_OUT_OF_RANGE");
        payer tiny{sender, "7"};
        tiny.amount = "9999";  // millisatoshis, below one cent's worth
        CHECK(code(post(pay_request_json(tiny, world.clock, world.random))) ==
              "AMOUNT_OUT_OF_RANGE");
        payer other_currency{sender, "8"};
        other_currency.amount = "5.EUR";
        CHECK(code(post(pay_request_json(other_currency, world.clock, world.random))) ==
              "INVALID_CURRENCY");
    }
    SECTION("bad bodies, unknown receivers and currencies") {
        CHECK(code(post("{}")) == "PARSE_PAYREQ_REQUEST_ERROR");
        CHECK(code(post(R"({"amount":"20000"})", "Customer:nobody")) == "USER_NOT_FOUND");
        CHECK(code(post(R"({"amount":"20000","convert":"EUR"})")) == "INVALID_CURRENCY");
    }
    SECTION("the LNURL GET form") {
        auto get = [&](const std::string& target) {
            return answer_pay_request(world.session(), world.services, id, target, std::nullopt);
        };
        auto plain = get("/uma/payreq/x?amount=20000");
        CHECK(plain.status == 200);
        CHECK(plain.body.contains("pr"));
        CHECK_FALSE(plain.body.contains("payeeData"));
        CHECK(code(get("/uma/payreq/x?amount=5000")) == "AMOUNT_OUT_OF_RANGE");
        CHECK(code(get("/uma/payreq/x")) == "PARSE_PAYREQ_REQUEST_ERROR");
        CHECK(code(get("/uma/payreq/x?amount=20000&payerdata=%7Bnot")) ==
              "PARSE_PAYREQ_REQUEST_ERROR");
        CHECK(get("/uma/payreq/x?amount=20000&payerdata=%7B%22name%22%3A%22A%22%7D").status == 200);
    }
    CHECK(answer_post_transaction("{").status == 400);
}
