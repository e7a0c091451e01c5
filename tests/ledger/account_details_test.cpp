// The account details of external accounts: every account type with valid and invalid values,
// the identifier check digits against published examples, beneficiary rules, normalisation and
// the identity that decides duplicates.
#include "ledger/customers/account_details.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include "tests/ledger/bolt11_vectors.hpp"

namespace corridor {
namespace {
namespace json = boost::json;

constexpr std::int64_t now_ms = 1760313600000;  // 2025-10-13

const char* individual =
    R"({"beneficiaryType":"INDIVIDUAL","fullName":"Ana Souza","birthDate":"1990-04-01","nationality":"BR"})";
const char* business =
    R"({"beneficiaryType":"BUSINESS","legalName":"Acme Ltda","taxId":"11222333000181"})";

// accountInfo of `type` with the given fields (a JSON object body without braces) and a
// beneficiary.
json::value info(const std::string& type, const std::string& fields,
                 const char* beneficiary = individual) {
    std::string text = R"({"accountType":")" + type + "\"";
    if (!fields.empty()) text += "," + fields;
    if (beneficiary) text += std::string(R"(,"beneficiary":)") + beneficiary;
    return json::parse(text + "}");
}

result<validated_details, details_error> check(const json::value& value,
                                               std::string_view currency) {
    return validate_account_details(value, currency, now_ms);
}

// Expects a failure naming `field` (suffix of the path) of the given kind.
void require_failure(const json::value& value, std::string_view currency, const std::string& field,
                     details_problem problem = details_problem::invalid_identifier) {
    auto outcome = check(value, currency);
    INFO(json::serialize(value));
    REQUIRE_FALSE(outcome.ok());
    auto error = outcome.error();
    CHECK(error.field == field);
    CHECK(error.problem == problem);
    CHECK_FALSE(error.message.empty());
}

validated_details require_valid(const json::value& value, std::string_view currency) {
    auto outcome = check(value, currency);
    INFO(json::serialize(value));
    if (!outcome.ok()) FAIL(outcome.error().field + ": " + outcome.error().message);
    return outcome.value();
}

}  // namespace

TEST_CASE("ABA routing numbers: 3-7-1 check digit and Federal Reserve prefix",
          "[account_details]") {
    for (auto valid : {"121042882", "231380104", "031300012", "091400606", "021000021", "011000015",
                       "026009593"}) {
        INFO(valid);
        CHECK(is_aba_routing_number(valid));
    }
    CHECK_FALSE(is_aba_routing_number("123456789"));  // check digit
    CHECK_FALSE(is_aba_routing_number("021000022"));  // check digit
    CHECK_FALSE(is_aba_routing_number("02100002"));   // length
    CHECK_FALSE(is_aba_routing_number("02100002a"));
    CHECK_FALSE(is_aba_routing_number("500000005"));  // sum is 0 mod 10 but prefix 50 is unassigned
}

