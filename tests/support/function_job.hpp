#pragma once
// A ledger-writer job that runs a function on the writer's session and reports, through a promise,
// whether its batch committed: for tests that queue work on the writer as the server does.
#include <functional>
#include <future>
#include <memory>
#include <utility>

#include "ledger/store/session_job.hpp"

namespace corridor::testing {

class function_job final : public session_job {
public:
    function_job(std::function<bool(soci::session&)> work, std::promise<bool> done)
        : work_(std::move(work)), done_(std::move(done)) {}
    bool run(soci::session& session) noexcept override {
        try {
            return work_(session);
        } catch (...) {
            return false;
        }
    }
    void finish(job_outcome outcome) noexcept override {
        done_.set_value(outcome == job_outcome::committed);
    }

private:
    std::function<bool(soci::session&)> work_;
    std::promise<bool> done_;
};

// Queues `work` on `writer` (a ledger_writer); the future tells whether its batch committed.
template <class Writer>
std::future<bool> submit(Writer& writer, std::function<bool(soci::session&)> work) {
    std::promise<bool> done;
    auto future = done.get_future();
    writer.submit(std::make_unique<function_job>(std::move(work), std::move(done)));
    return future;
}

}  // namespace corridor::testing
