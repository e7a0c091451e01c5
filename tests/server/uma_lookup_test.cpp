#include "server/uma/uma_lookup.hpp"

#include <catch2/catch.hpp>

#include "ledger/customers/customer_store.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;

namespace {

// One USD at 0.00001 BTC (1000 sats, 1e6 msats per dollar), spread 100 bps.
class fixed_rates final : public rate_source {
public:
    std::optional<corridor_terms> terms(const currency& sending,
                                        const currency& receiving) const override {
        if (sending.code != "USD" || receiving.code != "BTC") return std::nullopt;
        corridor_terms out;
        out.mid_rate = *rational::parse_decimal("0.00001");
        out.spread_bps = 100;
        return out;
    }
};

currency_registry test_currencies() {
    return currency_registry::from_json(
        R"({"currencies":[{"code":"USD","name":"US Dollar","symbol":"$","decimals":2},)"
        R"({"code":"EUR","name":"Euro","symbol":"E","decimals":2},)"
        R"({"code":"MXN","name":"Peso","symbol":"M","decimals":2},)"
        R"({"code":"BTC","name":"Bitcoin","symbol":"B","decimals":8}]})");
}

uma::uma_currency offered(std::string code, double multiplier, int decimals = 2) {
    return uma::uma_currency{code, code, code, multiplier, 10, 100000, decimals};
}

}  // namespace

TEST_CASE("payer data keys and customer info field names map both ways", "[uma][lookup]") {
    CHECK(payer_data_key("FULL_NAME") == "name");
    CHECK(payer_data_key("BIRTH_DATE") == "birthDate");
    CHECK(payer_data_key("POSTAL_ADDRESS") == "postalAddress");
    CHECK(payer_data_key("ULTIMATE_INSTITUTION_COUNTRY") == "ultimateInstitutionCountry");
    for (std::string field : {"FULL_NAME", "BIRTH_DATE", "NATIONALITY", "PHONE_NUMBER", "EMAIL",
                              "POSTAL_ADDRESS", "TAX_ID", "REGISTRATION_NUMBER", "USER_TYPE",
                              "COUNTRY_OF_RESIDENCE", "ACCOUNT_IDENTIFIER", "FI_LEGAL_ENTITY_NAME",
                              "FI_ADDRESS", "PURPOSE_OF_PAYMENT", "ULTIMATE_INSTITUTION_COUNTRY"}) {
        CHECK(customer_info_field(payer_data_key(field)) == field);
    }
    // Filled by the service itself, or not a field at all.
    CHECK_FALSE(customer_info_field("identifier"));
    CHECK_FALSE(customer_info_field("compliance"));
    CHECK_FALSE(customer_info_field("Name"));
    CHECK_FALSE(customer_info_field("some-key"));
    CHECK_FALSE(customer_info_field(""));
}

TEST_CASE("payee data reads as counterpartyInformation keyed by field name", "[uma][lookup]") {
    auto info = counterparty_information_of(
        R"({"identifier":"$bob@b.example","name":"Bob","email":"b@b.example",)"
        R"("compliance":{"utxos":[]},"some-key":"x","phoneNumber":"+33612345678"})");
    CHECK(info == boost::json::object{{"FULL_NAME", "Bob"},
                                      {"EMAIL", "b@b.example"},
                                      {"PHONE_NUMBER", "+33612345678"}});
    CHECK(counterparty_information_of("{}").empty());
    CHECK(counterparty_information_of("[1]").empty());
    CHECK(counterparty_information_of("not json").empty());
}

TEST_CASE("the estimated rate crosses Lightning at both sides' prices", "[uma][lookup]") {
    auto currencies = test_currencies();
    fixed_rates rates;
    const currency& usd = *currencies.find("USD");
    // Our dollar buys 1e6 * 0.99 msats; the receiver prices a euro cent at 1.1e4 msats.
    auto eur = estimated_uma_rate(currencies, rates, usd, offered("EUR", 1.1e4));
    REQUIRE(eur);
    CHECK(*eur == Approx(0.99e6 / 1.1e6));
    // A receiver pricing like us gives 1 minus our spread.
    auto same = estimated_uma_rate(currencies, rates, usd, offered("USD", 1e4));
    REQUIRE(same);
    CHECK(*same == Approx(0.99));
    // Sending bitcoin needs no rate: 1e11 msats per BTC.
    auto from_btc =
        estimated_uma_rate(currencies, rates, *currencies.find("BTC"), offered("USD", 1e4));
    REQUIRE(from_btc);
    CHECK(*from_btc == Approx(1e11 / 1e6));
    CHECK_FALSE(
        estimated_uma_rate(currencies, rates, *currencies.find("EUR"), offered("USD", 1e6)));
    CHECK_FALSE(estimated_uma_rate(currencies, rates, usd, offered("USD", 0)));
    CHECK_FALSE(estimated_uma_rate(currencies, rates, usd, offered("USD", -5)));
    CHECK_FALSE(estimated_uma_rate(currencies, rates, usd, offered("USD", 1e6, 40)));
}

