// PIX: CPF/CNPJ check digits, key types, BR Code vectors (CRC and fields), end-to-end ids and
// rejection codes.
#include <catch2/catch.hpp>
#include <cstring>

#include "plugins/pix/br_code.hpp"
#include "plugins/pix/crc16.hpp"
#include "plugins/pix/end_to_end_id.hpp"
#include "plugins/pix/pix_key.hpp"
#include "plugins/pix/rejection_codes.hpp"
#include "plugins/pix/tax_id.hpp"

using namespace corridor::pix;

TEST_CASE("pix: CPF and CNPJ check digits", "[pix]") {
    for (const char* cpf : {"29537995593", "52998224725", "12345678909"}) {
        INFO(cpf);
        CHECK(check_cpf(cpf).ok());
    }
    CHECK(check_cpf("12345678900").error().code == "bad_check_digit");
    CHECK(check_cpf("11111111111").error().code == "repeated_digits");
    CHECK(check_cpf("1234567890").error().code == "bad_length");
    CHECK(check_cpf("123.456.789").error().code == "bad_character");
    for (const char* cnpj : {"11222333000181", "54550752000155", "12ABC34501DE35"}) {
        INFO(cnpj);
        CHECK(check_cnpj(cnpj).ok());
    }
    CHECK(check_cnpj("11222333000180").error().code == "bad_check_digit");
    CHECK(check_cnpj("11111111111111").error().code == "repeated_digits");
    CHECK(check_cnpj("12abc34501DE35").error().code == "bad_character");
    CHECK(check_cnpj("12ABC34501DEA5").error().code == "bad_character");
    CHECK(cpf_check_digits("529982247") == "25");
    CHECK(cnpj_check_digits("112223330001") == "81");
    CHECK(check_tax_id("52998224725").value() == tax_id_kind::cpf);
    CHECK(check_tax_id("11222333000181").value() == tax_id_kind::cnpj);
    CHECK(check_tax_id("123").error().code == "bad_length");
    // Every single-digit change of a valid CPF is caught.
    std::string valid = "52998224725";
    for (std::size_t i = 0; i < valid.size(); ++i) {
        std::string changed = valid;
        changed[i] = static_cast<char>('0' + (changed[i] - '0' + 3) % 10);
        CHECK_FALSE(check_cpf(changed).ok());
    }
}

TEST_CASE("pix: keys by type", "[pix]") {
    CHECK(check_pix_key(pix_key_type::cpf, "52998224725").ok());
    CHECK(check_pix_key(pix_key_type::cnpj, "11222333000181").ok());
    CHECK(check_pix_key(pix_key_type::email, "pix@bcb.gov.br").ok());
    CHECK(check_pix_key(pix_key_type::email, "first.last+tag@example.com.br").ok());
    CHECK(check_pix_key(pix_key_type::phone, "+5510998765432").ok());
    CHECK(check_pix_key(pix_key_type::phone, "+551133334444").ok());
    CHECK(check_pix_key(pix_key_type::evp, "123e4567-e89b-12d3-a456-426655440000").ok());

    CHECK(check_pix_key(pix_key_type::email, "Pix@bcb.gov.br").error().code == "bad_email");
    CHECK(check_pix_key(pix_key_type::email, "pix@bcb").ok());
    CHECK(check_pix_key(pix_key_type::email, "pix@-bcb.gov.br").error().code == "bad_email");
    CHECK(check_pix_key(pix_key_type::email, "pixbcb.gov.br").error().code == "bad_email");
    CHECK(check_pix_key(pix_key_type::email, std::string(70, 'a') + "@bcb.gov.br").error().code ==
          "bad_length");
    CHECK(check_pix_key(pix_key_type::phone, "+1415555123").error().code == "bad_phone");
    CHECK(check_pix_key(pix_key_type::phone, "5510998765432").error().code == "bad_phone");
    CHECK(check_pix_key(pix_key_type::phone, "+5501998765432").error().code == "bad_phone");
    CHECK(check_pix_key(pix_key_type::phone, "+5510898765432").error().code == "bad_phone");
    CHECK(check_pix_key(pix_key_type::evp, "123E4567-E89B-12D3-A456-426655440000").error().code ==
          "bad_evp");
    CHECK(check_pix_key(pix_key_type::evp, "123e4567e89b12d3a456426655440000").error().code ==
          "bad_evp");
    CHECK(check_pix_key(pix_key_type::cpf, "12345678900").error().code == "bad_check_digit");
    CHECK(parse_pix_key_type("RANDOM").value() == pix_key_type::evp);
    CHECK(parse_pix_key_type("IBAN").error().code == "bad_key_type");
    CHECK(infer_pix_key_type("+5510998765432").value() == pix_key_type::phone);
    CHECK_FALSE(infer_pix_key_type("not a key").ok());
}

TEST_CASE("pix: CRC-16/CCITT-FALSE check value", "[pix]") {
    CHECK(crc16_ccitt_false("123456789") == 0x29b1);
    CHECK(crc16_hex(0x29b1) == "29B1");
    CHECK(crc16_ccitt_false("") == 0xffff);
}

