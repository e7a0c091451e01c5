// A thread finishing a batch of jobs wakes each waiting thread once, when the batch is done:
// wakes asked for inside a finish_scope run at its end, once per key and in the order first
// asked; outside a scope (a pool thread) the caller wakes at once.
#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

#include "ledger/store/session_job.hpp"

using namespace corridor;

TEST_CASE("finish scope: wakes run once per key when the batch is finished", "[writer]") {
    std::vector<std::string> woken;
    int first_key = 0, second_key = 0;
    {
        finish_scope finishing;
        for (int job = 0; job < 5; ++job) {
            CHECK(finish_scope::defer(&first_key, [&] { woken.push_back("first"); }));
            if (job % 2 == 0)
                CHECK(finish_scope::defer(&second_key, [&] { woken.push_back("second"); }));
            CHECK(woken.empty());  // nothing runs while the batch is still being finished
        }
    }
    CHECK(woken == std::vector<std::string>{"first", "second"});

    // After the scope, and on a thread that never had one, the caller wakes at once.
    CHECK_FALSE(finish_scope::defer(&first_key, [&] { woken.push_back("late"); }));
    bool deferred_elsewhere = true;
    {
        finish_scope finishing;
        std::thread other([&] {
            deferred_elsewhere = finish_scope::defer(&first_key, [&] { woken.push_back("x"); });
        });
        other.join();
    }
    CHECK_FALSE(deferred_elsewhere);
    CHECK(woken == std::vector<std::string>{"first", "second"});
}

TEST_CASE("finish scope: an inner scope wakes at its own end", "[writer]") {
    std::vector<int> woken;
    int key = 0;
    {
        finish_scope outer;
        CHECK(finish_scope::defer(&key, [&] { woken.push_back(1); }));
        {
            finish_scope inner;
            CHECK(finish_scope::defer(&key, [&] { woken.push_back(2); }));
        }
        CHECK(woken == std::vector<int>{2});
    }
    CHECK(woken == std::vector<int>{2, 1});
}
