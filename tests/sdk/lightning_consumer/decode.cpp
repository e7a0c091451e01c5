// A plugin author's use of the SDK's Lightning formats, built against an installed SDK only: decode
// the BOLT #11 specification's "donation" invoice and check what it says.
#include <corridor/rail_sdk/lightning/bolt11.hpp>

#include <cstdio>

int main() {
    const char* donation =
        "lnbc1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5"
        "rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5kgetjypeh2ursdae8g6twvus8g6rfwvs8qun0dfjkxaq9qrs"
        "gq357wnc5r2ueh7ck6q93dj32dlqnls087fxdwk8qakdyafkq3yap9us6v52vjjsrvywa6rt52cm9r9zqt8r2t7mlcwspyet"
        "p5h2tztugp9lfyql";
    auto invoice = corridor::lightning::decode_invoice(donation);
    if (!invoice) {
        std::fprintf(stderr, "refused: %s\n", invoice.error().message.c_str());
        return 1;
    }
    const auto& fields = invoice->fields;
    bool as_specified = !fields.amount_msat && fields.timestamp == 1496314658 &&
                        fields.description == "Please consider supporting this project" &&
                        fields.payment_hash[1] == 0x01 && fields.payment_hash[31] == 0x02;
    auto tampered = corridor::lightning::decode_invoice(std::string(donation).replace(20, 1, "q"));
    if (!as_specified || tampered) {
        std::fprintf(stderr, "the donation invoice decoded wrongly\n");
        return 1;
    }
    std::printf("decoded: %s\n", fields.description->c_str());
    return 0;
}
