// Resource ids: "<Type>:<uuid v7>". Keyset pagination orders by id, so the tests check the uuid
// layout bit by bit and that ids sort strictly in the order they were made, including many ids in
// one millisecond (the 12-bit counter and its overflow) and a clock that steps back.
#include "ledger/store/ids.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ledger/base/clock.hpp"
#include "ledger/base/random.hpp"

using namespace corridor;

namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

// The 48-bit big-endian millisecond timestamp at the front of a uuid v7.
std::int64_t timestamp_of(const std::string& uuid) {
    std::int64_t ms = 0;
    for (char c : uuid.substr(0, 13)) {
        if (c == '-') continue;
        ms = ms * 16 + hex_digit(c);
    }
    return ms;
}

// The 12-bit rand_a field, which this generator uses as the per-millisecond counter.
int counter_of(const std::string& uuid) {
    return hex_digit(uuid[15]) * 256 + hex_digit(uuid[16]) * 16 + hex_digit(uuid[17]);
}

}  // namespace

TEST_CASE("uuid v7 layout: lower-case hex, dashes, version 7, RFC 9562 variant, timestamp",
          "[ledger][ids]") {
    // 2025-10-13T08:30:00.123Z is 0x199dcb0d3bb milliseconds after the epoch.
    manual_clock clock(1760344200123);
    seeded_random random(7);
    id_generator ids(clock, random);
    for (int i = 0; i < 200; ++i) {
        std::string uuid = ids.next_uuid();
        REQUIRE(uuid.size() == 36);
        for (std::size_t at = 0; at < uuid.size(); ++at) {
            if (at == 8 || at == 13 || at == 18 || at == 23) {
                REQUIRE(uuid[at] == '-');
            } else {
                INFO(uuid << " at " << at);
                REQUIRE(hex_digit(uuid[at]) >= 0);
            }
        }
        CHECK(uuid.substr(0, 13) == "0199dcb0-d3bb");
        CHECK(uuid[14] == '7');
        // Variant 10xx: the first digit of the fourth group is 8, 9, a or b.
        CHECK((hex_digit(uuid[19]) & 0xc) == 0x8);
        CHECK(is_uuid(uuid));
    }
}

TEST_CASE("typed ids carry the type and a uuid", "[ledger][ids]") {
    manual_clock clock(1760344200123);
    seeded_random random(7);
    id_generator ids(clock, random);
    std::string id = ids.next("Customer");
    REQUIRE(id.starts_with("Customer:"));
    CHECK(is_typed_id("Customer", id));
    CHECK_FALSE(is_typed_id("Token", id));
    CHECK_FALSE(is_typed_id("Customers", id));
    CHECK_FALSE(is_typed_id("Custome", id));
    CHECK_FALSE(is_typed_id("Customer", id.substr(0, id.size() - 1)));
    CHECK_FALSE(is_typed_id("Customer", id + "0"));
    CHECK_FALSE(is_typed_id("Customer", "Customer-" + id.substr(9)));
    CHECK_FALSE(is_typed_id("Customer", id.substr(9)));
    std::string broken = id;
    broken[9 + 8] = '0';  // a digit where a dash belongs
    CHECK_FALSE(is_typed_id("Customer", broken));
    broken = id;
    broken[12] = 'g';
    CHECK_FALSE(is_typed_id("Customer", broken));
    CHECK_FALSE(is_typed_id("Customer", ""));
}

TEST_CASE("is_uuid checks shape only", "[ledger][ids]") {
    CHECK(is_uuid("0199dcb0-d3bb-7000-8000-000000000000"));
    CHECK(is_uuid("0199DCB0-D3BB-7000-8000-00000000000A"));
    CHECK_FALSE(is_uuid("0199dcb0-d3bb-7000-8000-00000000000"));
    CHECK_FALSE(is_uuid("0199dcb0-d3bb-7000-8000-0000000000000"));
    CHECK_FALSE(is_uuid("0199dcb0d3bb-7000-8000-0000000000000"));
    CHECK_FALSE(is_uuid("0199dcb0-d3bb-7000-8000_000000000000"));
    CHECK_FALSE(is_uuid("0199dcb0-d3bb-7000-8000-00000000000z"));
    CHECK_FALSE(is_uuid("{199dcb0-d3bb-7000-8000-000000000000"));
    CHECK_FALSE(is_uuid(""));
}

TEST_CASE("ids made in one millisecond sort strictly in creation order", "[ledger][ids]") {
    // 10000 ids with the clock standing still: more than the 4096 values of the 12-bit counter,
    // so the generator must carry into the timestamp and still never go backwards.
    manual_clock clock(1760344200123);
    seeded_random random(11);
    id_generator ids(clock, random);
    std::vector<std::string> made;
    for (int i = 0; i < 10000; ++i) made.push_back(ids.next_uuid());
    for (std::size_t i = 1; i < made.size(); ++i) {
        INFO("id " << i << ": " << made[i - 1] << " then " << made[i]);
        REQUIRE(made[i - 1] < made[i]);
    }
    // The counter counts within a millisecond, and the timestamp runs ahead of the clock by no
    // more than the overflow needs (10000 ids need two extra milliseconds).
    CHECK(counter_of(made[1]) == counter_of(made[0]) + 1);
    CHECK(timestamp_of(made.front()) == 1760344200123);
    CHECK(timestamp_of(made.back()) == 1760344200123 + 2);
    for (const auto& uuid : made) REQUIRE(uuid[14] == '7');
}

