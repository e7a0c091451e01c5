#pragma once
// Stored first responses of money-moving requests, by (platform, environment, Idempotency-Key).
// A repeat with the same request gets the stored status and body; with a different request, a 422.
// 5xx outcomes are not stored, so a retry after a server fault is processed again.
#include <cstdint>
#include <optional>
#include <string>

#include <soci/soci.h>

#include "ledger/base/tenant.hpp"

namespace corridor {

struct stored_response {
    std::string request_hash;
    int status = 0;
    std::string body;
};

constexpr std::size_t idempotency_key_chars_max = 255;

std::optional<stored_response> find_idempotent_response(soci::session& session,
                                                        const tenant& owner,
                                                        const std::string& key);
void store_idempotent_response(soci::session& session, const tenant& owner, const std::string& key,
                               const stored_response& response, std::int64_t now_ms);
// Deletes keys older than the retention; returns how many.
std::int64_t prune_idempotency_keys(soci::session& session, std::int64_t older_than_ms);

}  // namespace corridor
