#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>

#include "uma/certificate.hpp"
#include "uma/ecies.hpp"
#include "uma/pay_request.hpp"
#include "uma/pay_response.hpp"
#include "uma/post_transaction.hpp"
#include "uma/pubkey_response.hpp"
#include "uma/verify.hpp"

using namespace corridor;
using namespace corridor::uma;

namespace {

const char* v1_request =
    R"({"convert":"USD","amount":"1000.USD","payerData":{"identifier":"$alice@vasp1.example",)"
    R"("name":"Alice","compliance":{"utxos":[],"kycStatus":"VERIFIED","signature":"ab",)"
    R"("signatureNonce":"12","signatureTimestamp":1700000000,"travelRuleFormat":"ivms@101.2023"}},)"
    R"("payeeData":{"identifier":{"mandatory":true}},"comment":"hi","extra":1})";

error_kind request_error(std::string_view text) {
    auto outcome = parse_pay_request(text);
    REQUIRE_FALSE(outcome.ok());
    return outcome.error().kind;
}

}  // namespace

TEST_CASE("pay requests parse in v1 and v0 shapes", "[uma][payreq]") {
    auto v1 = parse_pay_request(v1_request);
    REQUIRE(v1.ok());
    CHECK(v1->major_version == 1);
    CHECK(v1->amount == 1000);
    CHECK(v1->sending_currency == "USD");
    CHECK(v1->receiving_currency == "USD");
    CHECK(v1->is_uma());
    CHECK(v1->payer_identifier() == "$alice@vasp1.example");
    CHECK(v1->compliance->travel_rule_format == "ivms@101.2023");
    CHECK(signable_payload(v1.value()) == "$alice@vasp1.example|12|1700000000");
    CHECK(v1->requested_payee_data->front().key == "identifier");

    auto msats = parse_pay_request(R"({"convert":"EUR","amount":"5000"})");
    REQUIRE(msats.ok());
    CHECK(msats->amount == 5000);
    CHECK_FALSE(msats->sending_currency.has_value());
    CHECK_FALSE(msats->is_uma());

    auto number = parse_pay_request(R"({"amount":5000})");
    REQUIRE(number.ok());
    CHECK(number->amount == 5000);

    auto v0 =
        parse_pay_request(R"({"currency":"USD","amount":250,"payerData":{"identifier":"$a@b"}})");
    REQUIRE(v0.ok());
    CHECK(v0->major_version == 0);
    CHECK(v0->receiving_currency == "USD");
    CHECK(boost::json::serialize(to_json(v0.value())) ==
          R"({"amount":250,"currency":"USD","payerData":{"identifier":"$a@b"}})");
}

TEST_CASE("a v1 pay request serialises in the SDK's member order", "[uma][payreq]") {
    auto parsed = parse_pay_request(v1_request).value();
    auto text = boost::json::serialize(to_json(parsed));
    CHECK(text.rfind(R"({"convert":"USD","amount":"1000.USD","payerData":{"identifier":)", 0) == 0);
    auto again = parse_pay_request(text);
    REQUIRE(again.ok());
    CHECK(signable_payload(again.value()) == signable_payload(parsed));
}

TEST_CASE("bad pay requests are PARSE_PAYREQ_REQUEST_ERROR", "[uma][payreq]") {
    for (
        std::string_view text :
        {R"({})", R"({"amount":"1.2.USD"})", R"({"amount":"abc"})", R"({"amount":"-5"})",
         R"({"amount":"5.U$D"})", R"({"amount":true})", R"({"amount":"5","convert":7})",
         R"({"amount":"5","invoiceUUID":"nope"})", R"({"amount":"5","payerData":[]})",
         R"({"amount":"5","payerData":{"compliance":{"kycStatus":"VERIFIED"}}})",
         R"({"amount":"5","payerData":{"compliance":{"kycStatus":"SO-SO","signature":"a","signatureNonce":"1","signatureTimestamp":1}}})",
         R"({"amount":"5","payeeData":{"name":"yes"}})", R"({"currency":"USD","amount":"5"})", "[",
         "5"}) {
        INFO(text);
        CHECK(request_error(text) == error_kind::parse_payreq_request_error);
    }
}