TEST_CASE("US_ACCOUNT", "[account_details]") {
    auto ok = require_valid(
        info(
            "US_ACCOUNT",
            R"("accountNumber":"123456789","routingNumber":"021000021","accountCategory":"CHECKING","bankName":"Chase")"),
        "USD");
    CHECK(ok.account_info.at("paymentRails") == json::array{"ACH"});
    CHECK(ok.primary_identifier == "123456789");
    CHECK(ok.has_beneficiary);
    CHECK(ok.beneficiary_name == "Ana Souza");
    CHECK(ok.identity == "US_ACCOUNT|021000021/123456789");
    auto alias = require_valid(
        info(
            "USD_ACCOUNT",
            R"("accountNumber":"123456789","routingNumber":"021000021","accountCategory":"SAVINGS","paymentRails":["RTP","ACH","RTP"])"),
        "USD");
    CHECK(alias.identity == ok.identity);  // the same destination under its newer name
    CHECK(alias.account_info.at("paymentRails") == json::array{"RTP", "ACH"});

    require_failure(
        info(
            "US_ACCOUNT",
            R"("accountNumber":"123456789","routingNumber":"123456789","accountCategory":"CHECKING")"),
        "USD", "accountInfo.routingNumber");
    require_failure(
        info(
            "US_ACCOUNT",
            R"("accountNumber":"123456789","routingNumber":"02100002","accountCategory":"CHECKING")"),
        "USD", "accountInfo.routingNumber");
    require_failure(
        info(
            "US_ACCOUNT",
            R"("accountNumber":"123456789012345678","routingNumber":"021000021","accountCategory":"CHECKING")"),
        "USD", "accountInfo.accountNumber");
    require_failure(
        info("US_ACCOUNT",
             R"("accountNumber":"12-34","routingNumber":"021000021","accountCategory":"CHECKING")"),
        "USD", "accountInfo.accountNumber");
    require_failure(
        info(
            "US_ACCOUNT",
            R"("accountNumber":"123456789","routingNumber":"021000021","accountCategory":"BROKERAGE")"),
        "USD", "accountInfo.accountCategory", details_problem::malformed);
    require_failure(
        info("US_ACCOUNT", R"("routingNumber":"021000021","accountCategory":"CHECKING")"), "USD",
        "accountInfo.accountNumber", details_problem::malformed);
    require_failure(
        info(
            "US_ACCOUNT",
            R"("accountNumber":123456789,"routingNumber":"021000021","accountCategory":"CHECKING")"),
        "USD", "accountInfo.accountNumber", details_problem::malformed);
    require_failure(
        info(
            "US_ACCOUNT",
            R"("accountNumber":"123456789","routingNumber":"021000021","accountCategory":"CHECKING","paymentRails":["PIX"])"),
        "USD", "accountInfo.paymentRails", details_problem::malformed);
    require_failure(
        info(
            "US_ACCOUNT",
            R"("accountNumber":"123456789","routingNumber":"021000021","accountCategory":"CHECKING")"),
        "EUR", "currency", details_problem::malformed);
    require_failure(
        info(
            "US_ACCOUNT",
            R"("accountNumber":"123456789","routingNumber":"021000021","accountCategory":"CHECKING")",
            nullptr),
        "USD", "accountInfo.beneficiary", details_problem::malformed);
}

TEST_CASE("CLABE: 18 digits with the 3-7-1 mod 10 check digit", "[account_details]") {
    for (auto valid : {"002010077777777771", "032180000118359719", "646180157000000004",
                       "012180012345678909", "014180605000000007"}) {
        INFO(valid);
        CHECK(is_clabe(valid));
        require_valid(info("CLABE", std::string(R"("clabeNumber":")") + valid + "\""), "MXN");
    }
    CHECK_FALSE(is_clabe("002010077777777772"));
    require_failure(info("CLABE", R"("clabeNumber":"002010077777777772")"), "MXN",
                    "accountInfo.clabeNumber");
    require_failure(info("CLABE", R"("clabeNumber":"00201007777777777")"), "MXN",
                    "accountInfo.clabeNumber");
    require_failure(info("MXN_ACCOUNT", R"("clabeNumber":"00201007777777777X")"), "MXN",
                    "accountInfo.clabeNumber");
    require_failure(info("CLABE", R"("clabeNumber":"002010077777777771")"), "USD", "currency",
                    details_problem::malformed);
}

TEST_CASE("CPF and CNPJ check digits, alphanumeric CNPJ included", "[account_details]") {
    for (auto cpf : {"29537995593", "52998224725", "12345678909"}) CHECK(is_cpf(cpf));
    for (auto cpf : {"12345678900", "11111111111", "2953799559", "2953799559a"})
        CHECK_FALSE(is_cpf(cpf));
    for (auto cnpj : {"11222333000181", "54550752000155", "12ABC34501DE35"}) CHECK(is_cnpj(cnpj));
    for (auto cnpj : {"11222333000180", "11111111111111", "12ABC34501DE3A", "12abc34501de35"})
        CHECK_FALSE(is_cnpj(cnpj));
}

