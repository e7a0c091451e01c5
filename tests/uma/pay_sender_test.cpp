#include "uma/pay_sender.hpp"

#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

#include "rails/rail_sdk/lightning/bolt11.hpp"
#include "uma/ecies.hpp"
#include "uma/hex.hpp"
#include "uma/responder.hpp"
#include "uma/verify.hpp"

using namespace corridor;
using namespace corridor::uma;

namespace {

constexpr char payer_address[] = "$alice@sender.example";
constexpr char payee_address[] = "$bob@receiver.example";
constexpr double eur_multiplier = 1100.5;  // msats per euro cent
constexpr std::int64_t fee_msats = 2000;

// The receiving provider in memory: checks the pay request as a receiver would, then answers a
// signed pay response with a real BOLT #11 invoice, or as told.
struct fake_provider final : http_transport {
    const corridor::clock& time;
    random_source& random;
    private_key signing, encryption;
    public_key sender_key{};
    std::vector<std::string> posted;
    std::optional<std::string> travel_rule_seen;
    std::optional<std::string> last_answer;
    // Lets a test change the answer before it is signed and encoded.
    std::function<void(pay_response&, lightning::invoice_fields&)> tamper;
    std::function<std::optional<http_reply>()> override_reply;
    bool sign_with_other_key = false;
    bool unreachable = false;
    std::optional<std::string> pr_override;

    fake_provider(const corridor::clock& time, random_source& random)
        : time(time),
          random(random),
          signing(generate_private_key(random)),
          encryption(generate_private_key(random)) {}

    result<http_reply, std::string> get(const std::string&) override {
        return std::string("no GET here");
    }

    result<http_reply, std::string> post_json(const std::string& url,
                                              const std::string& body) override {
        posted.push_back(url + " " + body);
        if (unreachable) return std::string("connection refused");
        if (override_reply) {
            if (auto reply = override_reply()) return *reply;
        }
        auto request = parse_pay_request(body);
        REQUIRE(request.ok());
        memory_nonce_store theirs(time, default_nonce_window_s);
        REQUIRE_FALSE(verify_pay_request(request.value(), sender_key, "sender.example", theirs));
        if (const auto& hex = request->compliance->encrypted_travel_rule_info) {
            travel_rule_seen = ecies_decrypt(encryption, *from_hex(*hex));
        }
        // As the SDKs answer: an amount in millisatoshis (no currency) is the invoice, converted
        // less the fee; an amount in the receiving currency is converted plus the fee.
        bool in_msats = request->major_version != 0 && !request->sending_currency;
        std::int64_t delivered =
            in_msats
                ? std::llround(static_cast<double>(request->amount - fee_msats) / eur_multiplier)
                : request->amount;
        pay_response response;
        response.converted =
            converted_amount{delivered, *request->receiving_currency, 2, eur_multiplier, fee_msats};
        lightning::invoice_fields invoice;
        invoice.network = lightning::ln_network::regtest;
        invoice.amount_msat = static_cast<std::uint64_t>(
            in_msats
                ? request->amount
                : std::llround(static_cast<double>(request->amount) * eur_multiplier + fee_msats));
        invoice.timestamp = static_cast<std::uint64_t>(time.now_ms() / 1000);
        invoice.payment_hash.fill(7);
        invoice.payment_secret.fill(9);
        invoice.description = "Pay bob";
        if (tamper) tamper(response, invoice);
        lightning::bytes32 node_key{};
        node_key.fill(3);
        response.pr = pr_override ? *pr_override : lightning::encode_invoice(invoice, node_key).value();
        payee_compliance compliance;
        compliance.signature_nonce = generate_nonce(random);
        compliance.signature_timestamp_s = time.now_ms() / 1000;
        compliance.signature =
            sign_payload(signable_payload(compliance, *request->payer_identifier(), payee_address),
                         sign_with_other_key ? generate_private_key(random) : signing);
        response.compliance = compliance;
        last_answer = boost::json::serialize(to_json(response));
        return http_reply{200, *last_answer};
    }
};

struct pay_world {
    manual_clock time{1700000000LL * 1000};
    seeded_random random{77};
    fake_provider provider{time, random};
    struct no_keys final : pubkey_fetcher {
        result<pubkey_response, uma_error> fetch(std::string_view) override {
            return uma_error{error_kind::counterparty_pubkey_fetch_error, "unused", {}};
        }
    } keys;
    memory_nonce_store nonces{time, default_nonce_window_s};
    sender_identity me{"sender.example", generate_private_key(random), true};
    sender_services services{provider, keys, nonces, time, random};
    receiver_lookup lookup;
    payer_details payer;

