// What the delivery loop sends next: the deliveries signed ahead first, then the queued ones as
// slots free; and while every slot is taken, the queued ones signed ahead.
#include "server/api/app.hpp"
#include "server/workers/delivery_worker.hpp"

namespace corridor {

// The deliveries to send now, oldest first: those signed ahead (one signed too long ago is signed
// again) and the queued ones while slots are free, approval and test events whatever the slots;
// those queued too long go to `unsent` (mutex_ held).
std::vector<delivery_worker::outgoing> delivery_worker::take_sendable(
    int in_flight_max, std::vector<claimed_delivery>& unsent) {
    std::vector<outgoing> batch;
    std::int64_t now_ms = services_.time.now_ms();
    while (!signed_.empty() && in_flight_ < in_flight_max) {
        auto& next = signed_.front();
        if (!queued_too_long(next.delivery, now_ms, unsent)) {
            if (next.request && now_ms - next.request->signed_at_ms > signed_age_max_ms)
                next.request.reset();
            batch.push_back(std::move(next));
            ++in_flight_;
        }
        signed_.pop_front();
    }
    signed_gauge_.store(static_cast<std::int64_t>(signed_.size()), std::memory_order_relaxed);
    while (!queued_.empty() &&
           (in_flight_ < in_flight_max || queued_.front().purpose != event_purpose::notify)) {
        if (!queued_too_long(queued_.front(), now_ms, unsent)) {
            batch.push_back(outgoing{std::move(queued_.front()), std::nullopt});
            ++in_flight_;
        }
        queued_.pop_front();
    }
    return batch;
}

// While every slot is taken: the queued deliveries to sign ahead, as many as may be under way
// (mutex_ held).
std::vector<claimed_delivery> delivery_worker::take_to_sign_ahead(int in_flight_max) {
    std::vector<claimed_delivery> ahead;
    while (!queued_.empty() && in_flight_ >= in_flight_max &&
           signed_.size() + ahead.size() < static_cast<std::size_t>(in_flight_max) &&
           webhook_sender::needs_signing(queued_.front())) {
        ahead.push_back(std::move(queued_.front()));
        queued_.pop_front();
    }
    return ahead;
}

// Signs queued deliveries while every slot is taken, so that the slots answers free are filled
// without waiting for a signature (about 20 us each, most of a delivery's CPU in this process).
// One that cannot be signed is left to send(), which records the failure.
std::vector<delivery_worker::outgoing> delivery_worker::sign_ahead(
    std::vector<claimed_delivery> deliveries) {
    std::vector<outgoing> out;
    out.reserve(deliveries.size());
    for (auto& delivery : deliveries) {
        std::optional<signed_webhook> request;
        try {
            request = sender_.sign(delivery, services_.time.now_ms());
        } catch (const std::exception&) {
        }
        out.push_back(outgoing{std::move(delivery), std::move(request)});
    }
    return out;
}

bool delivery_worker::queued_too_long(claimed_delivery& delivery, std::int64_t now_ms,
                                      std::vector<claimed_delivery>& unsent) {
    if (now_ms - delivery.claimed_at_ms <= queued_ms_max) return false;
    if (delivery.claim_token.empty()) let_go(delivery.id, true);  // nothing to give back
    unsent.push_back(std::move(delivery));
    return true;
}

}  // namespace corridor
