// Reads rows straight from the test server's database, for facts the API does not show (the event
// outbox). SQLite through the sqlite3 shell, PostgreSQL through psql; rows come back as objects.
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export function queryRows(server, sql) {
  if (server.database.startsWith('sqlite:')) {
    const out = execFileSync('sqlite3', ['-json', server.database.slice('sqlite:'.length), sql], { encoding: 'utf8' });
    return out.trim() ? JSON.parse(out) : [];
  }
  const wrapped = `SELECT COALESCE(json_agg(t), '[]'::json) FROM (${sql}) t`;
  const out = execFileSync('psql', [server.database, '-At', '-c', wrapped], { encoding: 'utf8' });
  return JSON.parse(out);
}

// Ids stored as 16 bytes (the postings', migration 46) in SQL that runs on both backends (the
// sqlite3 shell lacks Corridor's packed_id and typed_id): `column` read as its 32 hex digits, and
// a typed id ("<type>:<uuid>") as a literal to compare that column with.
export function packedIdHex(server, column) {
  return server.database.startsWith('sqlite:') ? `lower(hex(${column}))` : `replace(CAST(${column} AS text), '-', '')`;
}
// A column of ids stored as 16 bytes, as the typed id ("<type>:<uuid>") the service shows: the
// sqlite3 shell has no typed_id (the service registers it on its own connections).
export function typedIdColumn(server, type, column) {
  if (!server.database.startsWith('sqlite:')) return `typed_id('${type}', ${column})`;
  const hex = `lower(hex(${column}))`;
  const part = (from, length) => `substr(${hex}, ${from}, ${length})`;
  return `'${type}:' || ${part(1, 8)} || '-' || ${part(9, 4)} || '-' || ${part(13, 4)} || '-' || ` +
    `${part(17, 4)} || '-' || ${part(21, 12)}`;
}
export function packedIdLiteral(server, typedId) {
  const uuid = typedId.slice(typedId.indexOf(':') + 1);
  return server.database.startsWith('sqlite:') ? `X'${uuid.replaceAll('-', '')}'` : `'${uuid}'`;
}

// Runs a statement that returns no rows: a fact changed behind the API's back, to test what the
// service does when it finds it (for example a KYC status that no longer allows payments).
export function runStatement(server, sql) {
  if (server.database.startsWith('sqlite:')) {
    execFileSync('sqlite3', ['-cmd', '.timeout 5000', server.database.slice('sqlite:'.length), sql]);
  } else {
    execFileSync('psql', [server.database, '-q', '-c', sql]);
  }
}

// A stored webhook payload as JSON text, from its hex (storedPayloadColumn). Corridor stores them
// compressed (ledger/store/event_payloads.hpp): the bytes of a zstd frame, decoded here with the
// zstd command and the dictionary the frame names (format z2: event_payload_dictionary_z2.zdict,
// id 2 in the frame; format z1: event_payload_dictionary.json, no id); older rows hold "z1:" and
// a z1 frame in base64, or the JSON itself.
const storeDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../ledger/store');
const dictionaries = { z1: join(storeDir, 'event_payload_dictionary.json'), z2: join(storeDir, 'event_payload_dictionary_z2.zdict') };
const decoded = new Map();
export function payloadOf(storedHex) {
  const bytes = Buffer.from(storedHex.replace(/^\\x/, ''), 'hex');
  if (bytes.length && bytes[0] === 0x7b) return bytes.toString('utf8');  // '{': the JSON itself
  const frame = bytes.subarray(0, 3).toString('latin1') === 'z1:' ? Buffer.from(bytes.subarray(3).toString('latin1'), 'base64') : bytes;
  // The frame header's descriptor (after the 4-byte magic number): its low two bits say whether a
  // dictionary id follows.
  const dictionary = (frame[4] & 3) === 0 ? dictionaries.z1 : dictionaries.z2;
  if (!decoded.has(storedHex)) {
    decoded.set(storedHex, execFileSync('zstd', ['-d', '-q', '-c', '-D', dictionary], { input: frame, encoding: 'utf8' }));
  }
  return decoded.get(storedHex);
}

// The payload column as hex text on either database: PostgreSQL shows a BYTEA as \x and hex; the
// sqlite3 shell would print a BLOB's bytes as they are.
export function storedPayloadColumn(server) {
  return server.database.startsWith('sqlite:') ? 'hex(payload) AS payload' : 'payload';
}

// The outbox's rows with their tenant's platform_id and environment (a row holds its tenant's key),
// as a table expression for FROM.
// The id is shown typed, as stored before migration 47.
export function outboxWithTenant(server) {
  return `(SELECT ${typedIdColumn(server, 'Webhook', 'o.id')} AS id, o.tenant_key, o.type, o.payload, ` +
    'o.state, o.attempts, o.next_attempt_at_ms, o.created_at_ms, o.claim_token, o.purpose, ' +
    'o.first_attempt_at_ms, o.finished_at_ms, c.platform_id, c.environment FROM outbox_events o ' +
    'JOIN platform_configs c ON c.tenant_key = o.tenant_key) AS e';
}

// Outbox rows (`columns`, SQL, payload always among them) of the events matching `where` (SQL),
// oldest first, each with its payload decoded; `mentioning`: only those whose payload contains
// that text. Columns and `where` may name platform_id and environment.
export function outboxRows(server, columns, where, mentioning) {
  return queryRows(server, `SELECT ${storedPayloadColumn(server)}, ${columns} FROM ${outboxWithTenant(server)} WHERE ${where} ORDER BY created_at_ms, id`)
    .map((row) => ({ ...row, payload: payloadOf(row.payload) }))
    .filter((row) => mentioning === undefined || row.payload.includes(mentioning));
}

// The payloads of the outbox events of one type, oldest first.
export function outboxEvents(server, type) {
  return outboxRows(server, 'id', `type = '${type}'`).map((row) => JSON.parse(row.payload));
}