TEST_CASE("a new millisecond restarts the counter; a clock stepping back keeps the order",
          "[ledger][ids]") {
    manual_clock clock(1760344200000);
    seeded_random random(3);
    id_generator ids(clock, random);
    std::string first = ids.next_uuid();
    std::string second = ids.next_uuid();
    clock.advance_ms(5);
    std::string later = ids.next_uuid();
    CHECK(first < second);
    CHECK(second < later);
    CHECK(timestamp_of(later) == 1760344200005);
    CHECK(counter_of(later) == 0);

    clock.set_ms(1760344100000);  // NTP steps the wall clock back 100 s
    std::string after_step = ids.next_uuid();
    CHECK(later < after_step);
    CHECK(timestamp_of(after_step) == 1760344200005);
}

TEST_CASE("ids from one generator are unique across threads", "[ledger][ids]") {
    manual_clock clock(1760344200000);
    os_random random;
    id_generator ids(clock, random);
    constexpr int threads_count = 4;
    constexpr int ids_per_thread = 3000;
    std::vector<std::vector<std::string>> made(threads_count);
    std::vector<std::thread> threads;
    for (int t = 0; t < threads_count; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < ids_per_thread; ++i) {
                made[t].push_back(ids.next("Token"));
                if (i % 500 == 0) clock.advance_ms(1);
            }
        });
    }
    for (auto& thread : threads) thread.join();
    std::set<std::string> unique;
    for (const auto& list : made) {
        // Each thread sees its own ids in increasing order.
        CHECK(std::is_sorted(list.begin(), list.end()));
        unique.insert(list.begin(), list.end());
    }
    CHECK(unique.size() == threads_count * ids_per_thread);
}

TEST_CASE("a seeded random source replays the same ids", "[ledger][ids]") {
    manual_clock clock(1760344200000);
    seeded_random first_random(99), second_random(99), other_random(100);
    id_generator first(clock, first_random), second(clock, second_random),
        other(clock, other_random);
    for (int i = 0; i < 20; ++i) {
        auto a = first.next_uuid();
        auto b = second.next_uuid();
        auto c = other.next_uuid();
        REQUIRE(a == b);
        // Same time and counter, different random tail.
        REQUIRE(a.substr(0, 19) == c.substr(0, 19));
        REQUIRE(a.substr(19) != c.substr(19));
    }
}

TEST_CASE("a forked child never hands out its parent's random bytes", "[ledger][random]") {
    os_random random;
    std::array<std::uint8_t, 16> first{};
    random.fill(first);  // the parent's block now holds unused bytes
    int pipe_ends[2];
    REQUIRE(pipe(pipe_ends) == 0);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        std::array<std::uint8_t, 16> drawn{};
        random.fill(drawn);
        bool written =
            write(pipe_ends[1], drawn.data(), drawn.size()) == static_cast<ssize_t>(drawn.size());
        _exit(written ? 0 : 1);
    }
    close(pipe_ends[1]);
    std::array<std::uint8_t, 16> in_child{};
    REQUIRE(read(pipe_ends[0], in_child.data(), in_child.size()) ==
            static_cast<ssize_t>(in_child.size()));
    close(pipe_ends[0]);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status));
    std::array<std::uint8_t, 16> in_parent{};
    random.fill(in_parent);  // the next bytes of the parent's block
    CHECK(in_child != in_parent);
}

TEST_CASE("first_id_at splits a type's ids at a millisecond: those made before sort below it",
          "[ledger][ids]") {
    manual_clock clock(1760344200000);
    seeded_random random(5);
    id_generator ids(clock, random);
    std::vector<std::string> before;
    for (int i = 0; i < 50; ++i) before.push_back(ids.next("Webhook"));
    clock.advance_ms(1);
    std::string at = ids.next("Webhook");
    clock.advance_ms(4095);  // a carry across the low digits of the time
    std::string later = ids.next("Webhook");
    std::string bound = first_id_at("Webhook", 1760344200001);
    CHECK(bound == "Webhook:" + at.substr(8, 13) + "-0000-0000-000000000000");
    for (const auto& id : before) CHECK(id < bound);
    CHECK_FALSE(at < bound);
    CHECK_FALSE(later < bound);
    CHECK(first_id_at("Webhook", 1760344200000) <= before.front());
    CHECK(timestamp_of(first_id_at("Webhook", 1760344204096).substr(8)) == 1760344204096);
    CHECK(first_id_at("Webhook", 0) == "Webhook:00000000-0000-0000-0000-000000000000");
}
