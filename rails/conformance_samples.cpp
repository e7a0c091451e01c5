#include "rails/conformance_samples.hpp"

namespace corridor::conformance_kit {

const std::map<std::string, account_sample>& account_samples() {
    static const std::map<std::string, account_sample> samples = [] {
        std::map<std::string, account_sample> out;
        account_sample us{"USD",
                          {R"("accountNumber":"123456789","routingNumber":"021000021",)"
                           R"("accountCategory":"CHECKING")"},
                          true};
        account_sample clabe{"MXN", {R"("clabeNumber":"002010077777777771")"}, true};
        account_sample pix{
            "BRL", {R"("pixKeyType":"CPF","pixKey":"29537995593","taxId":"29537995593")"}, true};
        account_sample iban{
            "EUR", {R"("iban":"DE89370400440532013000","swiftBic":"DEUTDEFF")"}, true};
        account_sample upi{"INR", {R"("vpa":"x@ybl")"}, true};
        out["US_ACCOUNT"] = us;
        out["USD_ACCOUNT"] = us;
        out["CLABE"] = clabe;
        out["MXN_ACCOUNT"] = clabe;
        out["PIX"] = pix;
        out["BRL_ACCOUNT"] = pix;
        out["IBAN"] = iban;
        out["EUR_ACCOUNT"] = iban;
        out["UPI"] = upi;
        out["INR_ACCOUNT"] = upi;
        out["GBP_ACCOUNT"] = {"GBP", {R"("sortCode":"60-16-13","accountNumber":"31926819")"}, true};
        out["NGN_ACCOUNT"] = {
            "NGN",
            {R"("accountNumber":"0123456789","bankName":"GTBank","purposeOfPayment":"GIFT")"},
            true};
        out["CAD_ACCOUNT"] = {
            "CAD", {R"("bankCode":"001","branchCode":"00011","accountNumber":"1234567")"}, true};
        out["PHP_ACCOUNT"] = {"PHP", {R"("bankName":"BDO","accountNumber":"001234567890")"}, true};
        out["SGD_ACCOUNT"] = {
            "SGD",
            {R"("bankName":"DBS","swiftCode":"DBSSSGSG","accountNumber":"0721234567")"},
            true};
        out["SPARK_WALLET"] = {
            "BTC",
            {R"("address":"sparkrt1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc8pt5y4")",
             R"("address":"spark1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc489gg2")"},
            false};
        out["LIGHTNING"] = {"BTC", {R"("lightningAddress":"satoshi@example.com")"}, false};
        out["SOLANA_WALLET"] = {
            "USD",
            {R"("address":"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v","assetType":"USDT")"},
            false};
        out["TRON_WALLET"] = {"USD", {R"("address":"TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")"}, false};
        out["POLYGON_WALLET"] = {
            "USD", {R"("address":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")"}, false};
        out["BASE_WALLET"] = {
            "USD", {R"("address":"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")"}, false};
        return out;
    }();
    return samples;
}

}  // namespace corridor::conformance_kit
