// The incremental CSV reader: RFC 4180 quoting, line ends, the BOM, blank lines, malformed records
// that are skipped without losing the next one, the record size bound, and resuming at an offset.
#include "ledger/base/csv_reader.hpp"

#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

using namespace corridor;

namespace {

struct read_result {
    std::vector<std::vector<std::string>> records;
    std::vector<std::string> errors;  // "" for a good record
};

read_result read_all(const std::string& text, std::size_t record_bytes_max = 1024) {
    std::istringstream in(text);
    csv_reader reader(in, 0, record_bytes_max);
    read_result out;
    std::vector<std::string> fields;
    for (;;) {
        auto status = reader.next(fields);
        if (status == csv_status::end) break;
        out.records.push_back(status == csv_status::record ? fields : std::vector<std::string>{});
        out.errors.push_back(status == csv_status::record ? "" : reader.error());
    }
    return out;
}

using rows = std::vector<std::vector<std::string>>;

}  // namespace

TEST_CASE("csv reader splits plain records on LF and CRLF and skips blank lines", "[csv]") {
    auto result = read_all("a,b,c\r\n1,,3\n\n\r\nx,y,z");
    CHECK(result.records == rows{{"a", "b", "c"}, {"1", "", "3"}, {"x", "y", "z"}});
    CHECK(read_all("").records.empty());
    CHECK(read_all("only\n").records == rows{{"only"}});
    CHECK(read_all("a,\n").records == rows{{"a", ""}});
}

TEST_CASE("csv reader honours quotes, doubled quotes, commas and line breaks inside quotes",
          "[csv]") {
    auto result = read_all("\"a,b\",\"say \"\"hi\"\"\",\"line1\nline2\r\nline3\"\n\"\",x\n");
    REQUIRE(result.records.size() == 2);
    CHECK(result.records[0] ==
          std::vector<std::string>{"a,b", "say \"hi\"", "line1\nline2\r\nline3"});
    CHECK(result.records[1] == std::vector<std::string>{"", "x"});
}

TEST_CASE("csv reader skips a UTF-8 byte order mark only at the start", "[csv]") {
    CHECK(read_all("\xEF\xBB\xBFname,x\n1,2\n").records == rows{{"name", "x"}, {"1", "2"}});
    CHECK(read_all("a\n\xEF\xBB\xBF"
                   "b\n")
              .records == rows{{"a"},
                               {"\xEF\xBB\xBF"
                                "b"}});
    CHECK(read_all("\xEF\xBB").records == rows{{"\xEF\xBB"}});  // shorter than a BOM
}

TEST_CASE("csv reader reports malformed records and continues with the next line", "[csv]") {
    auto result = read_all("ok,1\nbad\"quote,2\n\"closed\"junk,3\nok,4\n");
    REQUIRE(result.records.size() == 4);
    CHECK(result.errors[0].empty());
    CHECK(result.errors[1].find("quote inside an unquoted field") != std::string::npos);
    CHECK(result.errors[2].find("closing quote") != std::string::npos);
    CHECK(result.records[3] == std::vector<std::string>{"ok", "4"});

    auto open = read_all("a\n\"never closed,\nmore\n");
    REQUIRE(open.records.size() == 2);
    CHECK(open.errors[1].find("not closed") != std::string::npos);
}

TEST_CASE("csv reader bounds the size of a record", "[csv]") {
    auto result =
        read_all(std::string(100, 'x') + "\nshort\n\"" + std::string(100, 'y') + "\"\nend\n", 50);
    REQUIRE(result.records.size() == 4);
    CHECK(result.errors[0].find("longer than 50") != std::string::npos);
    CHECK(result.records[1] == std::vector<std::string>{"short"});
    CHECK(result.errors[2].find("longer than 50") != std::string::npos);
    CHECK(result.records[3] == std::vector<std::string>{"end"});
}

TEST_CASE("csv reader offsets let a later reader resume at the next record", "[csv]") {
    std::string text = "\xEF\xBB\xBFh1,h2\n\"a\nb\",1\r\nc,2\n";
    std::istringstream in(text);
    csv_reader reader(in, 0, 1024);
    std::vector<std::string> fields;
    REQUIRE(reader.next(fields) == csv_status::record);
    REQUIRE(reader.next(fields) == csv_status::record);
    auto offset = reader.offset();
    CHECK(offset == text.find("c,2"));

    std::istringstream again(text);
    again.seekg(static_cast<std::streamoff>(offset));
    csv_reader resumed(again, offset, 1024);
    REQUIRE(resumed.next(fields) == csv_status::record);
    CHECK(fields == std::vector<std::string>{"c", "2"});
    CHECK(resumed.offset() == text.size());
    CHECK(resumed.next(fields) == csv_status::end);
}