    pay_world() {
        provider.sender_key = public_key_of(me.signing);
        lookup.version = current_version;
        lookup.response.callback = "https://receiver.example/payreq/bob";
        lookup.response.uma_version = "1.0";
        lookup.response.compliance =
            lnurlp_compliance{"VERIFIED", "30", "1", 1700000000, true, payee_address, {}};
        lookup.response.currencies =
            std::vector<uma_currency>{{"EUR", "Euro", "E", eur_multiplier, 100, 500000, 2}};
        lookup.response.payer_data = std::vector<counterparty_option>{
            {"identifier", true}, {"compliance", true}, {"name", true}, {"email", false}};
        lookup.receiver_keys.signing_pub_key = to_hex(public_key_of(provider.signing));
        lookup.receiver_keys.encryption_pub_key = to_hex(public_key_of(provider.encryption));
        payer.identifier = payer_address;
        payer.fields["name"] = "Alice Sender";
        payer.travel_rule_info = R"({"name":"Alice Sender"})";
        payer.travel_rule_format = "ivms@101.2023";
    }

    result<requested_invoice, uma_error> pay(std::int64_t amount = 1234) {
        return request_invoice(lookup, payer, invoice_order{"EUR", amount}, me, services);
    }
};

}  // namespace

TEST_CASE("a pay request is signed, carries encrypted payer data, and its invoice is checked",
          "[uma][pay_sender]") {
    pay_world world;
    auto paid = world.pay();
    REQUIRE(paid.ok());
    CHECK(paid->amount_msats == std::llround(1234 * eur_multiplier + fee_msats));
    std::string hash;
    for (int i = 0; i < 32; ++i) hash += "07";
    CHECK(paid->payment_hash == hash);
    CHECK(paid->expires_at_s == 1700000000 + 3600);
    CHECK(paid->invoice.rfind("lnbcrt", 0) == 0);
    REQUIRE(world.provider.posted.size() == 1);
    CHECK(world.provider.posted[0].rfind("https://receiver.example/payreq/bob ", 0) == 0);
    CHECK(world.provider.travel_rule_seen ==
          std::optional<std::string>(R"({"name":"Alice Sender"})"));
    const auto& sent = paid->request;
    CHECK(sent.amount == 1234);
    CHECK(sent.sending_currency == std::optional<std::string>("EUR"));
    CHECK(sent.payer_data.at("identifier").as_string() == payer_address);
    CHECK(sent.payer_data.at("name").as_string() == "Alice Sender");
    CHECK_FALSE(sent.payer_data.contains("email"));
    CHECK(sent.compliance->travel_rule_format == std::optional<std::string>("ivms@101.2023"));
}

TEST_CASE("a pay request the receiver would refuse is not sent", "[uma][pay_sender]") {
    pay_world world;
    SECTION("a mandatory field is missing") {
        world.payer.fields.erase("name");
        CHECK(world.pay().error().kind == error_kind::missing_mandatory_payer_data);
    }
    SECTION("a currency not offered") {
        CHECK(request_invoice(world.lookup, world.payer, invoice_order{"USD", 1000}, world.me,
                              world.services)
                  .error()
                  .kind == error_kind::invalid_currency);
    }
    SECTION("an amount out of range") {
        CHECK(world.pay(99).error().kind == error_kind::amount_out_of_range);
        CHECK(world.pay(500001).error().kind == error_kind::amount_out_of_range);
    }
    CHECK(world.provider.posted.empty());
}

TEST_CASE("answers that are not genuine or not what was asked are refused", "[uma][pay_sender]") {
    pay_world world;
    SECTION("signed by another key") {
        world.provider.sign_with_other_key = true;
        CHECK(world.pay().error().kind == error_kind::invalid_signature);
    }
    SECTION("a replayed answer") {
        REQUIRE(world.pay().ok());
        auto replay = *world.provider.last_answer;
        world.provider.override_reply = [replay]() -> std::optional<http_reply> {
            return http_reply{200, replay};
        };
        // Same nonce again; its converted amount is the first order's, so order the same.
        CHECK(world.pay().error().kind == error_kind::invalid_nonce);
    }
    SECTION("an invoice for more than the conversion says") {
        world.provider.tamper = [](pay_response&, lightning::invoice_fields& invoice) {
            *invoice.amount_msat += 5000;
        };
        CHECK(world.pay().error().kind == error_kind::invalid_payreq_response);
    }
    SECTION("an invoice without an amount") {
        world.provider.tamper = [](pay_response&, lightning::invoice_fields& invoice) {
            invoice.amount_msat.reset();
        };
        CHECK(world.pay().error().kind == error_kind::invalid_payreq_response);
    }
    SECTION("an expired invoice") {
        world.provider.tamper = [](pay_response&, lightning::invoice_fields& invoice) {
            invoice.timestamp -= 7200;
        };
        CHECK(world.pay().error().kind == error_kind::invalid_payreq_response);
    }
    SECTION("another amount or currency delivered") {
        world.provider.tamper = [](pay_response& response, lightning::invoice_fields&) {
            response.converted->amount = 1000;
        };
        CHECK(world.pay().error().kind == error_kind::invalid_payreq_response);
        world.provider.tamper = [](pay_response& response, lightning::invoice_fields&) {
            response.converted->currency_code = "USD";
        };
        CHECK(world.pay().error().kind == error_kind::invalid_payreq_response);
    }
    SECTION("an invoice that does not decode") {
        world.provider.pr_override = "lnbc1garbage";
        CHECK(world.pay().error().kind == error_kind::invalid_payreq_response);
    }
    SECTION("an answer without signed payee data") {
        world.provider.override_reply = []() -> std::optional<http_reply> {
            return http_reply{200, R"({"pr":"lnbc1garbage","routes":[]})"};
        };
        CHECK(world.pay().error().kind == error_kind::invalid_signature);
    }
    SECTION("no answer, an HTTP error, garbage") {
        world.provider.unreachable = true;
        CHECK(world.pay().error().kind == error_kind::payreq_request_failed);
        world.provider.unreachable = false;
        world.provider.override_reply = []() -> std::optional<http_reply> {
            return http_reply{500, "oops"};
        };
        CHECK(world.pay().error().kind == error_kind::payreq_request_failed);
        world.provider.override_reply = []() -> std::optional<http_reply> {
            return http_reply{200, "<html>"};
        };
        CHECK(world.pay().error().kind == error_kind::parse_payreq_response_error);
    }
}