TEST_CASE("pix: every BR Code vector of rails.md 2.4 parses with its CRC", "[pix]") {
    struct vector {
        const char* payload;
        const char* key;
        const char* url;
        std::optional<std::uint64_t> cents;
        const char* name;
        const char* city;
        bool single_use;
    };
    const vector vectors[] = {
        {"00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR"
         "5913Fulano de Tal6008BRASILIA62070503***63041D3D",
         "123e4567-e12b-12d1-a456-426655440000", "", std::nullopt, "Fulano de Tal", "BRASILIA",
         false},
        {"00020126510014br.gov.bcb.pix0115thalesog@me.com0210Pedido "
         "123520400005303986540510.005802BR"
         "5914Thales Ogliari6015SAO MIGUEL DO O62070503***63044367",
         "thalesog@me.com", "", 1000, "Thales Ogliari", "SAO MIGUEL DO O", false},
        {"00020126510014br.gov.bcb.pix0115thalesog@me.com0210Pedido "
         "12352040000530398654040.005802BR"
         "5914Thales Ogliari6015SAO MIGUEL DO O62070503***63044406",
         "thalesog@me.com", "", 0, "Thales Ogliari", "SAO MIGUEL DO O", false},
        {"00020126510014br.gov.bcb.pix0115thalesog@me.com0210Pedido "
         "1235204000053039865802BR5914Thal"
         "es Ogliari6015SAO MIGUEL DO O62070503***63042C6B",
         "thalesog@me.com", "", std::nullopt, "Thales Ogliari", "SAO MIGUEL DO O", false},
        {"00020126740014br.gov.bcb.pix2552payload.psp.com/"
         "3ec9d2f9-5f03-4e0e-820d-63a81e769e875204000"
         "053039865802BR5914Thales Ogliari6015SAO MIGUEL DO O62070503***63040C64",
         "", "payload.psp.com/3ec9d2f9-5f03-4e0e-820d-63a81e769e87", std::nullopt, "Thales Ogliari",
         "SAO MIGUEL DO O", false},
        {"00020126650014br.gov.bcb.pix0119nubank@thalesog.com0220Gerado por "
         "Pix-Utils520400005303986"
         "54041.005802BR5914Thales Ogliari6009Sao Paulo62070503***63046069",
         "nubank@thalesog.com", "", 100, "Thales Ogliari", "Sao Paulo", false},
        {"00020101021226770014BR.GOV.BCB.PIX2555pix.example.com/qr/"
         "93598be0-1bd0-4997-8318-81776a1d8a"
         "995204000053039865802BR5907EMPRESA6009SAO PAULO62070503***6304EEAB",
         "", "pix.example.com/qr/93598be0-1bd0-4997-8318-81776a1d8a99", std::nullopt, "EMPRESA",
         "SAO PAULO", true},
    };
    for (const auto& item : vectors) {
        INFO(item.payload);
        auto code = parse_br_code(item.payload);
        if (!code) FAIL(code.error().message);
        CHECK(code->pix_key == item.key);
        CHECK(code->location_url == item.url);
        CHECK(code->amount_cents == item.cents);
        CHECK(code->merchant_name == item.name);
        CHECK(code->merchant_city == item.city);
        CHECK(code->single_use == item.single_use);
        CHECK(code->txid == "***");
        // Rebuilding from the parsed fields gives the same bytes, except where the vector spells
        // the GUI in upper case (we write it lower case) or writes 0.00 as "0.00" (we do too).
        std::string payload = item.payload;
        if (payload.find("BR.GOV.BCB.PIX") == std::string::npos)
            CHECK(build_br_code(code.value()).value() == payload);
        // Any change to the body breaks the CRC.
        std::string changed = payload;
        changed[40] = changed[40] == 'x' ? 'y' : 'x';
        CHECK(parse_br_code(changed).error().code == "bad_crc");
    }
    auto pedido = parse_br_code(vectors[1].payload);
    CHECK(pedido->additional_info == "Pedido 123");
}

TEST_CASE("pix: building BR Codes and refusing bad ones", "[pix]") {
    br_code code;
    code.pix_key = "52998224725";
    code.merchant_name = "Corridor Sandbox";
    code.merchant_city = "SAO PAULO";
    code.amount_cents = 123456;
    code.txid = "Corridor0001";
    code.single_use = true;
    auto payload = build_br_code(code);
    REQUIRE(payload.ok());
    CHECK(payload->find("010212") == 6);
    CHECK(payload->find("54071234.56") != std::string::npos);
    CHECK(payload->find("62160512Corridor0001") != std::string::npos);
    auto back = parse_br_code(payload.value());
    REQUIRE(back.ok());
    CHECK(back->amount_cents == 123456u);
    CHECK(back->txid == "Corridor0001");

    auto refused = [&](auto change) {
        br_code copy = code;
        change(copy);
        return build_br_code(copy).error().code;
    };
    CHECK(refused([](br_code& c) { c.merchant_name = std::string(26, 'a'); }) ==
          "bad_merchant_name");
    CHECK(refused([](br_code& c) { c.merchant_city = std::string(16, 'a'); }) ==
          "bad_merchant_city");
    CHECK(refused([](br_code& c) { c.txid = "has space"; }) == "bad_txid");
    CHECK(refused([](br_code& c) { c.txid = std::string(26, 'a'); }) == "bad_txid");
    CHECK(refused([](br_code& c) { c.pix_key = "12345678900"; }) == "bad_key");
    CHECK(refused([](br_code& c) { c.location_url = "x.example/qr"; }) == "bad_account");
    CHECK(refused([](br_code& c) { c.pix_key.clear(); }) == "bad_account");
    CHECK(refused([](br_code& c) { c.merchant_name = "S\xc3\xa3o"; }) == "bad_character");
    CHECK(refused([](br_code& c) { c.amount_cents = 10'000'000'000'000ull; }) == "bad_amount");
    CHECK(refused([](br_code& c) {
              c.pix_key.clear();
              c.location_url = "https://x.example/qr";
          }) == "bad_url");
}

