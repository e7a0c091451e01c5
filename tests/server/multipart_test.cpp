// The streaming multipart/form-data reader: boundaries from Content-Type, parts with their names,
// data split at every possible chunk boundary, preamble and epilogue, and malformed bodies.
#include "server/api/multipart.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace corridor;

namespace {

struct part {
    std::string name, filename, data;
};

struct outcome {
    bool ok = false;
    std::string error;
    std::vector<part> parts;
};

outcome read_in_chunks(const std::string& body, std::size_t chunk,
                       const std::string& boundary = "XyZ") {
    outcome out;
    multipart_reader reader(
        boundary,
        [&](const multipart_part_head& head) {
            out.parts.push_back({head.name, head.filename, ""});
        },
        [&](std::string_view data) { out.parts.back().data.append(data); }, [] {});
    out.ok = true;
    for (std::size_t i = 0; i < body.size() && out.ok; i += chunk) {
        out.ok = reader.feed(std::string_view(body).substr(i, chunk));
    }
    if (out.ok) out.ok = reader.finish();
    out.error = reader.error();
    return out;
}

const std::string two_parts =
    "preamble to ignore\r\n"
    "--XyZ\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n"
    "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n"
    "Content-Type: text/csv\r\n\r\nh1,h2\r\n1,\"--XyZ not at a line start\"\r\n-\r\n"
    "--XyZ--\r\nepilogue";

}  // namespace

TEST_CASE("multipart boundary is read from a multipart/form-data content type", "[multipart]") {
    CHECK(multipart_boundary("multipart/form-data; boundary=abc") == "abc");
    CHECK(multipart_boundary("Multipart/Form-Data ; charset=utf-8; Boundary=\"a b;c\"") == "a b;c");
    CHECK_FALSE(multipart_boundary("application/json"));
    CHECK_FALSE(multipart_boundary("multipart/form-data"));
    CHECK_FALSE(multipart_boundary("multipart/form-data; boundary=" + std::string(71, 'x')));
    CHECK_FALSE(multipart_boundary("multipart/mixed; boundary=abc"));
}

TEST_CASE("multipart parts come out whole whatever the chunk size", "[multipart]") {
    for (std::size_t chunk : {1u, 2u, 3u, 5u, 7u, 16u, 64u, 4096u}) {
        INFO("chunk " << chunk);
        auto result = read_in_chunks(two_parts, chunk);
        INFO(result.error);
        REQUIRE(result.ok);
        REQUIRE(result.parts.size() == 2);
        CHECK(result.parts[0].name == "note");
        CHECK(result.parts[0].data == "hello");
        CHECK(result.parts[1].name == "file");
        CHECK(result.parts[1].filename == "a.csv");
        CHECK(result.parts[1].data == "h1,h2\r\n1,\"--XyZ not at a line start\"\r\n-");
    }
}

TEST_CASE("multipart body may open with its boundary and hold an empty part", "[multipart]") {
    auto result = read_in_chunks(
        "--XyZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n\r\n--XyZ--", 4);
    REQUIRE(result.ok);
    REQUIRE(result.parts.size() == 1);
    CHECK(result.parts[0].data.empty());
}

TEST_CASE("multipart refuses malformed bodies", "[multipart]") {
    auto truncated =
        read_in_chunks("--XyZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc", 3);
    CHECK_FALSE(truncated.ok);
    CHECK(truncated.error.find("closing boundary") != std::string::npos);
    CHECK_FALSE(read_in_chunks("--XyZ\r\nContent-Type: text/plain\r\n\r\nabc\r\n--XyZ--", 8).ok);
    CHECK_FALSE(read_in_chunks(
                    "--XyZ\r\nContent-Disposition: attachment; name=\"f\"\r\n\r\nabc\r\n--XyZ--", 8)
                    .ok);
    CHECK_FALSE(read_in_chunks("--XyZ\r\nno colon here\r\n\r\nabc\r\n--XyZ--", 8).ok);
    CHECK_FALSE(read_in_chunks("no boundary at all", 4).ok);
    CHECK_FALSE(read_in_chunks("--XyZ\r\n" + std::string(10000, 'h') + "\r\n\r\n", 512).ok);
}