TEST_CASE("a signed pay request with travel-rule data verifies and decrypts", "[uma][payreq]") {
    seeded_random random(21);
    manual_clock time(1700000000LL * 1000);
    auto sender = generate_private_key(random);
    auto receiver_encryption = generate_private_key(random);
    pay_request request;
    request.amount = 1000;
    request.sending_currency = "USD";
    request.receiving_currency = "MXN";
    request.payer_data["identifier"] = "$alice@vasp1.example";
    payer_compliance compliance;
    compliance.kyc_status = "VERIFIED";
    compliance.signature_nonce = "99";
    compliance.signature_timestamp_s = 1700000000;
    compliance.encrypted_travel_rule_info =
        to_hex(ecies_encrypt(public_key_of(receiver_encryption), R"({"name":"Alice"})", random));
    request.compliance = compliance;
    request.compliance->signature = sign_payload(*signable_payload(request), sender);

    auto parsed = parse_pay_request(boost::json::serialize(to_json(request)));
    REQUIRE(parsed.ok());
    memory_nonce_store nonces(time, default_nonce_window_s);
    CHECK_FALSE(verify_pay_request(parsed.value(), public_key_of(sender), "vasp1.example", nonces));
    auto replay =
        verify_pay_request(parsed.value(), public_key_of(sender), "vasp1.example", nonces);
    REQUIRE(replay.has_value());
    CHECK(replay->kind == error_kind::invalid_nonce);
    auto data = from_hex(*parsed->compliance->encrypted_travel_rule_info);
    CHECK(ecies_decrypt(receiver_encryption, *data) == R"({"name":"Alice"})");

    auto forged = parsed.value();
    forged.payer_data["identifier"] = "$mallory@vasp1.example";
    forged.compliance->signature_nonce = "100";
    auto outcome = verify_pay_request(forged, public_key_of(sender), "vasp1.example", nonces);
    REQUIRE(outcome.has_value());
    CHECK(outcome->kind == error_kind::invalid_signature);
}

TEST_CASE("pay responses parse in v1 and v0 and verify", "[uma][payresp]") {
    seeded_random random(8);
    manual_clock time(1700000000LL * 1000);
    auto receiver = generate_private_key(random);
    pay_response response;
    response.pr = "lnbc1";
    payee_compliance compliance;
    compliance.signature_nonce = "5";
    compliance.signature_timestamp_s = 1700000000;
    compliance.signature = sign_payload(signable_payload(compliance, "$a@x", "$b@y"), receiver);
    response.compliance = compliance;
    response.converted = converted_amount{100, "USD", 2, 34150.5, 1000};
    response.disposable = false;
    auto text = boost::json::serialize(to_json(response));
    CHECK(text.rfind(R"({"pr":"lnbc1","routes":[],"payeeData":{"compliance":{"utxos":[],)", 0) ==
          0);
    auto parsed = parse_pay_response(text);
    REQUIRE(parsed.ok());
    memory_nonce_store nonces(time, default_nonce_window_s);
    CHECK_FALSE(
        verify_pay_response(parsed.value(), "$a@x", "$b@y", public_key_of(receiver), "y", nonces));
    auto wrong =
        verify_pay_response(parsed.value(), "$a@x", "$c@y", public_key_of(receiver), "z", nonces);
    REQUIRE(wrong.has_value());
    CHECK(wrong->kind == error_kind::invalid_signature);

    response.major_version = 0;
    auto v0 = boost::json::parse(boost::json::serialize(to_json(response))).as_object();
    CHECK(v0.contains("paymentInfo"));
    CHECK(v0.at("compliance").as_object().contains("utxos"));
    auto v0_parsed = parse_pay_response(boost::json::serialize(v0));
    REQUIRE(v0_parsed.ok());
    CHECK(v0_parsed->major_version == 0);
    CHECK(v0_parsed->converted->fee_msats == 1000);

    CHECK_FALSE(parse_pay_response(R"({"routes":[]})").ok());
    CHECK_FALSE(parse_pay_response(R"({"pr":"x","payeeData":{"compliance":{}}})").ok());
    CHECK_FALSE(parse_pay_response(R"({"pr":"x","converted":{"currencyCode":"USD"}})").ok());
}

