// corridor_formats_tool: emits the rail artifacts our format libraries produce, and reads artifacts
// produced by third-party libraries, so that the Node interop tests can check both directions.
// Not installed; only the interop tests run it.
//
//   bolt11-sample             JSON array of invoices signed with a test key, with their fields
//   bolt11-decode             invoices on stdin (one per line) -> one JSON object per line
//   brcode-sample             JSON array of BR Codes with their fields
//   brcode-parse              BR Codes on stdin -> one JSON object per line
//   nacha-sample [entries]    a NACHA file with PPD/CCD/WEB batches of credits and debits
//   tax-id-check              CPF/CNPJ on stdin -> one JSON object per line
#include <boost/json.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "plugins/ach/nacha_writer.hpp"
#include "rails/rail_sdk/formats/text.hpp"
#include "plugins/pix/br_code.hpp"
#include "plugins/pix/tax_id.hpp"
#include "rails/rail_sdk/lightning/bolt11.hpp"

namespace json = boost::json;
using corridor::formats::hex_encode;

namespace {

corridor::lightning::bytes32 bytes32_of(std::string_view hex) {
    std::vector<std::uint8_t> bytes;
    corridor::formats::hex_decode(hex, bytes);
    corridor::lightning::bytes32 out{};
    std::copy(bytes.begin(), bytes.end(), out.begin());
    return out;
}

// The test node key of BOLT #11 (public test data).
const corridor::lightning::bytes32 test_key =
    bytes32_of("e126f68f7eafcc8b74f54d269fe206be715000f94dac067d1c04a8ca3b2db734");

std::string_view network_name(corridor::lightning::ln_network network) {
    switch (network) {
        case corridor::lightning::ln_network::mainnet: return "mainnet";
        case corridor::lightning::ln_network::testnet: return "testnet";
        case corridor::lightning::ln_network::signet: return "signet";
        case corridor::lightning::ln_network::regtest: return "regtest";
    }
    return "mainnet";
}

json::object invoice_json(const corridor::lightning::invoice_fields& fields) {
    json::object out;
    out["network"] = network_name(fields.network);
    if (fields.amount_msat) out["amountMsat"] = std::to_string(*fields.amount_msat);
    out["timestamp"] = fields.timestamp;
    out["paymentHash"] = hex_encode(fields.payment_hash);
    out["paymentSecret"] = hex_encode(fields.payment_secret);
    if (fields.description) out["description"] = *fields.description;
    if (fields.description_hash) out["descriptionHash"] = hex_encode(*fields.description_hash);
    out["expirySeconds"] = fields.expiry_seconds;
    out["minFinalCltvExpiryDelta"] = fields.min_final_cltv_expiry_delta;
    json::array features;
    for (unsigned bit : fields.feature_bits) features.push_back(bit);
    out["featureBits"] = features;
    json::array routes;
    for (const auto& route : fields.routes) {
        json::array hops;
        for (const auto& hop : route)
            hops.push_back(
                json::object{{"pubkey", hex_encode(hop.pubkey)},
                             {"shortChannelId", std::to_string(hop.short_channel_id)},
                             {"feeBaseMsat", hop.fee_base_msat},
                             {"feeProportionalMillionths", hop.fee_proportional_millionths},
                             {"cltvExpiryDelta", hop.cltv_expiry_delta}});
        routes.push_back(hops);
    }
    out["routes"] = routes;
    if (fields.metadata) out["metadata"] = hex_encode(*fields.metadata);
    return out;
}

int bolt11_sample() {
    using namespace corridor::lightning;
    json::array out;
    auto payee = node_public_key(test_key).value();
    const ln_network networks[] = {ln_network::mainnet, ln_network::testnet, ln_network::regtest,
                                   ln_network::signet};
    const std::uint64_t amounts[] = {0, 1'500'000, 250'000'000, 2'000'000'000, 967'878'534, 1, 10};
    int index = 0;
    for (ln_network network : networks) {
        for (std::uint64_t amount : amounts) {
            invoice_fields fields;
            fields.network = network;
            if (amount > 0) fields.amount_msat = amount;
            fields.timestamp = 1773151200 + static_cast<std::uint64_t>(index);
            fields.payment_hash =
                bytes32_of("0001020304050607080900010203040506070809000102030405060708090102");
            fields.payment_hash[31] = static_cast<std::uint8_t>(index);
            fields.payment_secret =
                bytes32_of("1111111111111111111111111111111111111111111111111111111111111111");
            if (index % 3 == 2)
                fields.description_hash =
                    bytes32_of("3925b6f67e2c340036ed12093dd44e0368df1b6ea26c53dbe4811f58fd5db8c1");
            else
                fields.description = index % 3 == 0
                                         ? "Corridor sandbox payout " + std::to_string(index)
                                         : "ナンセンス 1杯";
            fields.expiry_seconds = index % 2 == 0 ? 3600 : 60 + static_cast<std::uint64_t>(index);
            fields.min_final_cltv_expiry_delta = index % 4 == 1 ? 40 : 18;
            fields.feature_bits = {8, 14};
            if (index % 5 == 4) {
                route_hop hop;
                hop.pubkey = payee;
                hop.short_channel_id = (589390ull << 40) | (3312ull << 16) | 1;
                hop.fee_base_msat = 1000;
                hop.fee_proportional_millionths = 2500;
                hop.cltv_expiry_delta = 40;
                fields.routes.push_back({hop});
            }
            fields.explicit_payee = index % 2 == 1;
            auto text = encode_invoice(fields, test_key);
            if (!text) {
                std::cerr << text.error().message << "\n";
                return 1;
            }
            json::object item = invoice_json(fields);
            item["invoice"] = text.value();
            item["payee"] = hex_encode(payee);
            item["explicitPayee"] = fields.explicit_payee;
            out.push_back(item);
            ++index;
        }
    }
    std::cout << json::serialize(out) << "\n";
    return 0;
}

int bolt11_decode() {
    for (std::string line; std::getline(std::cin, line);) {
        if (line.empty()) continue;
        auto decoded = corridor::lightning::decode_invoice(line);
        json::object out;
        out["ok"] = decoded.ok();
        if (decoded) {
            out["fields"] = invoice_json(decoded->fields);
            out["payee"] = hex_encode(decoded->payee);
        } else {
            out["code"] = decoded.error().code;
            out["message"] = decoded.error().message;
        }
        std::cout << json::serialize(out) << "\n";
    }
    return 0;
}

json::object br_code_json(const corridor::pix::br_code& code) {
    json::object out;
    out["pixKey"] = code.pix_key;
    out["url"] = code.location_url;
    out["additionalInfo"] = code.additional_info;
    if (code.amount_cents) out["amountCents"] = *code.amount_cents;
    out["merchantName"] = code.merchant_name;
    out["merchantCity"] = code.merchant_city;
    out["txid"] = code.txid;
    out["singleUse"] = code.single_use;
    return out;
}

int brcode_sample() {
    using corridor::pix::br_code;
    const char* keys[] = {"52998224725", "11222333000181", "pix@corridor.example", "+5511998765432",
                          "123e4567-e89b-12d3-a456-426655440000"};
    const std::uint64_t amounts[] = {0, 1, 1000, 123456, 99999999};
    json::array out;
    int index = 0;
    for (const char* key : keys) {
        for (std::uint64_t amount : amounts) {
            br_code code;
            code.pix_key = key;
            code.merchant_name = index % 2 == 0 ? "Corridor Sandbox" : "FULANO DE TAL LTDA";
            code.merchant_city = index % 3 == 0 ? "SAO PAULO" : "RIO DE JANEIRO";
            if (amount > 0) code.amount_cents = amount;
            if (index % 4 == 1) code.additional_info = "Pedido " + std::to_string(index);
            code.txid = index % 2 == 0 ? "***" : "Corridor" + std::to_string(1000 + index);
            auto payload = build_br_code(code);
            if (!payload) {
                std::cerr << payload.error().message << "\n";
                return 1;
            }
            json::object item = br_code_json(code);
            item["payload"] = payload.value();
            out.push_back(item);
            ++index;
        }
    }
    br_code dynamic;
    dynamic.location_url = "pix.corridor.example/qr/93598be0-1bd0-4997-8318-81776a1d8a99";
    dynamic.merchant_name = "Corridor Sandbox";
    dynamic.merchant_city = "SAO PAULO";
    dynamic.single_use = true;
    json::object item = br_code_json(dynamic);
    item["payload"] = build_br_code(dynamic).value();
    out.push_back(item);
    std::cout << json::serialize(out) << "\n";
    return 0;
}

int brcode_parse() {
    for (std::string line; std::getline(std::cin, line);) {
        if (line.empty()) continue;
        auto code = corridor::pix::parse_br_code(line);
        json::object out;
        out["ok"] = code.ok();
        if (code)
            out["fields"] = br_code_json(code.value());
        else
            out["code"] = code.error().code;
        std::cout << json::serialize(out) << "\n";
    }
    return 0;
}

int nacha_sample(std::uint64_t entries) {
    using namespace corridor::ach;
    file_header_fields header;
    header.immediate_destination = "231380104";
    header.immediate_origin = "1234567890";
    header.destination_name = "CITADEL";
    header.origin_name = "CORRIDOR SANDBOX";
    header.reference_code = "CORR0001";
    header.created_at_unix_s = 1773151200;
    auto writer = nacha_writer::open(header, [](std::string_view line) { std::cout << line; });
    if (!writer) {
        std::cerr << writer.error().message << "\n";
        return 1;
    }
    const char* routings[] = {"231380104", "021000021", "091400606", "011000015", "026009593"};
    struct batch_plan {
        service_class mix;
        sec_code sec;
        const char* description;
    };
    const batch_plan plans[] = {{service_class::mixed, sec_code::ppd, "PAYOUT"},
                                {service_class::credits_only, sec_code::ccd, "VENDOR PAY"},
                                {service_class::debits_only, sec_code::web, "TRANSFER"}};
    std::uint64_t written = 0;
    for (std::size_t b = 0; written < entries; ++b) {
        const batch_plan& plan = plans[b % 3];
        batch_fields batch;
        batch.mix = plan.mix;
        batch.sec = plan.sec;
        batch.company_name = "CORRIDOR";
        batch.company_id = "1234567890";
        batch.entry_description = plan.description;
        batch.effective_entry_date = "260310";
        batch.odfi_routing = "121042882";
        if (auto verdict = writer->begin_batch(batch); !verdict) return 1;
        std::uint64_t in_batch = std::min<std::uint64_t>(entries - written, 1 + (b * 7) % 13);
        for (std::uint64_t i = 0; i < in_batch; ++i, ++written) {
            entry_fields entry;
            entry.direction = plan.mix == service_class::debits_only ||
                                      (plan.mix == service_class::mixed && i % 2 == 1)
                                  ? entry_direction::debit
                                  : entry_direction::credit;
            entry.category =
                written % 3 == 0 ? account_category::savings : account_category::checking;
            entry.rdfi_routing = routings[written % 5];
            entry.account_number = std::to_string(100000 + written * 7919 % 900000);
            entry.amount_cents = 1 + (written * 104729) % 5'000'000;
            entry.individual_id = "TX" + std::to_string(written);
            entry.individual_name = written % 2 == 0 ? "JANE Q PUBLIC" : "ACME SUPPLIES INC";
            if (plan.sec == sec_code::web) entry.payment_type = written % 2 == 0 ? "S" : "R";
            if (written % 4 == 3) entry.addenda = "Corridor payment " + std::to_string(written);
            if (auto trace = writer->add_entry(entry); !trace) {
                std::cerr << trace.error().message << "\n";
                return 1;
            }
        }
        if (auto verdict = writer->end_batch(); !verdict) return 1;
    }
    return writer->finish().ok() ? 0 : 1;
}

int tax_id_check() {
    for (std::string line; std::getline(std::cin, line);) {
        if (line.empty()) continue;
        json::object out;
        out["input"] = line;
        auto verdict =
            line.size() == 11 ? corridor::pix::check_cpf(line) : corridor::pix::check_cnpj(line);
        out["valid"] = verdict.ok();
        if (!verdict) out["code"] = verdict.error().code;
        std::cout << json::serialize(out) << "\n";
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::cerr << "usage: corridor_formats_tool bolt11-sample|bolt11-decode|brcode-sample|"
                     "brcode-parse|nacha-sample [entries]|tax-id-check\n";
        return 2;
    }
    const std::string& command = args[0];
    if (command == "bolt11-sample") return bolt11_sample();
    if (command == "bolt11-decode") return bolt11_decode();
    if (command == "brcode-sample") return brcode_sample();
    if (command == "brcode-parse") return brcode_parse();
    if (command == "nacha-sample") return nacha_sample(args.size() > 1 ? std::stoull(args[1]) : 40);
    if (command == "tax-id-check") return tax_id_check();
    std::cerr << "unknown command " << command << "\n";
    return 2;
}