TEST_CASE("PIX: keys by type and the holder's tax id", "[account_details]") {
    auto pix = [](const std::string& type, const std::string& key,
                  const std::string& tax = "29537995593") {
        return info("PIX", R"("pixKeyType":")" + type + R"(","pixKey":")" + key + R"(","taxId":")" +
                               tax + "\"");
    };
    CHECK(require_valid(pix("CPF", "295.379.955-93"), "BRL").account_info.at("pixKey") ==
          "29537995593");
    require_valid(pix("CNPJ", "11.222.333/0001-81", "11222333000181"), "BRL");
    require_valid(pix("CNPJ", "12ABC34501DE35"), "BRL");
    CHECK(require_valid(pix("EMAIL", "Pix@BCB.gov.br"), "BRL").account_info.at("pixKey") ==
          "pix@bcb.gov.br");
    require_valid(pix("PHONE", "+5510998765432"), "BRL");
    require_valid(pix("PHONE", "+551198765432"), "BRL");
    CHECK(require_valid(pix("RANDOM", "123E4567-E89B-12D3-A456-426655440000"), "BRL")
              .account_info.at("pixKey") == "123e4567-e89b-12d3-a456-426655440000");
    require_valid(
        info("BRL_ACCOUNT", R"("pixKeyType":"EMAIL","pixKey":"a@b.co","taxId":"54550752000155")",
             business),
        "BRL");

    require_failure(pix("CPF", "12345678900"), "BRL", "accountInfo.pixKey");
    require_failure(pix("CPF", "11111111111"), "BRL", "accountInfo.pixKey");
    require_failure(pix("CNPJ", "11222333000180"), "BRL", "accountInfo.pixKey");
    require_failure(pix("EMAIL", "not-an-email"), "BRL", "accountInfo.pixKey");
    require_failure(pix("EMAIL", std::string(70, 'a') + "@bcb.gov.br"), "BRL", "accountInfo.pixKey",
                    details_problem::malformed);
    require_failure(pix("PHONE", "+14155550100"), "BRL", "accountInfo.pixKey");
    require_failure(pix("PHONE", "+55011987654321"), "BRL", "accountInfo.pixKey");
    require_failure(pix("PHONE", "+55119876543"), "BRL", "accountInfo.pixKey");
    require_failure(pix("RANDOM", "123e4567e89b12d3a456426655440000"), "BRL", "accountInfo.pixKey");
    require_failure(pix("CPF", "29537995593", "12345678900"), "BRL", "accountInfo.taxId");
    require_failure(pix("IBAN", "x"), "BRL", "accountInfo.pixKeyType", details_problem::malformed);
}

TEST_CASE("IBAN: country length and mod 97, BIC shape", "[account_details]") {
    for (auto valid :
         {"GB82WEST12345698765432", "DE89370400440532013000", "FR1420041010050500013M02606",
          "NL91ABNA0417164300", "BR1800360305000010009795493C1"}) {
        INFO(valid);
        CHECK(is_iban(valid));
    }
    CHECK_FALSE(is_iban("GB82WEST12345698765431"));  // mod 97
    CHECK_FALSE(is_iban("DE8937040044053201300"));   // German length is 22
    CHECK_FALSE(is_iban("XX89370400440532013000"));  // no such country
    auto ok = require_valid(
        info("IBAN", R"("iban":"de89 3704 0044 0532 0130 00","swiftBic":"deutdeff")"), "EUR");
    CHECK(ok.account_info.at("iban") == "DE89370400440532013000");
    CHECK(ok.account_info.at("swiftBic") == "DEUTDEFF");
    CHECK(ok.identity == "IBAN|DE89370400440532013000");
    require_valid(info("EUR_ACCOUNT", R"("iban":"GB82WEST12345698765432","swiftBic":"NWBKGB2LXXX")",
                       business),
                  "GBP");
    require_failure(info("IBAN", R"("iban":"GB82WEST12345698765431","swiftBic":"NWBKGB2L")"), "EUR",
                    "accountInfo.iban");
    require_failure(info("IBAN", R"("iban":"GB82WEST1234","swiftBic":"NWBKGB2L")"), "EUR",
                    "accountInfo.iban");
    require_failure(info("IBAN", R"("iban":"DE89370400440532013000","swiftBic":"DEUTDEF")"), "EUR",
                    "accountInfo.swiftBic");
    require_failure(info("IBAN", R"("iban":"DE89370400440532013000","swiftBic":"DEUTZZFF")"), "EUR",
                    "accountInfo.swiftBic");
    require_failure(info("IBAN", R"("iban":"DE89370400440532013000")"), "EUR",
                    "accountInfo.swiftBic", details_problem::malformed);
}

