// How a request's database work runs: submitted to a database thread (the pool or the ledger
// writer) and awaited by the session's coroutine, which resumes on its own io thread.
#include <boost/json.hpp>
#include <mutex>
#include <utility>
#include <vector>

#include "server/api/errors.hpp"
#include "server/http/server_impl.hpp"

namespace corridor {

namespace {

// Runs the completions gathered in `mailbox`, on its core's thread.
void drain_completions(completion_mailbox& mailbox) {
    std::vector<std::unique_ptr<pending_completion>> ready;
    {
        std::lock_guard lock(mailbox.mutex);
        ready.swap(mailbox.pending);
        mailbox.drain_posted = false;
    }
    for (auto& completion : ready) completion->run();
}

// Posts a drain of the mailbox unless one is pending.
void post_drain(net::io_context& context, completion_mailbox& mailbox) {
    {
        std::lock_guard lock(mailbox.mutex);
        if (std::exchange(mailbox.drain_posted, true)) return;
    }
    net::post(context, [&mailbox] { drain_completions(mailbox); });
}

// Queues `completion` for the core's thread, and wakes it: at once, or when the thread finishing
// a batch of jobs is done with it (finish_scope).
void hand_over(net::io_context& context, completion_mailbox& mailbox,
               std::unique_ptr<pending_completion> completion) {
    {
        std::lock_guard lock(mailbox.mutex);
        mailbox.pending.push_back(std::move(completion));
        if (mailbox.drain_posted) return;
    }
    if (finish_scope::defer(&mailbox, [&context, &mailbox] { post_drain(context, mailbox); }))
        return;
    post_drain(context, mailbox);
}

// A waiting coroutine's handler with its response; the work guard keeps the core's context
// running until the handler has run.
template <class Handler>
class resume_completion final : public pending_completion {
public:
    resume_completion(Handler handler, http_response response,
                      net::executor_work_guard<net::io_context::executor_type> guard)
        : handler_(std::move(handler)), response_(std::move(response)), guard_(std::move(guard)) {}
    void run() noexcept override { std::move(handler_)(std::move(response_)); }

private:
    Handler handler_;
    http_response response_;
    net::executor_work_guard<net::io_context::executor_type> guard_;
};

// A database job that resumes the waiting coroutine on its own io thread.
template <class Handler>
class resume_job final : public session_job {
public:
    resume_job(Handler handler, net::io_context& context, completion_mailbox& mailbox,
               std::function<http_response(soci::session&)> work)
        : handler_(std::move(handler)),
          mailbox_(mailbox),
          work_guard_(net::make_work_guard(context)),
          work_(std::move(work)) {}

    bool run(soci::session& session) noexcept override {
        http_response response;
        try {
            response = work_(session);
        } catch (...) {
            response = error_response(error_code::internal_error, "internal error; retry later");
            response.database_failed = true;
        }
        bool healthy = !response.database_failed;
        response_ = std::move(response);
        return healthy;
    }

    bool retryable() const noexcept override { return response_ && response_->contention; }

    void finish(job_outcome outcome) noexcept override {
        // The work (and what it holds, such as an idempotency key's in-flight guard) is released
        // before the client can see the response, so an immediate retry finds the key free.
        work_ = nullptr;
        if (outcome == job_outcome::committed && response_) {
            complete(std::move(*response_));
            return;
        }
        // The rest are 503 with Retry-After (error_response adds it). rolled_back and not_committed
        // are known not to have happened, so a retry is safe; unknown may have, so its retry must
        // carry the same Idempotency-Key (the stored answer is then replayed) or look first.
        boost::json::object details;
        std::string message;
        if (outcome == job_outcome::unknown) {
            details["outcome"] = "UNKNOWN";
            message =
                "the database connection was lost while this request was committing and its "
                "outcome could not be confirmed; retry with the same Idempotency-Key";
        } else {
            details["outcome"] = "NOT_COMMITTED";
            message = outcome == job_outcome::rolled_back || response_
                          ? "the request was not carried out (its database transaction did not "
                            "commit); retry later"
                          : "the request was not carried out (the service is busy, shutting down "
                            "or cannot reach its database); retry later";
        }
        complete(error_response(
            api_error{error_code::service_unavailable, std::move(message), std::move(details)}));
    }

private:
    void complete(http_response response) noexcept {
        net::io_context& context = work_guard_.get_executor().context();
        hand_over(context, mailbox_,
                  std::make_unique<resume_completion<Handler>>(
                      std::move(handler_), std::move(response), std::move(work_guard_)));
    }

    Handler handler_;
    completion_mailbox& mailbox_;
    net::executor_work_guard<net::io_context::executor_type> work_guard_;
    std::function<http_response(soci::session&)> work_;
    std::optional<http_response> response_;
};

}  // namespace

net::awaitable<http_response> http_server::impl::run_job(
    core& owner, session_executor& executor, std::function<http_response(soci::session&)> work) {
    auto initiate = [&owner, &executor](auto handler,
                                        std::function<http_response(soci::session&)> job) {
        using handler_type = decltype(handler);
        executor.submit(std::make_unique<resume_job<handler_type>>(
            std::move(handler), owner.context, owner.completions, std::move(job)));
    };
    co_return co_await net::async_initiate<decltype(net::use_awaitable), void(http_response)>(
        initiate, net::use_awaitable, std::move(work));
}

// A plan's prepare step, on the pool; status 0 carries "go on" back through run_job.
net::awaitable<std::optional<http_response>> http_server::impl::run_prepare(
    core& owner, std::function<std::optional<http_response>(soci::session&)> prepare) {
    auto answer = co_await run_job(owner, database, [&prepare](soci::session& session) {
        auto early = prepare(session);
        if (early) return std::move(*early);
        http_response go_on;
        go_on.status = 0;
        return go_on;
    });
    if (answer.status == 0) co_return std::nullopt;
    co_return answer;
}

}  // namespace corridor