TEST_CASE("pix: malformed BR Codes are refused with a reason", "[pix]") {
    auto with_crc = [](std::string body) {
        body += "6304";
        return body + crc16_hex(crc16_ccitt_false(body));
    };
    CHECK(parse_br_code("").error().code == "missing_crc");
    CHECK(parse_br_code("000201").error().code == "missing_crc");
    const std::string account =
        "26330014br.gov.bcb.pix0111529982247255204000053039865802BR5901A6001B";
    CHECK(parse_br_code(with_crc("000201" + account + "62070503***")).ok());
    CHECK(parse_br_code(with_crc("000202" + account + "62070503***")).error().code ==
          "bad_format_indicator");
    CHECK(parse_br_code(with_crc(account + "000201" + "62070503***")).error().code ==
          "bad_format_indicator");
    CHECK(parse_br_code(with_crc("000201" + account)).error().code == "missing_field");
    CHECK(parse_br_code(with_crc("000201" + account + "62070503***5405abcde")).error().code ==
          "bad_amount");
    CHECK(parse_br_code(with_crc("000201" + account + "62070503***99")).error().code == "bad_tlv");
    CHECK(parse_br_code(with_crc("000201" + account + "62070503***000201")).error().code ==
          "bad_tlv");
    std::string wrong_gui = account;
    wrong_gui.replace(wrong_gui.find("br.gov.bcb.pix"), 14, "br.gov.bcb.pi0");
    CHECK(parse_br_code(with_crc("000201" + wrong_gui + "62070503***")).error().code == "bad_gui");
    std::string usd = account;
    usd.replace(usd.find("5303986"), 7, "5303840");
    CHECK(parse_br_code(with_crc("000201" + usd + "62070503***")).error().code == "bad_currency");
}

TEST_CASE("pix: end-to-end ids", "[pix]") {
    std::uint8_t next = 0;
    random_bytes_fn counting = [&next](std::uint8_t* buffer, std::size_t size) {
        for (std::size_t i = 0; i < size; ++i) buffer[i] = next++;
    };
    // 2026-03-10 14:05:30 UTC
    auto id = make_end_to_end_id("12345678", 1773151530000, counting);
    REQUIRE(id.ok());
    CHECK(id.value() ==
          "E12345678202603101405"
          "0123456789A");
    CHECK(check_end_to_end_id(id.value()).ok());
    CHECK(check_end_to_end_id("E12345678202406201221abcdef12345").ok());
    CHECK(check_end_to_end_id("E9040088820210128000800123873170").ok());
    CHECK(check_end_to_end_id("D12345678202009091000abcde123456", 'D').ok());
    CHECK(check_end_to_end_id("E12345678202413201221abcdef12345").error().code == "bad_timestamp");
    CHECK(check_end_to_end_id("E1234567820240620122").error().code == "bad_length");
    CHECK(check_end_to_end_id("X12345678202406201221abcdef12345").error().code == "bad_prefix");
    CHECK(check_end_to_end_id("E12345678202406201221abcdef1234-").error().code == "bad_format");
    CHECK(make_end_to_end_id("1234567", 0, counting).error().code == "bad_ispb");
    // Bytes of 248 and above are skipped, so every alphabet character stays equally likely.
    random_bytes_fn high = [](std::uint8_t* buffer, std::size_t size) {
        for (std::size_t i = 0; i < size; ++i) buffer[i] = i % 2 == 0 ? 255 : 61;
    };
    CHECK(make_end_to_end_id("12345678", 0, high).value().substr(21) == "zzzzzzzzzzz");
}

TEST_CASE("pix: rejection codes map to failure reasons", "[pix]") {
    CHECK(find_rejection_reason("AB03")->failure_reason == "TIMEOUT");
    CHECK(find_rejection_reason("AM04")->category == rejection_category::insufficient_funds);
    CHECK(find_rejection_reason("AC07")->category == rejection_category::account_closed_or_invalid);
    CHECK(find_rejection_reason("DS04")->failure_reason == "COUNTERPARTY_POST_TX_FAILED");
    CHECK_FALSE(find_rejection_reason("AC01").has_value());
    CHECK_FALSE(find_rejection_reason("NARR").has_value());
}
