#pragma once
// The statements that record outbox events (record_event, and the ledger writer's flush). A NOTIFY
// event of an environment without a webhook endpoint is recorded already closed: NO_ENDPOINT,
// finished and due at its creation (the order the pruning's index scan needs), no attempt. The
// delivery round never touches it, so on PostgreSQL it leaves one row version instead of three
// (written, claimed, closed), and no process spends a claim on it. The endpoint is read by the
// insert itself, never from a cache: an endpoint that any process committed before the statement
// runs is seen, and its events are sent. An event recorded PENDING whose endpoint is removed before
// its claim is still closed by the delivery round, as is a resent one while there is no endpoint.

namespace corridor {

// One event. Parameters: id, platform, environment, type, stored payload, due time, created time,
// purpose, finished time (the created time), then purpose, platform and environment again.
inline constexpr const char* outbox_event_insert_sql =
    "INSERT INTO outbox_events (id, platform_id, environment, type, payload, state, attempts, "
    "next_attempt_at_ms, created_at_ms, purpose, finished_at_ms) SELECT :i, :p, :e, :y, :b, CASE "
    "WHEN k.sendable THEN 'PENDING' ELSE 'NO_ENDPOINT' END, 0, :n, :t, :u, CASE WHEN k.sendable "
    "THEN NULL ELSE CAST(:f AS BIGINT) END FROM (SELECT :u2 <> 'NOTIFY' OR EXISTS (SELECT 1 FROM "
    "platform_configs c WHERE c.platform_id = :p2 AND c.environment = :e2 AND c.webhook_endpoint "
    "<> '') AS sendable) k";

// PostgreSQL: the same for a row per array element (id, platform, environment, type, payload,
// created time, purpose).
inline constexpr const char* outbox_events_unnest_sql =
    "INSERT INTO outbox_events (id, platform_id, environment, type, payload, state, attempts, "
    "next_attempt_at_ms, created_at_ms, purpose, finished_at_ms) SELECT r.i, r.p, r.e, r.y, r.b, "
    "CASE WHEN k.sendable THEN 'PENDING' ELSE 'NO_ENDPOINT' END, 0, r.n, r.n, r.u, CASE WHEN "
    "k.sendable THEN NULL ELSE r.n END FROM unnest($1::text[], $2::text[], $3::text[], "
    "$4::text[], $5::text[], $6::bigint[], $7::text[]) AS r(i, p, e, y, b, n, u) CROSS JOIN "
    "LATERAL (SELECT r.u <> 'NOTIFY' OR EXISTS (SELECT 1 FROM platform_configs c WHERE "
    "c.platform_id = r.p AND c.environment = r.e AND c.webhook_endpoint <> '') AS sendable) k";

}  // namespace corridor
