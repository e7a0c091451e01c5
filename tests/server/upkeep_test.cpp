#include "server/workers/upkeep.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

using namespace corridor;

namespace {

// Holds what is submitted without running it: a ledger writer busy with something else.
class holding_writer final : public session_executor {
public:
    void submit(std::unique_ptr<session_job> job) override {
        std::lock_guard lock(mutex_);
        jobs_.push_back(std::move(job));
    }
    std::size_t size() {
        std::lock_guard lock(mutex_);
        return jobs_.size();
    }
    void finish_all() {
        std::lock_guard lock(mutex_);
        for (auto& job : jobs_) job->finish(job_outcome::committed);
        finished_ += jobs_.size();
        jobs_.clear();
    }

private:
    std::mutex mutex_;
    std::vector<std::unique_ptr<session_job>> jobs_;
    std::size_t finished_ = 0;
};

struct noop_job final : session_job {
    bool run(soci::session&) noexcept override { return true; }
    void finish(job_outcome) noexcept override {}
};

bool eventually(const std::function<bool()>& condition) {
    for (int i = 0; i < 500; ++i) {
        if (condition()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

}  // namespace

TEST_CASE("upkeep queues one round at a time behind a busy writer", "[server][upkeep]") {
    holding_writer writer;
    manual_clock time(1'000'000'000);
    std::vector<bool> hourly_flags;
    std::mutex flags_mutex;
    upkeep_loop loop(writer, time, 2, [&](bool hourly, std::shared_ptr<upkeep_state>) {
        std::lock_guard lock(flags_mutex);
        hourly_flags.push_back(hourly);
        return std::make_unique<noop_job>();
    });

    REQUIRE(eventually([&] { return writer.size() == 1; }));
    // Many 2 ms intervals pass while the writer holds the round: none is added behind it.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK(writer.size() == 1);

    // Once the round is over (here: done), the next one is queued.
    writer.finish_all();
    REQUIRE(eventually([&] { return writer.size() == 1; }));
    loop.stop();
    std::lock_guard lock(flags_mutex);
    REQUIRE(hourly_flags.size() == 2);
    CHECK(hourly_flags[0]);   // the first round prunes the hourly tables
    CHECK(!hourly_flags[1]);  // the next, within the hour, does not
}

TEST_CASE("a refused upkeep round does not stop the next", "[server][upkeep]") {
    // A full or stopping writer refuses a job as not committed; the loop must queue again.
    struct refusing_writer final : session_executor {
        std::atomic<int> submitted{0};
        void submit(std::unique_ptr<session_job> job) override {
            ++submitted;
            job->finish(job_outcome::not_committed);
        }
    } writer;
    manual_clock time(0);
    upkeep_loop loop(writer, time, 2, [](bool, std::shared_ptr<upkeep_state>) {
        return std::make_unique<noop_job>();
    });
    CHECK(eventually([&] { return writer.submitted >= 3; }));
}