TEST_CASE("UPI, NGN, CAD, GBP, PHP and SGD accounts", "[account_details]") {
    CHECK(require_valid(info("UPI", R"("vpa":"9876543210@PayTM")"), "INR").account_info.at("vpa") ==
          "9876543210@paytm");
    require_valid(info("INR_ACCOUNT", R"("vpa":"name.surname@oksbi")"), "INR");
    require_valid(info("UPI", R"("vpa":"x@ybl")"), "INR");
    for (auto bad : {"9876543210", "a@b@c", "@ybl", "name@ok5bi", "na me@oksbi"}) {
        INFO(bad);
        require_failure(info("UPI", std::string(R"("vpa":")") + bad + "\""), "INR",
                        "accountInfo.vpa");
    }

    require_valid(
        info("NGN_ACCOUNT",
             R"("accountNumber":"0123456789","bankName":"GTBank","purposeOfPayment":"GIFT")"),
        "NGN");
    require_failure(
        info("NGN_ACCOUNT",
             R"("accountNumber":"012345678","bankName":"GTBank","purposeOfPayment":"GIFT")"),
        "NGN", "accountInfo.accountNumber");
    require_failure(info("NGN_ACCOUNT", R"("accountNumber":"0123456789","bankName":"GTBank")"),
                    "NGN", "accountInfo.purposeOfPayment", details_problem::malformed);
    require_failure(
        info("NGN_ACCOUNT", R"("accountNumber":"0123456789","purposeOfPayment":"GIFT")"), "NGN",
        "accountInfo.bankName", details_problem::malformed);

    require_valid(
        info("CAD_ACCOUNT", R"("bankCode":"001","branchCode":"00011","accountNumber":"1234567")"),
        "CAD");
    require_failure(
        info("CAD_ACCOUNT", R"("bankCode":"01","branchCode":"00011","accountNumber":"1234567")"),
        "CAD", "accountInfo.bankCode");
    require_failure(
        info("CAD_ACCOUNT", R"("bankCode":"001","branchCode":"0001","accountNumber":"1234567")"),
        "CAD", "accountInfo.branchCode");
    require_failure(
        info("CAD_ACCOUNT", R"("bankCode":"001","branchCode":"00011","accountNumber":"123456")"),
        "CAD", "accountInfo.accountNumber");
    require_failure(
        info("CAD_ACCOUNT",
             R"("bankCode":"001","branchCode":"00011","accountNumber":"1234567890123")"),
        "CAD", "accountInfo.accountNumber");

    auto gbp = require_valid(
        info("GBP_ACCOUNT", R"("sortCode":"60-16-13","accountNumber":"31926819")"), "GBP");
    CHECK(gbp.account_info.at("sortCode") == "601613");
    CHECK(gbp.identity ==
          require_valid(info("GBP_ACCOUNT", R"("sortCode":"601613","accountNumber":"31926819")"),
                        "GBP")
              .identity);
    require_failure(info("GBP_ACCOUNT", R"("sortCode":"60-1613","accountNumber":"31926819")"),
                    "GBP", "accountInfo.sortCode");
    require_failure(info("GBP_ACCOUNT", R"("sortCode":"6016130","accountNumber":"31926819")"),
                    "GBP", "accountInfo.sortCode");
    require_failure(info("GBP_ACCOUNT", R"("sortCode":"601613","accountNumber":"3192681")"), "GBP",
                    "accountInfo.accountNumber");

    require_valid(info("PHP_ACCOUNT", R"("bankName":"BDO","accountNumber":"001234567890")"), "PHP");
    require_failure(info("PHP_ACCOUNT", R"("bankName":"BDO","accountNumber":"0012-3456")"), "PHP",
                    "accountInfo.accountNumber");
    require_failure(info("PHP_ACCOUNT", R"("accountNumber":"001234567890")"), "PHP",
                    "accountInfo.bankName", details_problem::malformed);

    require_valid(info("SGD_ACCOUNT",
                       R"("bankName":"DBS","swiftCode":"DBSSSGSG","accountNumber":"0721234567")"),
                  "SGD");
    require_failure(info("SGD_ACCOUNT",
                         R"("bankName":"DBS","swiftCode":"DEUTDEFF","accountNumber":"0721234567")"),
                    "SGD", "accountInfo.swiftCode");
    require_failure(info("SGD_ACCOUNT",
                         R"("bankName":"DBS","swiftCode":"DBSSSGS","accountNumber":"0721234567")"),
                    "SGD", "accountInfo.swiftCode");
    require_failure(
        info("SGD_ACCOUNT", R"("bankName":"DBS","swiftCode":"DBSSSGSG","accountNumber":"07212")"),
        "SGD", "accountInfo.accountNumber");
}

