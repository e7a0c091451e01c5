// ACH: routing and account numbers, the NACHA writer checked by our strict reader, moov-io/ach
// fixtures (valid and invalid), return files and the same-day cut-off windows.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "plugins/ach/cutoff_schedule.hpp"
#include "plugins/ach/nacha_reader.hpp"
#include "plugins/ach/nacha_writer.hpp"
#include "plugins/ach/return_codes.hpp"
#include "plugins/ach/us_account.hpp"

using namespace corridor::ach;

namespace {

std::string fixture(const std::string& name) {
    std::ifstream in(std::string(CORRIDOR_FORMATS_FIXTURES) + "/nacha/" + name, std::ios::binary);
    REQUIRE(in.good());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

file_header_fields header() {
    file_header_fields fields;
    fields.immediate_destination = "231380104";
    fields.immediate_origin = "121042882";
    fields.destination_name = "Citadel";
    fields.origin_name = "Corridor Sandbox";
    fields.file_id_modifier = 'A';
    fields.created_at_unix_s = 1773151200;  // 2026-03-10 14:00 UTC
    return fields;
}

batch_fields batch(service_class mix, sec_code sec) {
    batch_fields fields;
    fields.mix = mix;
    fields.sec = sec;
    fields.company_name = "Corridor";
    fields.company_id = "1234567890";
    fields.entry_description = "PAYOUT";
    fields.effective_entry_date = "260310";
    fields.odfi_routing = "121042882";
    return fields;
}

entry_fields entry(entry_direction direction, account_category category, std::uint64_t cents,
                   std::string routing = "231380104") {
    entry_fields fields;
    fields.direction = direction;
    fields.category = category;
    fields.rdfi_routing = std::move(routing);
    fields.account_number = "12345678";
    fields.amount_cents = cents;
    fields.individual_id = "Transaction01";
    fields.individual_name = "Jane Q Public";
    return fields;
}

}  // namespace

TEST_CASE("ach: routing numbers (3-7-1 check digit and prefix)", "[ach]") {
    for (const char* good : {"121042882", "231380104", "031300012", "091400606", "021000021",
                             "011000015", "026009593"}) {
        INFO(good);
        CHECK(check_routing_number(good).ok());
    }
    CHECK(check_routing_number("123456789").error().code == "bad_check_digit");
    CHECK(check_routing_number("12104288").error().code == "bad_length");
    CHECK(check_routing_number("1210428820").error().code == "bad_length");
    CHECK(check_routing_number("12104288a").error().code == "not_digits");
    // Prefix 13 is no Federal Reserve district even with a correct check digit.
    std::string prefix13 = "13104288";
    prefix13 += static_cast<char>('0' + routing_check_digit(prefix13));
    CHECK(check_routing_number(prefix13).error().code == "bad_prefix");
    CHECK(routing_check_digit("02100002") == 1);
    // Every single-digit change of a valid number is caught.
    std::string valid = "021000021";
    for (std::size_t i = 0; i < 9; ++i) {
        std::string changed = valid;
        changed[i] = static_cast<char>('0' + (changed[i] - '0' + 1) % 10);
        CHECK_FALSE(check_routing_number(changed).ok());
    }
}

TEST_CASE("ach: US_ACCOUNT validation names the field", "[ach]") {
    auto account = validate_us_account("021000021", "000123456789", "SAVINGS");
    REQUIRE(account.ok());
    CHECK(account->category == account_category::savings);
    CHECK(validate_us_account("021000021", "744-5678-99", "CHECKING").ok());
    auto bad_routing = validate_us_account("021000022", "1234", "CHECKING");
    CHECK(bad_routing.error().message.rfind("routingNumber", 0) == 0);
    auto long_account = validate_us_account("021000021", "123456789012345678", "CHECKING");
    CHECK(long_account.error().code == "bad_length");
    CHECK(long_account.error().message.rfind("accountNumber", 0) == 0);
    CHECK(validate_us_account("021000021", "12 34", "CHECKING").error().code == "bad_character");
    CHECK(validate_us_account("021000021", "", "CHECKING").error().code == "bad_length");
    CHECK(validate_us_account("021000021", "ABC-DEF", "CHECKING").error().code == "no_digit");
    CHECK(validate_us_account("021000021", "1234", "checking").error().code == "bad_category");
    CHECK(validate_us_account("021000021", "1234", "MONEY_MARKET").error().code == "bad_category");
}

TEST_CASE("ach: transaction codes by category and direction", "[ach]") {
    CHECK(transaction_code(account_category::checking, entry_direction::credit) == 22);
    CHECK(transaction_code(account_category::checking, entry_direction::debit) == 27);
    CHECK(transaction_code(account_category::savings, entry_direction::credit) == 32);
    CHECK(transaction_code(account_category::savings, entry_direction::debit) == 37);
}

TEST_CASE("ach: every moov-io/ach fixture of rails.md 1.9 parses and passes the strict check",
          "[ach]") {
    for (const char* name :
         {"ppd-debit.ach", "ppd-credit.ach", "ppd-credit-reference.ach", "same-day-ppd-credit.ach",
          "ccd-debit.ach", "web-credit.ach", "web-credit-examples.ach", "web-debit.ach",
          "return-web.ach", "cor-read.ach", "two-micro-deposits.ach"}) {
        INFO(name);
        auto file = parse_nacha(fixture(name));
        if (!file) FAIL(file.error().message);
        auto verdict = check_nacha(file.value());
        if (!verdict) FAIL(verdict.error().message);
    }
    auto ccd = parse_nacha(fixture("ccd-debit.ach"));
    CHECK(ccd->control_entry_hash == 46276020);
    CHECK(ccd->batches.at(0).entries.size() == 2);
    auto web_debit = parse_nacha(fixture("web-debit.ach"));
    CHECK(web_debit->batches.size() == 3);
    CHECK(web_debit->line_count == 20);
    CHECK(web_debit->control_block_count == 2);
    auto ppd_debit = parse_nacha(fixture("ppd-debit.ach"));
    CHECK(ppd_debit->batches.at(0).entries.at(0).transaction_code == 27);
    CHECK(ppd_debit->batches.at(0).entries.at(0).amount_cents == 100'000'000);
}

TEST_CASE("ach: the invalid fixtures are refused", "[ach]") {
    CHECK(parse_nacha(fixture("invalid-short-line.ach")).error().code == "bad_line_length");
    CHECK(parse_nacha(fixture("invalid-long-line.ach")).error().code == "bad_line_length");
    CHECK_FALSE(parse_nacha(fixture("invalid-check-digit.ach")).ok());
    CHECK_FALSE(parse_nacha(fixture("invalid-return-no-batch-controls.ach")).ok());
    CHECK_FALSE(parse_nacha(fixture("invalid-return-no-file-header-control.ach")).ok());
    CHECK(parse_nacha("").error().code == "empty_file");
}

TEST_CASE("ach: tampering with a valid file is caught by the strict check", "[ach]") {
    std::string text = fixture("ccd-debit.ach");
    auto lines = lines_of(text);
    auto rejoin = [](const std::vector<std::string>& parts) {
        std::string out;
        for (const auto& part : parts) out += part + "\n";
        return out;
    };
    SECTION("amount changed") {
        auto changed = lines;
        for (auto& line : changed)
            if (line[0] == '6') {
                line[38] = line[38] == '9' ? '8' : '9';
                break;
            }
        auto verdict = check_nacha(parse_nacha(rejoin(changed)).value());
        CHECK(verdict.error().code == "control_mismatch");
    }
    SECTION("routing check digit changed") {
        auto changed = lines;
        for (auto& line : changed)
            if (line[0] == '6') {
                line[11] = line[11] == '9' ? '8' : '9';
                break;
            }
        CHECK(check_nacha(parse_nacha(rejoin(changed)).value()).error().code == "bad_check_digit");
    }
    SECTION("a filler line dropped") {
        auto changed = lines;
        changed.pop_back();
        CHECK(check_nacha(parse_nacha(rejoin(changed)).value()).error().code == "bad_blocking");
    }
    SECTION("a record after the file control") {
        auto changed = lines;
        changed.back() = changed[2];
        CHECK(parse_nacha(rejoin(changed)).error().code == "record_after_file_control");
    }
}

TEST_CASE("ach: the writer's mixed file passes the strict check with exact totals", "[ach]") {
    batch_with_entries consumer{batch(service_class::mixed, sec_code::ppd), {}};
    consumer.entries.push_back(entry(entry_direction::credit, account_category::checking, 12'345));
    consumer.entries.push_back(
        entry(entry_direction::debit, account_category::savings, 500, "021000021"));
    auto with_addenda = entry(entry_direction::credit, account_category::savings, 99, "091400606");
    with_addenda.addenda = "Invoice 42";
    consumer.entries.push_back(with_addenda);
    batch_with_entries pulls{batch(service_class::debits_only, sec_code::web), {}};
    auto web = entry(entry_direction::debit, account_category::checking, 7'000);
    web.payment_type = "S";
    pulls.entries.push_back(web);

    auto text = write_nacha_file(header(), {consumer, pulls});
    REQUIRE(text.ok());
    auto lines = lines_of(text.value());
    REQUIRE(lines.size() == 20);  // 1 + (1+4+1) + (1+1+1) + 1 = 10 records, padded to 20
    for (const auto& line : lines) CHECK(line.size() == record_length);
    CHECK(lines[0] ==
          "101 231380104 1210428822603101400A094101Citadel                Corridor Sandbox         "
          "      ");
    CHECK(lines[1].substr(0, 4) == "5200");
    CHECK(lines[1].substr(50, 3) == "PPD");
    CHECK(lines[2].substr(0, 3) == "622");
    CHECK(lines[2].substr(79) == "121042880000001");
    CHECK(lines[3].substr(0, 3) == "637");
    CHECK(lines[4].substr(0, 3) == "632");
    CHECK(lines[4][78] == '1');
    CHECK(lines[5].substr(0, 3) == "705");
    CHECK(lines[5].substr(87) == "0000003");
    // Entry hash: 23138010 + 02100002 + 09140060 = 34378072.
    CHECK(lines[6] ==
          "8200"
          "000004"
          "0034378072"
          "000000000500"
          "000000012444"
          "1234567890" +
              std::string(25, ' ') +
              "12104288"
              "0000001");
    CHECK(lines[7].substr(0, 4) == "5225");
    CHECK(lines[8].substr(76, 2) == "S ");
    CHECK(lines[10].substr(0, 21) ==
          "9"
          "000002"
          "000002"
          "00000005");
    // File hash: 34378072 + 23138010 = 57516082.
    CHECK(lines[10].substr(21, 34) ==
          "0057516082"
          "000000007500"
          "000000012444");
    for (std::size_t i = 11; i < 20; ++i) CHECK(lines[i] == std::string(94, '9'));

    auto parsed = parse_nacha(text.value());
    REQUIRE(parsed.ok());
    auto verdict = check_nacha(parsed.value());
    if (!verdict) FAIL(verdict.error().message);
}

TEST_CASE("ach: a file of exactly 10 records has no filler", "[ach]") {
    batch_with_entries credits{batch(service_class::credits_only, sec_code::ccd), {}};
    for (int i = 0; i < 6; ++i)
        credits.entries.push_back(entry(entry_direction::credit, account_category::checking, 100));
    auto text = write_nacha_file(header(), {credits});
    REQUIRE(text.ok());
    auto lines = lines_of(text.value());
    CHECK(lines.size() == 10);
    CHECK(lines.back()[0] == '9');
    CHECK(lines.back().substr(7, 6) == "000001");
    CHECK(check_nacha(parse_nacha(text.value()).value()).ok());
}

TEST_CASE("ach: the writer refuses bad input and misuse", "[ach]") {
    auto make = [](std::vector<batch_with_entries> batches, file_header_fields head = header()) {
        return write_nacha_file(head, batches);
    };
    auto head = header();
    head.immediate_destination = "123456789";
    CHECK(make({}, head).error().code == "bad_check_digit");
    head = header();
    head.origin_name = std::string(24, 'x');
    CHECK(make({}, head).error().code == "too_long");
    head = header();
    head.file_id_modifier = 'a';
    CHECK(make({}, head).error().code == "bad_file_id_modifier");

    batch_with_entries credits{batch(service_class::credits_only, sec_code::ppd), {}};
    credits.entries.push_back(entry(entry_direction::debit, account_category::checking, 100));
    CHECK(make({credits}).error().code == "wrong_direction");
    credits.entries = {entry(entry_direction::credit, account_category::checking, 10'000'000'000)};
    CHECK(make({credits}).error().code == "amount_too_large");
    credits.entries = {entry(entry_direction::credit, account_category::checking, 0)};
    CHECK(make({credits}).error().code == "zero_amount");
    credits.entries = {entry(entry_direction::credit, account_category::checking, 1, "021000022")};
    CHECK(make({credits}).error().code == "bad_check_digit");
    auto bad_name = entry(entry_direction::credit, account_category::checking, 1);
    bad_name.individual_name = "Jos\xc3\xa9";
    credits.entries = {bad_name};
    CHECK(make({credits}).error().code == "bad_character");
    batch_with_entries web{batch(service_class::debits_only, sec_code::web), {}};
    web.entries = {entry(entry_direction::debit, account_category::checking, 1)};
    CHECK(make({web}).error().code == "bad_payment_type");
    batch_with_entries empty{batch(service_class::mixed, sec_code::ppd), {}};
    CHECK(make({empty}).error().code == "empty_batch");
    auto bad_batch = batch(service_class::mixed, sec_code::ppd);
    bad_batch.effective_entry_date = "261301";
    CHECK(make({{bad_batch, {entry(entry_direction::credit, account_category::checking, 1)}}})
              .error()
              .code == "bad_effective_date");

    std::string sink;
    auto writer = nacha_writer::open(header(), [&](std::string_view line) { sink += line; });
    REQUIRE(writer.ok());
    CHECK(writer->add_entry(entry(entry_direction::credit, account_category::checking, 1))
              .error()
              .code == "no_batch");
    CHECK(writer->begin_batch(batch(service_class::mixed, sec_code::ppd)).ok());
    CHECK(writer->begin_batch(batch(service_class::mixed, sec_code::ppd)).error().code ==
          "batch_open");
    CHECK(writer->finish().error().code == "batch_open");
}

TEST_CASE("ach: long names are cut to their field, the record stays 94 characters", "[ach]") {
    batch_with_entries credits{batch(service_class::credits_only, sec_code::ppd), {}};
    auto named = entry(entry_direction::credit, account_category::checking, 1);
    named.individual_name = "A very long beneficiary name indeed";
    credits.entries = {named};
    auto lines = lines_of(write_nacha_file(header(), {credits}).value());
    CHECK(lines[2].size() == 94);
    CHECK(lines[2].substr(54, 22) == "A very long beneficiar");
}

TEST_CASE("ach: the return fixture yields trace, code, description and failure reason", "[ach]") {
    auto returns = parse_return_file(fixture("return-web.ach"));
    if (!returns) FAIL(returns.error().message);
    REQUIRE(returns->size() == 2);
    const auto& first = returns->at(0);
    CHECK(first.return_code == "R01");
    CHECK(first.original_trace == "091400600000001");
    CHECK(first.return_trace == "091000017611242");
    CHECK(first.description == "Insufficient funds");
    CHECK(first.category == return_category::insufficient_funds);
    CHECK(first.transaction_code == 26);
    CHECK_FALSE(first.original_was_credit);
    CHECK(first.amount_cents == 12'354);
    CHECK(first.original_rdfi == "09100001");
    CHECK(first.failure_reason == "QUOTE_EXECUTION_FAILED");
    const auto& second = returns->at(1);
    CHECK(second.return_code == "R03");
    CHECK(second.original_trace == "091400600000003");
    CHECK(second.category == return_category::account_closed_or_invalid);
    CHECK(second.original_was_credit);
    CHECK(second.amount_cents == 4'565);
    CHECK(second.failure_reason == "COUNTERPARTY_POST_TX_FAILED");
}

TEST_CASE("ach: return codes R01..R29 and refused return files", "[ach]") {
    for (int number = 1; number <= 29; ++number) {
        std::string code = (number < 10 ? "R0" : "R") + std::to_string(number);
        INFO(code);
        auto reason = find_return_reason(code);
        REQUIRE(reason.has_value());
        CHECK_FALSE(reason->title.empty());
    }
    CHECK_FALSE(find_return_reason("R30").has_value());
    CHECK(find_return_reason("R16")->category == return_category::rejected);
    CHECK(find_return_reason("R29")->category == return_category::rejected);

    std::string text = fixture("return-web.ach");
    std::string unknown = text;
    unknown.replace(unknown.find("799R03"), 6, "799R99");
    auto returns = parse_return_file(unknown);
    REQUIRE(returns.ok());
    CHECK(returns->at(1).description == "unknown return code");
    CHECK_FALSE(returns->at(1).category.has_value());
    // An ordinary file is not a return file: its entries have no addenda 99.
    CHECK(parse_return_file(fixture("ppd-debit.ach")).error().code == "missing_return_addenda");
    // A return file whose controls do not add up is refused as a whole.
    std::string broken = text;
    broken.replace(broken.find("0000012354MjM"), 10, "0000012355");
    CHECK(parse_return_file(broken).error().code == "control_mismatch");
}

TEST_CASE("ach: cut-off windows in Eastern time with DST and holidays", "[ach][cutoff]") {
    // 2026-03-10 (Tuesday, EDT since 2026-03-08): 14:00 UTC = 10:00 EDT -> window 1 of the day.
    auto morning = window_for(1773151200000);
    CHECK(morning.index == 0);
    CHECK(morning.business_date == "2026-03-10");
    CHECK(morning.effective_entry_date == "260310");
    CHECK(morning.deadline_unix_ms == 1773153000000);    // 10:30 EDT = 14:30 UTC
    CHECK(morning.settlement_unix_ms == 1773162000000);  // 13:00 EDT = 17:00 UTC
    CHECK(morning.file_name_stem == "20260310-w1");
    // The deadline instant itself is still in the window; one millisecond later is not.
    CHECK(window_for(1773153000000).index == 0);
    CHECK(window_for(1773153000001).index == 1);
    // 2026-03-06 (Friday, EST): 21:00 UTC = 16:00 EST -> last window; 22:00 UTC -> Monday 03-09.
    CHECK(window_for(1772830800000).index == 2);
    CHECK(window_for(1772830800000).deadline_unix_ms == 1772833500000);  // 16:45 EST
    auto weekend = window_for(1772834400000);
    CHECK(weekend.business_date == "2026-03-09");
    CHECK(weekend.index == 0);
    CHECK(weekend.deadline_unix_ms == 1773066600000);  // 10:30 EDT on Monday = 14:30 UTC
    // Thanksgiving 2026 is 11-26; an evening on the 25th goes to Friday the 27th.
    CHECK(window_for(1795647600000).business_date == "2026-11-27");
    CHECK_FALSE(is_banking_day(2026, 11, 26));
    CHECK_FALSE(is_banking_day(2026, 1, 19));  // MLK day
    CHECK_FALSE(is_banking_day(2026, 5, 25));  // Memorial Day (last Monday)
    CHECK_FALSE(is_banking_day(2027, 7, 5));   // July 4th on a Sunday, observed Monday
    CHECK(is_banking_day(2026, 7, 3));         // July 4th 2026 is a Saturday: Friday stays open
    CHECK_FALSE(is_banking_day(2026, 6, 19));  // Juneteenth
    CHECK(is_banking_day(2026, 3, 10));
    CHECK(eastern_offset_minutes(1773151200000) == -240);
    CHECK(eastern_offset_minutes(1772830800000) == -300);
}

TEST_CASE("ach: CRLF line ends are read; an ordinary entry is not a return", "[ach]") {
    std::string text = fixture("ccd-debit.ach");
    std::string crlf;
    for (char c : text) {
        if (c == '\n') crlf += '\r';
        crlf += c;
    }
    auto parsed = parse_nacha(crlf);
    REQUIRE(parsed.ok());
    CHECK(check_nacha(parsed.value()).ok());

    // A 22 credit carrying an addenda 99 is not a return entry (21/26/31/36...).
    std::string returns = fixture("return-web.ach");
    std::string forged = returns;
    forged.replace(forged.find("626091400606"), 3, "627");
    CHECK(parse_return_file(forged).error().code == "not_a_return");
}

TEST_CASE("ach: the writer stops before the 6-digit block count overflows", "[ach]") {
    std::uint64_t bytes = 0;
    auto writer =
        nacha_writer::open(header(), [&bytes](std::string_view line) { bytes += line.size(); });
    REQUIRE(writer.ok());
    auto with_addenda = entry(entry_direction::credit, account_category::checking, 1);
    with_addenda.addenda = "x";
    std::string refusal;
    std::uint64_t written = 0;
    while (refusal.empty()) {
        if (auto verdict = writer->begin_batch(batch(service_class::credits_only, sec_code::ppd));
            !verdict) {
            refusal = verdict.error().code;
            break;
        }
        for (int i = 0; i < 499'999 && refusal.empty(); ++i) {
            auto trace = writer->add_entry(with_addenda);
            if (!trace)
                refusal = trace.error().code;
            else
                ++written;
        }
        if (refusal.empty()) REQUIRE(writer->end_batch().ok());
    }
    CHECK(refusal == "file_too_large");
    REQUIRE(writer->end_batch().ok());
    auto totals = writer->finish();
    REQUIRE(totals.ok());
    CHECK(totals->block_count == 999'999);
    CHECK(totals->line_count == 9'999'990);
    CHECK(bytes == totals->line_count * 95);
    CHECK(written > 4'900'000);
}
