// ISO 3166-1 alpha-2 country codes (nationality and address country of customers). The expected
// set is written out here from the ISO 3166 maintenance agency's list as published by the
// iso-codes project, independently of the table in ledger/base/countries.cpp, and every one of the 676
// two-letter combinations is checked against it, which also catches a mis-sorted table (the lookup
// is a binary search).
#include "ledger/base/countries.hpp"

#include <catch2/catch.hpp>
#include <set>
#include <sstream>
#include <string>

using namespace corridor;

namespace {

const char* const assigned_codes =
    "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ "
    "BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS "
    "BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN "
    "CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE "
    "EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF "
    "GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM "
    "HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM "
    "JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC "
    "LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK "
    "ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA "
    "NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG "
    "PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW "
    "SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS "
    "ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO "
    "TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI "
    "VN VU WF WS YE YT ZA ZM ZW";

std::set<std::string> expected_codes() {
    std::set<std::string> codes;
    std::istringstream in(assigned_codes);
    for (std::string code; in >> code;) codes.insert(code);
    return codes;
}

}  // namespace

TEST_CASE("exactly the assigned ISO 3166-1 alpha-2 codes are countries", "[ledger][countries]") {
    auto expected = expected_codes();
    REQUIRE(expected.size() == 249);
    int accepted = 0;
    for (char first = 'A'; first <= 'Z'; ++first) {
        for (char second = 'A'; second <= 'Z'; ++second) {
            std::string code{first, second};
            INFO(code);
            CHECK(is_country_code(code) == expected.contains(code));
            if (is_country_code(code)) ++accepted;
        }
    }
    CHECK(accepted == 249);
}

TEST_CASE("country codes are upper-case pairs; reserved and user-assigned codes are not countries",
          "[ledger][countries]") {
    CHECK(is_country_code("US"));
    CHECK(is_country_code("SS"));  // South Sudan, assigned 2011
    CHECK_FALSE(is_country_code("us"));
    CHECK_FALSE(is_country_code("Us"));
    CHECK_FALSE(is_country_code("USA"));
    CHECK_FALSE(is_country_code("U"));
    CHECK_FALSE(is_country_code(""));
    CHECK_FALSE(is_country_code("UK"));  // exceptionally reserved; the code is GB
    CHECK_FALSE(is_country_code("EU"));  // exceptionally reserved
    CHECK_FALSE(is_country_code("XK"));  // user-assigned (Kosovo)
    CHECK_FALSE(is_country_code("AN"));  // withdrawn (Netherlands Antilles)
    CHECK_FALSE(is_country_code("ZZ"));
    CHECK_FALSE(is_country_code(std::string_view("U\0", 2)));
}