TEST_CASE("bech32 and bech32m checksums", "[account_details]") {
    // BIP-173 and BIP-350 test strings.
    CHECK(bech32_decode("A12UEL5L", bech32_variant::bech32));
    CHECK(bech32_decode("abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw", bech32_variant::bech32));
    CHECK(bech32_decode("A1LQFN3A", bech32_variant::bech32m));
    CHECK(bech32_decode("abcdef1l7aum6echk45nj3s0wdvt2fg8x9yrzpqzd3ryx", bech32_variant::bech32m));
    CHECK_FALSE(bech32_decode("A1LQFN3A", bech32_variant::bech32));  // bech32m is not bech32
    CHECK_FALSE(bech32_decode("A12UEL5L", bech32_variant::bech32m));
    CHECK_FALSE(bech32_decode("a12UEL5L", bech32_variant::bech32));      // mixed case
    CHECK_FALSE(bech32_decode("pzry9x0s0muk", bech32_variant::bech32));  // no separator
    CHECK_FALSE(
        bech32_decode("abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxx", bech32_variant::bech32));
}

TEST_CASE("SPARK_WALLET: spark/sparkrt/sp prefixes with a bech32m checksum", "[account_details]") {
    for (auto address :
         {"spark1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc489gg2",
          "sparkrt1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc8pt5y4",
          "sp1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9ucez8h3s",
          "spark1pgss8ec4dt3nkz3q35r5gxv3vvthayy7sqtku4we0ghjy8k7p7f5mkdd7hmr8s",
          "sparkrt1pgss8ec4dt3nkz3q35r5gxv3vvthayy7sqtku4we0ghjy8k7p7f5mkddv34lt0"}) {
        INFO(address);
        CHECK(is_spark_address(address));
        auto ok = require_valid(
            info("SPARK_WALLET", std::string(R"("address":")") + address + "\"", nullptr), "BTC");
        CHECK_FALSE(ok.has_beneficiary);
        CHECK(ok.account_info.at("assetType") == "BTC");
    }
    // Last character changed, wrong prefix, and the right payload under a bech32 (not m) checksum.
    CHECK_FALSE(
        is_spark_address("spark1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc489gg3"));
    CHECK_FALSE(is_spark_address("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"));
    CHECK_FALSE(is_spark_address("spark1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc"));
    require_failure(
        info("SPARK_WALLET",
             R"("address":"spark1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc489gg3")",
             nullptr),
        "BTC", "accountInfo.address");
    require_failure(
        info("SPARK_WALLET",
             R"("address":"spark1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc489gg2")"),
        "BTC", "accountInfo.beneficiary", details_problem::malformed);
    require_failure(
        info("SPARK_WALLET",
             R"("address":"spark1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc489gg2")",
             nullptr),
        "USD", "currency", details_problem::malformed);
}

