#pragma once
// Packs webhook payloads (event_payloads.hpp: zstd with the frozen dictionary) on a
// thread of its own while the ledger writer goes on with its batch. Packing needs no lock of the
// database and its output depends on the JSON alone, so the row the writer flushes is the same
// as if it had packed the payload itself; the writer's thread is the one that bounds the ledger's
// throughput, and packing was about a tenth of its time per payment.
//
// The writer submits a payload when its event is recorded and takes the packed text at the flush:
// a payload the packer has not started by then is packed by the writer itself (never waits for an
// idle packer), one in progress is waited for.
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace corridor {

class event_packer {
public:
    struct job;

    event_packer() = default;
    ~event_packer();  // stops and joins the thread
    event_packer(const event_packer&) = delete;
    event_packer& operator=(const event_packer&) = delete;

    // Queues the JSON object `json` for packing (starts the thread on first use).
    std::shared_ptr<job> submit(std::string json);
    // Queues a payload to be built by `build` (a pure function of what it captured) and packed,
    // both off the writer's thread when the packer gets to it first.
    std::shared_ptr<job> submit(std::function<std::string()> build);
    // The stored text of a submitted payload, as pack_event_payload gives it.
    std::string take(const std::shared_ptr<job>& submitted);
    // Wakes an idle packer for whatever is queued, however few (the writer, when it starts a
    // flush that takes the payloads only at its end).
    void start_queued();

private:
    std::shared_ptr<job> queue(std::shared_ptr<job> submitted);
    void run();

    std::mutex mutex_;
    std::condition_variable work_;  // the packer waits for jobs
    std::condition_variable done_;  // the writer waits for a job in progress
    std::deque<std::shared_ptr<job>> queue_;
    bool idle_ = false;     // the packer is waiting for work
    bool waiting_ = false;  // the writer is waiting for a job
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace corridor
