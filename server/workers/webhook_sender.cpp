// The webhook sender: signs a claimed delivery's body with its tenant's key (parsed once per key)
// and hands the request to the outbound transport, alone or with others of a batch.
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/workers/delivery_worker.hpp"

namespace corridor {
namespace {

std::string tenant_key_of(const tenant& owner) {
    return owner.platform_id + "|" + std::string(owner.env_name());
}

}  // namespace

const webhook_signer& webhook_sender::signer_for(const claimed_delivery& delivery) {
    std::lock_guard lock(mutex_);
    auto key = tenant_key_of(delivery.owner);
    auto found = signers_.find(key);
    if (found == signers_.end() || found->second.first != delivery.private_key_pem) {
        // A rotated key replaces the cached one.
        signers_.erase(key);
        found = signers_
                    .emplace(key, std::make_pair(delivery.private_key_pem,
                                                 webhook_signer(delivery.private_key_pem)))
                    .first;
    }
    return found->second.second;
}

void webhook_sender::send(const claimed_delivery& delivery, std::int64_t now_ms,
                          std::function<void(attempt_report)> done) {
    std::vector<outbound_call> calls;
    prepare(delivery, std::nullopt, now_ms, std::move(done), calls);
    post_all(std::move(calls));
}

bool webhook_sender::needs_signing(const claimed_delivery& delivery) {
    return !delivery.interrupted && !delivery.url.empty();
}

signed_webhook webhook_sender::sign(const claimed_delivery& delivery, std::int64_t now_ms) {
    signed_webhook out;
    out.body = webhook_body(delivery, now_ms);
    out.signature_header = signer_for(delivery).signature_header(out.body);
    out.signed_at_ms = now_ms;
    return out;
}

void webhook_sender::prepare(const claimed_delivery& delivery, std::optional<signed_webhook> ready,
                             std::int64_t now_ms, std::function<void(attempt_report)> done,
                             std::vector<outbound_call>& calls) {
    attempt_report report;
    report.attempted_at_ms = now_ms;
    if (!needs_signing(delivery)) {  // reported without being sent
        report.error =
            delivery.interrupted
                ? "the attempt was interrupted by a restart; this event is not sent twice"
                : "no webhook endpoint is configured";
        done(std::move(report));
        return;
    }
    signed_webhook request = ready ? std::move(*ready) : sign(delivery, now_ms);
    report.attempted_at_ms = request.signed_at_ms;  // the body's timestamp
    outbound_call call;
    call.request.url = delivery.url;
    call.request.headers.emplace_back("X-Service-Signature", std::move(request.signature_header));
    call.request.body = std::move(request.body);
    call.done = [report, done = std::move(done)](outbound_response response) mutable {
        report.response_status = response.status;
        report.latency_ms = response.latency_ms;
        report.error = std::move(response.error);
        report.response_excerpt = std::move(response.body);  // cut to size when stored
        done(std::move(report));
    };
    calls.push_back(std::move(call));
}

void webhook_sender::post_all(std::vector<outbound_call> calls) {
    if (calls.size() == 1)
        transport_.post(std::move(calls.front().request), std::move(calls.front().done));
    else if (!calls.empty())
        transport_.post_all(std::move(calls));
}

}  // namespace corridor