TEST_CASE("LIGHTNING: BOLT #11 invoice shape, BOLT #12 offer or Lightning address",
          "[account_details]") {
    for (auto invoice : test_vectors::bolt11_valid) {
        INFO(invoice);
        CHECK(is_bolt11_invoice_shape(invoice));
    }
    for (const auto& [fault, invoice] : test_vectors::bolt11_malformed) {
        INFO(fault);
        CHECK_FALSE(is_bolt11_invoice_shape(invoice));
    }
    std::string invoice(test_vectors::bolt11_valid.front());
    auto ok = require_valid(info("LIGHTNING", R"("invoice":")" + invoice + "\"", nullptr), "BTC");
    CHECK(ok.primary_identifier == "invoice/" + invoice);
    require_valid(info("LIGHTNING", R"("lightningAddress":"Satoshi@Example.com")", nullptr), "BTC");
    require_valid(
        info("LIGHTNING",
             R"("bolt12":"lno1qgsqvgnwgcg35z6ee2h3yczraddm72xrfua9uve2rlrm9deu7xyfzrc")", nullptr),
        "BTC");
    require_failure(info("LIGHTNING",
                         R"("invoice":")" + invoice.substr(0, invoice.size() - 1) + "q\"", nullptr),
                    "BTC", "accountInfo.invoice");
    require_failure(info("LIGHTNING", R"("lightningAddress":"satoshi@localhost")", nullptr), "BTC",
                    "accountInfo.lightningAddress");
    require_failure(info("LIGHTNING", R"("lightningAddress":"sat oshi@example.com")", nullptr),
                    "BTC", "accountInfo.lightningAddress");
    require_failure(info("LIGHTNING", R"("bolt12":"lnbc1qqq")", nullptr), "BTC",
                    "accountInfo.bolt12");
    require_failure(info("LIGHTNING", "", nullptr), "BTC", "accountInfo.invoice",
                    details_problem::malformed);
    require_failure(
        info("LIGHTNING", R"("invoice":")" + invoice + R"(","lightningAddress":"a@example.com")",
             nullptr),
        "BTC", "accountInfo.invoice", details_problem::malformed);
}

TEST_CASE("stablecoin wallets: Solana, Tron, Polygon and Base addresses", "[account_details]") {
    for (auto address :
         {"11111111111111111111111111111111", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
          "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"}) {
        CHECK(is_solana_address(address));
    }
    CHECK_FALSE(is_solana_address("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt"));  // 31 bytes
    CHECK_FALSE(
        is_solana_address("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10"));  // '0' is not base58
    CHECK(is_tron_address("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"));
    CHECK(is_tron_address("TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7"));
    CHECK_FALSE(is_tron_address("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u"));  // checksum
    CHECK(is_evm_address("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"));
    CHECK_FALSE(is_evm_address("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe"));
    CHECK_FALSE(is_evm_address("5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed00"));

    auto solana = require_valid(
        info("SOLANA_WALLET",
             R"("address":"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v","assetType":"USDT")",
             nullptr),
        "USD");
    CHECK(solana.account_info.at("assetType") == "USDT");
    require_valid(info("TRON_WALLET", R"("address":"TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")", nullptr),
                  "USD");
    auto polygon =
        require_valid(info("POLYGON_WALLET",
                           R"("address":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")", nullptr),
                      "USD");
    auto base = require_valid(
        info("BASE_WALLET", R"("address":"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")", nullptr),
        "USD");
    CHECK(polygon.identity.substr(polygon.identity.find('|')) ==
          base.identity.substr(base.identity.find('|')));
    require_failure(
        info("SOLANA_WALLET", R"("address":"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt")", nullptr),
        "USD", "accountInfo.address");
    require_failure(
        info("TRON_WALLET", R"("address":"TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u")", nullptr), "USD",
        "accountInfo.address");
    require_failure(
        info("TRON_WALLET", R"("address":"TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t","assetType":"USDC")",
             nullptr),
        "USD", "accountInfo.assetType", details_problem::malformed);
    require_failure(
        info("BASE_WALLET", R"("address":"0xZZAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")", nullptr),
        "USD", "accountInfo.address");
}

