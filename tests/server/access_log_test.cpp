// The hand-written access-log line must stay byte-for-byte what boost::json::serialize gives for
// the same object, which is what operators' log pipelines were built against.
#include <catch2/catch.hpp>

#include <boost/json.hpp>

#include "server/process/access_log.hpp"

namespace corridor {
namespace {

std::string reference_line(const access_entry& entry) {
    boost::json::object line{{"requestId", entry.request_id},
                             {"method", entry.method},
                             {"path", entry.path},
                             {"status", entry.status},
                             {"durationUs", entry.duration_us},
                             {"bytesIn", entry.bytes_in},
                             {"bytesOut", entry.bytes_out}};
    if (!entry.client_id.empty()) line["clientId"] = entry.client_id;
    if (entry.remote) line["remote"] = *entry.remote;
    return boost::json::serialize(line) + "\n";
}

}  // namespace

TEST_CASE("JSON strings are escaped as boost::json escapes them", "[http][access_log]") {
    for (int byte = 0; byte < 256; ++byte) {
        std::string text = "a";
        text.push_back(static_cast<char>(byte));
        text += "z";
        std::string ours;
        append_json_string(ours, text);
        INFO("byte " << byte);
        CHECK(ours == boost::json::serialize(boost::json::string_view(text)));
    }
    std::string mixed = "/2025-10-13/customers/\"x\\y\"\n\t\x01\x7f\xc3\xa9\xff end";
    std::string ours;
    append_json_string(ours, mixed);
    CHECK(ours == boost::json::serialize(boost::json::string_view(mixed)));
    ours.clear();
    append_json_string(ours, "");
    CHECK(ours == "\"\"");
}

TEST_CASE("access-log lines match the boost::json serialization", "[http][access_log]") {
    std::string remote = "127.0.0.1";
    access_entry full{"req_0a74e0b4f340_1", "GET", "/2025-10-13/config", 200, 55, 0, 1857,
                      "sbx_0d2f7dd22ebf311c99f76d9155470562", &remote};
    std::string ours;
    append_access_line(ours, full);
    CHECK(ours == reference_line(full));
    CHECK(ours ==
          R"({"requestId":"req_0a74e0b4f340_1","method":"GET","path":"/2025-10-13/config","status":200,)"
          R"("durationUs":55,"bytesIn":0,"bytesOut":1857,"clientId":"sbx_0d2f7dd22ebf311c99f76d9155470562",)"
          R"("remote":"127.0.0.1"})"
          "\n");

    access_entry unread{"", "<unknown>", "", 413, 9'000'000'000, 0, 18'446'744'073'709'551'615ull, "",
                        nullptr};
    ours.clear();
    append_access_line(ours, unread);
    CHECK(ours == reference_line(unread));

    access_entry odd{"client-abc.1:x", "DELETE", "/a\"b\\c\x1f", 404, 0, 12, 0, "", &remote};
    ours.clear();
    append_access_line(ours, odd);
    CHECK(ours == reference_line(odd));
}

TEST_CASE("bank-link tokens in paths are not logged", "[http][access_log]") {
    std::string storage;
    const std::string token = "link-sandbox-" + std::string(64, 'a');
    CHECK(loggable_path("/2025-10-13/customers", storage) == "/2025-10-13/customers");
    CHECK(loggable_path("/bank-link/" + token, storage) == "/bank-link/***");
    auto callback = "/2025-10-13/bank-link/callback/" + token;
    CHECK(loggable_path(callback, storage) == "/2025-10-13/bank-link/callback/***");
    CHECK(loggable_path("/2025-10-13/bank-link/link-tokens", storage) == "/2025-10-13/bank-link/link-tokens");
    CHECK(loggable_path("/bank-link/link-production-abc/x", storage) == "/bank-link/***/x");
    CHECK(loggable_path("/a/blink-x/b", storage) == "/a/blink-x/b");
    CHECK(storage.find('a' + std::string(63, 'a')) == std::string::npos);
}

}  // namespace corridor
