// Reads rows straight from the test server's database, for facts the API does not show (the event
// outbox). SQLite through the sqlite3 shell, PostgreSQL through psql; rows come back as objects.
import { execFileSync } from 'node:child_process';

export function queryRows(server, sql) {
  if (server.database.startsWith('sqlite:')) {
    const out = execFileSync('sqlite3', ['-json', server.database.slice('sqlite:'.length), sql], { encoding: 'utf8' });
    return out.trim() ? JSON.parse(out) : [];
  }
  const wrapped = `SELECT COALESCE(json_agg(t), '[]'::json) FROM (${sql}) t`;
  const out = execFileSync('psql', [server.database, '-At', '-c', wrapped], { encoding: 'utf8' });
  return JSON.parse(out);
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

// The payloads of the outbox events of one type, oldest first.
export function outboxEvents(server, type) {
  return queryRows(server, `SELECT payload FROM outbox_events WHERE type = '${type}' ORDER BY created_at_ms, id`)
    .map((row) => JSON.parse(row.payload));
}