TEST_CASE("beneficiary: individual and business fields", "[account_details]") {
    const std::string fields = R"("clabeNumber":"002010077777777771")";
    auto with = [&](const std::string& beneficiary) {
        return info("CLABE", fields, beneficiary.c_str());
    };
    auto business_ok = require_valid(
        with(
            R"({"beneficiaryType":"BUSINESS","legalName":"Acme SA","registrationNumber":"R1","address":{"line1":"Av 1","postalCode":"01000","country":"MX"}})"),
        "MXN");
    CHECK(business_ok.beneficiary_name == "Acme SA");
    require_valid(
        with(
            R"({"beneficiaryType":"INDIVIDUAL","fullName":"A B","birthDate":"1980-02-29","nationality":"MX","email":"a@b.mx","phoneNumber":"+525512345678","countryOfResidence":"US"})"),
        "MXN");

    using p = details_problem;
    require_failure(with(R"({"fullName":"A B","birthDate":"1980-01-01","nationality":"MX"})"),
                    "MXN", "accountInfo.beneficiary.beneficiaryType", p::malformed);
    require_failure(with(R"({"beneficiaryType":"PERSON","fullName":"A B"})"), "MXN",
                    "accountInfo.beneficiary.beneficiaryType", p::malformed);
    require_failure(
        with(R"({"beneficiaryType":"INDIVIDUAL","birthDate":"1980-01-01","nationality":"MX"})"),
        "MXN", "accountInfo.beneficiary.fullName", p::malformed);
    require_failure(with(R"({"beneficiaryType":"INDIVIDUAL","fullName":"A B","nationality":"MX"})"),
                    "MXN", "accountInfo.beneficiary.birthDate", p::malformed);
    require_failure(
        with(
            R"({"beneficiaryType":"INDIVIDUAL","fullName":"A B","birthDate":"1981-02-29","nationality":"MX"})"),
        "MXN", "accountInfo.beneficiary.birthDate", p::malformed);
    require_failure(
        with(
            R"({"beneficiaryType":"INDIVIDUAL","fullName":"A B","birthDate":"2999-01-01","nationality":"MX"})"),
        "MXN", "accountInfo.beneficiary.birthDate", p::malformed);
    require_failure(
        with(R"({"beneficiaryType":"INDIVIDUAL","fullName":"A B","birthDate":"1980-01-01"})"),
        "MXN", "accountInfo.beneficiary.nationality", p::malformed);
    require_failure(
        with(
            R"({"beneficiaryType":"INDIVIDUAL","fullName":"A B","birthDate":"1980-01-01","nationality":"XX"})"),
        "MXN", "accountInfo.beneficiary.nationality", p::malformed);
    require_failure(
        with(
            R"({"beneficiaryType":"INDIVIDUAL","fullName":"A B","birthDate":"1980-01-01","nationality":"MX","legalName":"X"})"),
        "MXN", "accountInfo.beneficiary.legalName", p::malformed);
    require_failure(with(R"({"beneficiaryType":"BUSINESS","fullName":"A B","legalName":"X"})"),
                    "MXN", "accountInfo.beneficiary.fullName", p::malformed);
    require_failure(with(R"({"beneficiaryType":"BUSINESS"})"), "MXN",
                    "accountInfo.beneficiary.legalName", p::malformed);
    require_failure(
        with(R"({"beneficiaryType":"BUSINESS","legalName":"X","phoneNumber":"5512345678"})"), "MXN",
        "accountInfo.beneficiary.phoneNumber", p::malformed);
    require_failure(with(R"({"beneficiaryType":"BUSINESS","legalName":"X","email":"nope"})"), "MXN",
                    "accountInfo.beneficiary.email", p::malformed);
    require_failure(
        with(
            R"({"beneficiaryType":"BUSINESS","legalName":"X","address":{"line1":"Av 1","country":"MX"}})"),
        "MXN", "accountInfo.beneficiary.address.postalCode", p::malformed);
    require_failure(
        with(
            R"({"beneficiaryType":"BUSINESS","legalName":"X","address":{"line1":"Av 1","postalCode":"1","country":"ZZ"}})"),
        "MXN", "accountInfo.beneficiary.address.country", p::malformed);
    require_failure(info("CLABE", fields, "\"someone\""), "MXN", "accountInfo.beneficiary",
                    p::malformed);
}

TEST_CASE("the document itself: object, known type", "[account_details]") {
    require_failure(json::parse("[]"), "USD", "accountInfo", details_problem::malformed);
    require_failure(json::parse(R"({"accountNumber":"1"})"), "USD", "accountInfo.accountType",
                    details_problem::malformed);
    require_failure(json::parse(R"({"accountType":"CHEQUE"})"), "USD", "accountInfo.accountType",
                    details_problem::malformed);
    require_failure(json::parse(R"({"accountType":7})"), "USD", "accountInfo.accountType",
                    details_problem::malformed);
    CHECK(external_account_types().size() == 21);
}

}  // namespace corridor