TEST_CASE("post-transaction callbacks round trip and verify", "[uma][posttx]") {
    seeded_random random(12);
    manual_clock time(1700000000LL * 1000);
    auto caller = generate_private_key(random);
    post_transaction_callback callback;
    callback.utxos.push_back({"abcd:1", 5000});
    callback.vasp_domain = "vasp1.example";
    callback.signature_nonce = "3";
    callback.signature_timestamp_s = 1700000000;
    callback.signature = sign_payload(signable_payload(callback), caller);
    auto parsed = parse_post_transaction_callback(boost::json::serialize(to_json(callback)));
    REQUIRE(parsed.ok());
    CHECK(signable_payload(parsed.value()) == "3|1700000000");
    memory_nonce_store nonces(time, default_nonce_window_s);
    CHECK_FALSE(verify_post_transaction(parsed.value(), public_key_of(caller), nonces));
    CHECK(verify_post_transaction(parsed.value(), public_key_of(caller), nonces)->kind ==
          error_kind::invalid_nonce);
    CHECK(
        parse_post_transaction_callback(
            R"({"utxos":[{"utxo":"a"}],"vaspDomain":"x","signature":"a","signatureNonce":"1","signatureTimestamp":1})")
            .error()
            .kind == error_kind::parse_utxo_callback_error);
    CHECK_FALSE(parse_post_transaction_callback(R"({"utxos":[],"vaspDomain":"x"})").ok());
}

TEST_CASE("certificates carry the secp256k1 key and the pubkey document prefers them",
          "[uma][certificate]") {
    seeded_random random(13);
    auto key = generate_private_key(random);
    auto der = self_signed_certificate(key, {"vasp.example:8080", 1700000000, 1800000000, 42});
    CHECK(certificate_public_key(der) == public_key_of(key));
    auto truncated = der;
    truncated.pop_back();
    CHECK_FALSE(certificate_public_key(truncated).has_value());
    CHECK_FALSE(certificate_public_key(bytes{0x30, 0x00}).has_value());

    auto other = generate_private_key(random);
    pubkey_response document;
    document.signing_cert_chain.push_back(der);
    document.encryption_cert_chain.push_back(self_signed_certificate(other, {"x", 0, 1, 1}));
    // The raw key disagrees with the chain on purpose: readers must take the chain.
    document.signing_pub_key = to_hex(public_key_of(other));
    auto parsed = parse_pubkey_response(boost::json::serialize(to_json(document)));
    REQUIRE(parsed.ok());
    CHECK(signing_key(parsed.value()).value() == public_key_of(key));
    CHECK(encryption_key(parsed.value()).value() == public_key_of(other));

    pubkey_response raw_only;
    raw_only.signing_pub_key = to_hex(public_key_of(key));
    CHECK(signing_key(raw_only).value() == public_key_of(key));
    CHECK(encryption_key(raw_only).error().kind == error_kind::invalid_pubkey_format);
    raw_only.signing_pub_key = "04abcd";
    CHECK(signing_key(raw_only).error().kind == error_kind::invalid_pubkey_format);
    CHECK(parse_pubkey_response(R"({"signingCertChain":["zz"]})").error().kind ==
          error_kind::parse_pubkey_response_error);
    pubkey_response bad_chain;
    bad_chain.signing_cert_chain.push_back(bytes{1, 2, 3});
    CHECK(signing_key(bad_chain).error().kind == error_kind::cert_chain_invalid);
}
