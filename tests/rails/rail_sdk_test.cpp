// The rail SDK's helpers (rails/rail_sdk/): the settings JSON reader, host-time timers, and the
// durable journal's torn-line recovery, as a plugin author uses them.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "rails/plugin_sdk.hpp"

namespace sdk = corridor::rail_sdk;

namespace {

std::string error_of(std::string_view text) {
    try {
        sdk::json::parse(text);
    } catch (const sdk::json::settings_error& error) {
        CHECK(error.code() == CORRIDOR_RAIL_INVALID_ARGUMENT);
        return error.what();
    }
    return "(no error)";
}

template <class Read>
std::string setting_error(Read&& read) {
    try {
        read();
    } catch (const sdk::rail_error& error) {
        CHECK(error.code() == CORRIDOR_RAIL_INVALID_ARGUMENT);
        return error.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("the SDK reads settings JSON and names the key at fault", "[rails][sdk]") {
    auto settings = sdk::json::parse_object(
        R"({"data_dir":"/var/lib/x","delay_ms":-250,"big":9007199254740993,"on":true,)"
        R"("name":"S\u00e3o \"Paulo\"\n","nested":{"list":[1,"two",null,{"k":false}]}})");
    CHECK(settings.text("data_dir") == "/var/lib/x");
    CHECK(settings.integer("delay_ms") == -250);
    CHECK(settings.integer("big") == 9007199254740993LL);  // exact, not through a double
    CHECK(settings.boolean_or("on", false));
    CHECK(settings.boolean_or("absent", true));
    CHECK(settings.text("name") == "S\xc3\xa3o \"Paulo\"\n");
    CHECK(settings.integer_or("absent", 7) == 7);
    CHECK(settings.text_or("absent", "fallback") == "fallback");
    const auto* list = settings.find("nested")->find("list");
    REQUIRE(list != nullptr);
    REQUIRE(list->items().size() == 4);
    CHECK(list->items()[1].raw() == "two");
    CHECK(list->items()[2].type() == sdk::json::value::kind::null);
    CHECK_FALSE(list->items()[3].find("k")->as_bool());

    CHECK(setting_error([&] { settings.text("missing"); }) ==
          "missing is required and must be a non-empty string");
    CHECK(setting_error([&] { settings.integer("name"); }) == "name must be an integer");
    CHECK(setting_error([&] { settings.text_or("delay_ms", ""); }) == "delay_ms must be a string");
    CHECK(setting_error([&] { sdk::json::parse_object(R"({"x":1.5})").integer("x"); }) ==
          "x must be an integer");
    CHECK(setting_error([&] {
              sdk::json::parse_object(R"({"x":99999999999999999999})").integer("x");
          }) == "x is out of range");
    // A bare sign scans as a number but is none: the key is named, not an INTERNAL error.
    CHECK(setting_error([&] { sdk::json::parse_object(R"({"x":-})").integer("x"); }) ==
          "x must be an integer");
    CHECK(setting_error([] { sdk::json::parse_object("[1]"); }) ==
          "settings must be a JSON object");

    CHECK(error_of(R"({"a":1,})") == "invalid JSON at offset 7: expected a string");
    CHECK(error_of(R"({"a" 1})") == "invalid JSON at offset 5: expected ':'");
    CHECK(error_of(R"({"a":"open)") == "invalid JSON at offset 10: unterminated string");
    CHECK(error_of(R"({"a":1} x)") ==
          "invalid JSON at offset 8: unexpected text after the JSON value");
    CHECK(error_of(std::string(100, '[')) == "invalid JSON at offset 64: nested too deeply");
}

TEST_CASE("host timers fall due on host time, earliest first, once", "[rails][sdk]") {
    sdk::host_timers<std::string> timers;
    timers.at(300, "c");
    timers.at(100, "a");
    timers.at(200, "b");
    CHECK(timers.take_due(99).empty());
    CHECK(timers.take_due(200) == std::vector<std::string>{"a", "b"});
    CHECK(timers.size() == 1);
    CHECK(timers.take_due(200).empty());
    CHECK(timers.take_due(10000) == std::vector<std::string>{"c"});
    CHECK(timers.empty());

    sdk::host_clock clock;
    clock.observe(5000);
    clock.observe(4000);  // a caller's clock going back does not move the plugin's
    CHECK(clock.now_ms() == 5000);
}

TEST_CASE("the SDK's journal drops a torn last line and keeps what was appended", "[rails][sdk]") {
    auto dir = std::filesystem::temp_directory_path() / "corridor-rail-sdk-journal-test";
    std::filesystem::remove_all(dir);
    {
        sdk::files::line_log journal(dir / "log");
        journal.append("one");
        journal.append("two");
    }
    std::ofstream(dir / "log", std::ios::app) << "thr";  // a crash in the middle of an append
    {
        sdk::files::line_log journal(dir / "log");
        CHECK(journal.lines_at_open() == std::vector<std::string>{"one", "two"});
        CHECK(journal.cut_at_open() == 3);
        journal.append("three");
    }
    CHECK(sdk::files::read_whole_file(dir / "log") == "one\ntwo\nthree\n");
    sdk::files::write_whole_file(dir / "whole", "all or nothing");
    CHECK(sdk::files::read_whole_file(dir / "whole") == "all or nothing");
    std::filesystem::remove_all(dir);
}
