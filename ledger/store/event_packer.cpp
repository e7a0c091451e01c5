#include "ledger/store/event_packer.hpp"

#include <exception>

#include "ledger/base/thread_name.hpp"
#include "ledger/store/event_payloads.hpp"

namespace corridor {
namespace {

constexpr std::size_t wake_jobs_min = 16;

}  // namespace

struct event_packer::job {
    enum class state { queued, packing, done, taken };
    std::string json, packed;
    std::function<std::string()> build;  // makes `json` first when set
    std::exception_ptr failed;           // what build threw on the packer's thread

    std::string pack() {
        if (build) json = build();
        return pack_event_payload(json);
    }
    state at = state::queued;
};

event_packer::~event_packer() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    work_.notify_all();
    if (thread_.joinable()) thread_.join();
}

std::shared_ptr<event_packer::job> event_packer::submit(std::string json) {
    auto submitted = std::make_shared<job>();
    submitted->json = std::move(json);
    return queue(std::move(submitted));
}

std::shared_ptr<event_packer::job> event_packer::submit(std::function<std::string()> build) {
    auto submitted = std::make_shared<job>();
    submitted->build = std::move(build);
    return queue(std::move(submitted));
}

std::shared_ptr<event_packer::job> event_packer::queue(std::shared_ptr<job> submitted) {
    bool wake = false;
    {
        std::lock_guard lock(mutex_);
        if (!thread_.joinable()) {
            thread_ = std::thread([this] {
                name_this_thread("event-packer");
                run();
            });
        }
        queue_.push_back(submitted);
        // A busy packer drains the queue before it waits again: only an idle one needs waking,
        // and only for a few payloads at once (a wake-up is a system call on both sides, about
        // what packing one payload costs).
        wake = idle_ && queue_.size() >= wake_jobs_min;
        if (wake) idle_ = false;
    }
    if (wake) work_.notify_one();
    return submitted;
}

void event_packer::start_queued() {
    {
        std::lock_guard lock(mutex_);
        if (!idle_ || queue_.empty()) return;
        idle_ = false;
    }
    work_.notify_one();
}

std::string event_packer::take(const std::shared_ptr<job>& submitted) {
    std::unique_lock lock(mutex_);
    if (submitted->at == job::state::queued) {
        // Not started: packed here rather than waited for (the packer skips it).
        submitted->at = job::state::taken;
        lock.unlock();
        return submitted->pack();
    }
    waiting_ = true;
    done_.wait(lock, [&] { return submitted->at == job::state::done; });
    waiting_ = false;
    submitted->at = job::state::taken;
    // Thrown on the writer, where it aborts the command as it would have had it built it there.
    if (submitted->failed) std::rethrow_exception(submitted->failed);
    return std::move(submitted->packed);
}

void event_packer::run() {
    std::unique_lock lock(mutex_);
    while (true) {
        if (queue_.empty()) {
            if (stopping_) return;
            idle_ = true;
            work_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            continue;
        }
        std::shared_ptr<job> next = std::move(queue_.front());
        queue_.pop_front();
        if (next->at != job::state::queued) continue;  // taken by the writer meanwhile
        next->at = job::state::packing;
        lock.unlock();
        std::string packed;
        try {
            packed = next->pack();
        } catch (...) {
            next->failed = std::current_exception();
        }
        lock.lock();
        next->packed = std::move(packed);
        next->at = job::state::done;
        if (waiting_) done_.notify_all();
    }
}

}  // namespace corridor
