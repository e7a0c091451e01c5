// Multi-row statements (ledger/store/multi_row.hpp) on both backends: values that CSV files carry
// (quotes, backslashes, commas, braces, line breaks, tabs, what COPY reads as NULL, non-ASCII,
// empty strings) and NULLs arrive intact through a multi-row insert of several chunks (on
// PostgreSQL a COPY sent in several pieces), and the lookup finds exactly the keys that exist.
#include "ledger/store/multi_row.hpp"

#include <catch2/catch.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ledger/store/database.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;
using corridor::testing::store_fixture;

namespace {

const std::vector<std::string> awkward = {
    "plain",
    "with \"quotes\"",
    "back\\slash",
    "comma, separated",
    "{braces}",
    "NULL",
    "line\nbreak",
    "tab\there",
    "carriage\rreturn",
    "\\N",
    "ends in a backslash\\",
    "Zoë Ñandú 中文",
    "",
    " padded ",
};

}  // namespace

TEST_CASE("multi-row inserts keep every value and NULL, over several chunks",
          "[store][multi_row]") {
    store_fixture world;
    world.session() << "CREATE TABLE multi_row_probe (k TEXT PRIMARY KEY, v TEXT, n BIGINT)";
    multi_row_insert insert("multi_row_probe", {{"k"}, {"v"}, {"n", column_type::integer}});
    const std::size_t rows = multi_row_chunk_rows_max * 2 + 7;
    for (std::size_t i = 0; i < rows; ++i) {
        std::optional<std::string> value;
        if (i % 11 != 0) value = awkward[i % awkward.size()];
        insert.add({"key-" + std::to_string(i), value, std::to_string(i * 1000000007LL)});
    }
    // Longer than one piece of COPY data.
    const std::string long_value(300000, 'x');
    insert.add({"key-long", long_value, "1"});
    insert.run(world.session());
    int count = 0;
    world.session() << "SELECT COUNT(*) FROM multi_row_probe", soci::into(count);
    CHECK(count == static_cast<int>(rows) + 1);
    std::string stored_long;
    world.session() << "SELECT v FROM multi_row_probe WHERE k = 'key-long'",
        soci::into(stored_long);
    CHECK(stored_long == long_value);
    for (std::size_t i : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{6},
                          std::size_t{7}, std::size_t{501}, rows - 1}) {
        std::string value;
        soci::indicator indicator = soci::i_ok;
        long long number = 0;
        std::string key = "key-" + std::to_string(i);
        world.session() << "SELECT v, n FROM multi_row_probe WHERE k = :k", soci::use(key),
            soci::into(value, indicator), soci::into(number);
        INFO("row " << i);
        if (i % 11 == 0) {
            CHECK(indicator == soci::i_null);
        } else {
            REQUIRE(indicator == soci::i_ok);
            CHECK(value == awkward[i % awkward.size()]);
        }
        CHECK(number == static_cast<long long>(i * 1000000007LL));
    }
    // Integers are stored as integers, whatever path the values took.
    int integers = 0;
    world.session() << "SELECT COUNT(*) FROM multi_row_probe WHERE n = CAST(n AS BIGINT) AND n "
                       "+ 0 = n AND n > 0",
        soci::into(integers);
    CHECK(integers == static_cast<int>(rows));  // every row but row 0 (n = 0), key-long included
    if (world.database.backend() == database_backend::sqlite) {
        int typed = 0;
        world.session() << "SELECT COUNT(*) FROM multi_row_probe WHERE typeof(n) = 'integer'",
            soci::into(typed);
        CHECK(typed == static_cast<int>(rows) + 1);
    }
    // A duplicate key fails the INSERT as a single-row one would, with an error the callers
    // recognise as a unique violation, and writes none of its rows.
    multi_row_insert again("multi_row_probe", {{"k"}, {"v"}, {"n", column_type::integer}});
    again.add({"fresh", std::nullopt, "1"});
    again.add({"key-3", std::nullopt, "1"});
    try {
        again.run(world.session());
        FAIL("the duplicate key was inserted");
    } catch (const soci::soci_error& error) {
        CHECK(is_unique_violation(error));
    }
    int fresh = -1;
    world.session() << "SELECT COUNT(*) FROM multi_row_probe WHERE k = 'fresh'", soci::into(fresh);
    CHECK(fresh == 0);
}

TEST_CASE("shared values reach every row of every chunk", "[store][multi_row]") {
    store_fixture world;
    world.session() << "CREATE TABLE multi_row_probe (k TEXT PRIMARY KEY, g TEXT, v TEXT, n "
                       "BIGINT, t BIGINT)";
    multi_row_insert insert("multi_row_probe", {{"k"}, {"v"}},
                            {{{"g"}, "group \"a\", {b}\t\\"},
                             {{"n", column_type::integer}, "7"},
                             {{"t", column_type::integer}, "1700000000123"}});
    const std::size_t rows = multi_row_chunk_rows_max + 45;  // chunks and a remainder
    for (std::size_t i = 0; i < rows; ++i) {
        std::optional<std::string> value;
        if (i % 5 != 0) value = awkward[i % awkward.size()];
        insert.add({"key-" + std::to_string(i), value});
    }
    insert.run(world.session());
    int matching = 0;
    world.session() << "SELECT COUNT(*) FROM multi_row_probe WHERE g = 'group \"a\", {b}\t\\' AND "
                       "n = 7 AND t = 1700000000123",
        soci::into(matching);
    CHECK(matching == static_cast<int>(rows));
    for (std::size_t i : {std::size_t{0}, std::size_t{1}, std::size_t{33}, rows - 1}) {
        std::string value;
        soci::indicator indicator = soci::i_ok;
        std::string key = "key-" + std::to_string(i);
        world.session() << "SELECT v FROM multi_row_probe WHERE k = :k", soci::use(key),
            soci::into(value, indicator);
        INFO("row " << i);
        if (i % 5 == 0) {
            CHECK(indicator == soci::i_null);
        } else {
            REQUIRE(indicator == soci::i_ok);
            CHECK(value == awkward[i % awkward.size()]);
        }
    }
}

TEST_CASE("select_existing finds exactly the keys present", "[store][multi_row]") {
    store_fixture world;
    world.session() << "CREATE TABLE multi_row_probe (k TEXT PRIMARY KEY, g TEXT)";
    multi_row_insert insert("multi_row_probe", {{"k"}, {"g"}});
    for (const auto& value : awkward) insert.add({value, "a"});
    insert.add({"other group", "b"});
    insert.run(world.session());
    std::vector<std::string> keys = {"absent", "other group"};
    keys.insert(keys.end(), awkward.begin(), awkward.end());
    for (int i = 0; i < 700; ++i) keys.push_back("missing-" + std::to_string(i));  // two chunks
    keys.push_back("plain");                                                       // twice
    auto found = select_existing(
        world.session(), "SELECT k FROM multi_row_probe WHERE g = :g AND k IN_LIST", {"a"}, keys);
    CHECK(found == std::set<std::string>(awkward.begin(), awkward.end()));
}
