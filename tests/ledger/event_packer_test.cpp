// Payloads packed off the ledger writer's thread are the very text the writer would have stored
// (pack_event_payload), whether the packer or the writer itself packs them, in whatever order they
// are taken; payloads never taken do not keep the packer from stopping.
#include "ledger/store/event_packer.hpp"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "ledger/store/event_payloads.hpp"

using namespace corridor;

namespace {

std::string payload(int i) {
    return R"({"transaction":{"id":"Transaction:)" + std::to_string(i) + R"(","note":")" +
           std::string(static_cast<std::size_t>(i % 97), static_cast<char>('a' + i % 26)) +
           R"(","amount":)" + std::to_string(i * 37) + "}}";
}

}  // namespace

TEST_CASE("event packer: a payload packed off the writer is the text the writer would store",
          "[webhooks]") {
    event_packer packer;
    for (int round = 0; round < 3; ++round) {
        std::vector<std::shared_ptr<event_packer::job>> jobs;
        constexpr int count = 200;
        for (int i = 0; i < count; ++i) jobs.push_back(packer.submit(payload(round * count + i)));
        // Taken from the last in one round (the writer packs what the packer has not reached),
        // from the first in another, and after the packer has had time in the third.
        std::vector<std::string> taken(count);
        if (round == 0) {
            for (int i = count - 1; i >= 0; --i) taken[i] = packer.take(jobs[i]);
        } else {
            for (int i = 0; i < count; ++i) taken[i] = packer.take(jobs[i]);
        }
        for (int i = 0; i < count; ++i) {
            std::string json = payload(round * count + i);
            CHECK(taken[i] == pack_event_payload(json));
            CHECK(unpack_event_payload(taken[i]) == json);
        }
    }
}

TEST_CASE("event packer: stops with payloads never taken", "[webhooks]") {
    auto packer = std::make_unique<event_packer>();
    std::vector<std::shared_ptr<event_packer::job>> dropped;
    for (int i = 0; i < 100; ++i) dropped.push_back(packer->submit(payload(i)));
    auto kept = packer->submit(payload(1000));
    CHECK(unpack_event_payload(packer->take(kept)) == payload(1000));
    packer.reset();  // joins its thread
    CHECK(dropped.size() == 100);
}

TEST_CASE("event packer: a few payloads started at the writer's word are the same text",
          "[webhooks]") {
    event_packer packer;
    for (int round = 0; round < 20; ++round) {
        // Fewer than wake an idle packer on their own; start_queued wakes it for them, and the
        // writer takes them while it may be packing them (from the last, as the flush does).
        std::vector<std::shared_ptr<event_packer::job>> jobs;
        for (int i = 0; i < 5; ++i) jobs.push_back(packer.submit(payload(round * 5 + i)));
        packer.start_queued();
        packer.start_queued();  // a second word while it works changes nothing
        for (int i = 4; i >= 0; --i) {
            std::string json = payload(round * 5 + i);
            std::string taken = packer.take(jobs[i]);
            CHECK(taken == pack_event_payload(json));
            CHECK(unpack_event_payload(taken) == json);
        }
    }
    packer.start_queued();  // nothing queued: nothing to do
}