TEST_CASE("a sender-locked pay request names millisatoshis and gets that invoice",
          "[uma][pay_sender]") {
    pay_world world;
    invoice_order order{"EUR", 1'102'000, true};
    auto paid = request_invoice(world.lookup, world.payer, order, world.me, world.services);
    REQUIRE(paid.ok());
    CHECK(paid->amount_msats == 1'102'000);
    CHECK_FALSE(paid->request.sending_currency.has_value());
    CHECK(paid->request.amount == 1'102'000);
    CHECK(paid->response.converted->amount ==
          std::llround((1'102'000.0 - fee_msats) / eur_multiplier));
    // The JSON sent carries the amount as a bare number string: millisatoshis.
    CHECK(world.provider.posted[0].find(R"("amount":"1102000")") != std::string::npos);

    SECTION("an invoice for another amount is refused") {
        world.provider.tamper = [](pay_response&, lightning::invoice_fields& invoice) {
            *invoice.amount_msat += 1;
        };
        CHECK(request_invoice(world.lookup, world.payer, order, world.me, world.services)
                  .error()
                  .kind == error_kind::invalid_payreq_response);
    }
    SECTION("an answer delivering more than the invoice pays for is refused") {
        world.provider.tamper = [](pay_response& response, lightning::invoice_fields&) {
            *response.converted->amount += 5;
        };
        CHECK(request_invoice(world.lookup, world.payer, order, world.me, world.services)
                  .error()
                  .kind == error_kind::invalid_payreq_response);
    }
    SECTION("millisatoshis out of the receiver's range are not sent") {
        invoice_order tiny{"EUR", 50'000, true};  // about 45 cents; the range starts at 100
        CHECK(request_invoice(world.lookup, world.payer, tiny, world.me, world.services)
                  .error()
                  .kind == error_kind::amount_out_of_range);
    }
    SECTION("a v0 receiver cannot be asked in millisatoshis") {
        world.lookup.version = back_compatible_version;
        CHECK(request_invoice(world.lookup, world.payer, order, world.me, world.services)
                  .error()
                  .kind == error_kind::invalid_input);
    }
}

TEST_CASE("a refusal by the receiver's provider carries its status and UMA code",
          "[uma][pay_sender]") {
    pay_world world;
    world.provider.override_reply = []() -> std::optional<http_reply> {
        return http_reply{400, R"({"status":"ERROR","reason":"no","code":"SENDER_NOT_ACCEPTED"})"};
    };
    auto failed = world.pay();
    REQUIRE_FALSE(failed.ok());
    CHECK(failed.error().kind == error_kind::payreq_request_failed);
    CHECK(failed.error().extra.at("counterpartyStatus").as_int64() == 400);
    CHECK(failed.error().extra.at("counterpartyCode").as_string() == "SENDER_NOT_ACCEPTED");
    CHECK(failed.error().reason.find("SENDER_NOT_ACCEPTED") != std::string::npos);
}

TEST_CASE("a v0 receiver is asked in its currency and answers paymentInfo without an amount",
          "[uma][pay_sender]") {
    pay_world world;
    world.lookup.version = back_compatible_version;
    world.provider.tamper = [](pay_response& response, lightning::invoice_fields&) {
        response.major_version = 0;
    };
    auto paid = world.pay(1234);
    INFO((paid.ok() ? std::string() : paid.error().reason));
    REQUIRE(paid.ok());
    CHECK(paid->response.major_version == 0);
    CHECK(paid->response.converted->amount == 1234);
    CHECK(paid->amount_msats == std::llround(1234 * eur_multiplier + fee_msats));
    CHECK(world.provider.posted[0].find(R"("currency":"EUR")") != std::string::npos);
    CHECK(world.provider.last_answer->find("paymentInfo") != std::string::npos);
    // Unsigned, as UMA 0.3 answers were: accepted for what it invoices.
    CHECK(world.provider.last_answer->find("signature") == std::string::npos);
}
