#pragma once
// The statements that record outbox events (record_event, and the ledger writer's flush). A NOTIFY
// event of an environment without a webhook endpoint is recorded already closed: NO_ENDPOINT,
// finished and due at its creation (the order the pruning's index scan needs), no attempt. The
// delivery round never touches it, so on PostgreSQL it leaves one row version instead of three
// (written, claimed, closed), and no process spends a claim on it. The endpoint is read by the
// insert itself, never from a cache: an endpoint that any process committed before the statement
// runs is seen, and its events are sent. An event recorded PENDING whose endpoint is removed before
// its claim is still closed by the delivery round, as is a resent one while there is no endpoint.

// An event handed over to this process's delivery (outbox_handover.hpp) is inserted leased: its
// first attempt counted and started, the claim token set, due again when the lease ends. Only a
// PENDING one: an event written closed is never leased.

namespace corridor {

// One event. Parameters: id (stored as 16 bytes: packed_id, migration 47), platform, environment,
// type, stored payload, purpose, created time (also its due time, or its finishing time when
// written closed), the claim token ('' for none: not leased) and the lease's end, then purpose,
// platform and environment again. The row holds the tenant's key (platform_configs.tenant_key),
// looked up by the statement: NULL, refused, for a tenant with no configuration. The payload's
// bytes (event_payloads.hpp) go in as text: on SQLite the bytes themselves, stored as a BLOB by
// CAST(:b AS BLOB); on PostgreSQL their base64, decoded to a BYTEA (outbox_event_payload_sqlite
// and _postgresql name the two forms of the parameter, of which this text holds the first).
inline constexpr const char* outbox_event_payload_sqlite = "CAST(:b AS BLOB)";
inline constexpr const char* outbox_event_payload_postgresql = "decode(:b, 'base64')";
inline constexpr const char* outbox_event_insert_sql =
    "INSERT INTO outbox_events (id, tenant_key, type, payload, state, attempts, "
    "next_attempt_at_ms, created_at_ms, purpose, finished_at_ms, claim_token, first_attempt_at_ms) "
    "SELECT packed_id(:i), (SELECT t.tenant_key FROM platform_configs t WHERE t.platform_id = :p "
    "AND "
    "t.environment = :e), :y, CAST(:b AS BLOB), CASE WHEN k.sendable THEN 'PENDING' ELSE "
    "'NO_ENDPOINT' END, CASE "
    "WHEN k.leased THEN 1 ELSE 0 END, CASE WHEN k.leased THEN k.lease_until ELSE k.at END, k.at, "
    ":u, CASE WHEN k.sendable THEN NULL ELSE k.at END, CASE WHEN k.leased THEN k.token END, CASE "
    "WHEN k.leased THEN k.at END FROM (SELECT s.at, s.token, s.lease_until, s.sendable, s.sendable "
    "AND s.token <> '' AS leased FROM (SELECT CAST(:t AS BIGINT) AS at, CAST(:c AS TEXT) AS token, "
    "CAST(:l AS BIGINT) AS lease_until, (:u2 <> 'NOTIFY' OR EXISTS (SELECT 1 FROM platform_configs "
    "c WHERE c.platform_id = :p2 AND c.environment = :e2 AND c.webhook_endpoint <> '')) AS "
    "sendable) s) k";

// PostgreSQL: the same for a row per array element (id, tenant key, type, payload in base64,
// created time, purpose, claim token, lease's end). The ledger writer knows each tenant's key
// (writer_facts): it is bound, not looked up per row.
inline constexpr const char* outbox_events_unnest_sql =
    "INSERT INTO outbox_events (id, tenant_key, type, payload, state, attempts, "
    "next_attempt_at_ms, created_at_ms, purpose, finished_at_ms, claim_token, first_attempt_at_ms) "
    "SELECT packed_id(r.i), r.k, r.y, decode(r.b, 'base64'), CASE WHEN k.sendable THEN 'PENDING' "
    "ELSE "
    "'NO_ENDPOINT' END, "
    "CASE WHEN k.leased THEN 1 ELSE 0 END, CASE WHEN k.leased THEN r.l ELSE r.n END, r.n, r.u, "
    "CASE WHEN k.sendable THEN NULL ELSE r.n END, CASE WHEN k.leased THEN r.c END, CASE WHEN "
    "k.leased THEN r.n END FROM unnest($1::text[], $2::integer[], $3::text[], $4::text[], "
    "$5::bigint[], $6::text[], $7::text[], $8::bigint[]) AS r(i, k, y, b, n, u, c, l) CROSS "
    "JOIN LATERAL (SELECT s.sendable, s.sendable AND r.c <> '' AS leased FROM (SELECT r.u <> "
    "'NOTIFY' OR EXISTS (SELECT 1 FROM platform_configs c WHERE c.tenant_key = r.k AND "
    "c.webhook_endpoint <> '') AS sendable) s) k";

}  // namespace corridor