TEST_CASE("failed lookups map to the interface's codes", "[uma][lookup]") {
    using uma::error_kind;
    auto code = [](error_kind kind) { return lookup_failure({kind, "why", {}}).code; };
    CHECK(code(error_kind::invalid_input) == error_code::invalid_uma_address);
    CHECK(code(error_kind::user_not_found) == error_code::user_not_found);
    CHECK(code(error_kind::unsupported_uma_version) == error_code::unsupported_uma_version);
    CHECK(code(error_kind::no_compatible_uma_version) == error_code::no_compatible_uma_version);
    CHECK(code(error_kind::counterparty_pubkey_fetch_error) ==
          error_code::counterparty_pubkey_fetch_error);
    CHECK(code(error_kind::invalid_pubkey_format) == error_code::counterparty_pubkey_fetch_error);
    CHECK(code(error_kind::parse_lnurlp_response_error) == error_code::parse_lnurlp_response_error);
    CHECK(code(error_kind::invalid_signature) == error_code::lnurlp_request_failed);
    CHECK(code(error_kind::invalid_nonce) == error_code::lnurlp_request_failed);
    CHECK(code(error_kind::lnurlp_request_failed) == error_code::lnurlp_request_failed);
    auto mapped = lookup_failure({error_kind::invalid_signature, "bad", {}});
    CHECK(mapped.details.at("umaCode").as_string() == "INVALID_SIGNATURE");
    CHECK(mapped.message.find("bad") != std::string::npos);
    CHECK(http_status_of(error_code::unsupported_uma_version) == 412);
    CHECK(http_status_of(error_code::lnurlp_request_failed) == 424);
}

TEST_CASE("a lookup is stored, read back only by its tenant, and rendered", "[uma][lookup]") {
    testing::store_fixture world;
    auto platform_id = world.make_platform("sender.example");
    tenant owner{platform_id, environment::production};
    new_customer request;
    request.customer_type = "INDIVIDUAL";
    request.kyc_status = "APPROVED";
    request.fields.uma_address = "$alice@sender.example";
    auto alice =
        create_customer(world.session(), world.customers(), owner, "sender.example", request);
    REQUIRE(alice.ok());

    uma_lookup_record record;
    record.id = world.ids.next("Lookup");
    record.owner = owner;
    record.sender_customer_id = alice->id;
    record.receiver_uma_address = "$bob@receiver.example";
    record.uma_version = "1.0";
    record.sending_currency = "USD";
    record.response.callback = "https://receiver.example/payreq/bob";
    record.response.min_sendable_msats = 1000;
    record.response.max_sendable_msats = 1000000000;
    record.response.metadata = uma::lnurlp_metadata("Pay bob", "$bob@receiver.example");
    record.response.uma_version = "1.0";
    record.response.compliance = uma::lnurlp_compliance{
        "VERIFIED", "3045", "1", 1700000000, true, "$bob@receiver.example", {}};
    record.response.currencies = std::vector<uma::uma_currency>{
        offered("EUR", 1.1e4), offered("XYZ", 1e4), offered("MXN", 0), offered("USD", 1e4, 3)};
    (*record.response.currencies)[0].min_sendable = 0;
    record.response.payer_data = std::vector<uma::counterparty_option>{
        {"identifier", true}, {"compliance", true}, {"name", true}, {"birthDate", false}};
    record.receiver_keys.signing_pub_key = std::string(130, 'a');
    record.created_at_ms = world.clock.now_ms();
    insert_uma_lookup(world.session(), record);

    auto found = find_uma_lookup(world.session(), owner, record.id);
    REQUIRE(found);
    CHECK(found->sender_customer_id == alice->id);
    CHECK(found->response.callback == record.response.callback);
    CHECK(found->response.compliance->receiver_identifier == "$bob@receiver.example");
    CHECK(found->response.currencies->size() == 4);
    CHECK(found->receiver_keys.signing_pub_key == record.receiver_keys.signing_pub_key);
    CHECK_FALSE(
        find_uma_lookup(world.session(), tenant{platform_id, environment::sandbox}, record.id));
    CHECK_FALSE(find_uma_lookup(world.session(), owner, "Lookup:missing"));

    auto currencies = test_currencies();
    fixed_rates rates;
    auto body = render_uma_lookup(*found, currencies, rates);
    CHECK(body.at("lookupId").as_string() == record.id);
    // Only EUR survives: XYZ is unknown, MXN has no price, USD's decimals disagree with ours.
    const auto& supported = body.at("supportedCurrencies").as_array();
    REQUIRE(supported.size() == 1);
    CHECK(supported[0].at("currency").at("code").as_string() == "EUR");
    CHECK(supported[0].at("min").as_int64() == 1);
    CHECK(supported[0].at("max").as_int64() == 100000);
    const auto& fields = body.at("requiredPayerDataFields").as_array();
    REQUIRE(fields.size() == 2);
    CHECK(fields[0].at("name").as_string() == "FULL_NAME");
    CHECK(fields[0].at("mandatory").as_bool());
    CHECK(fields[1].at("name").as_string() == "BIRTH_DATE");
    CHECK_FALSE(fields[1].at("mandatory").as_bool());
}
