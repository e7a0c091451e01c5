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
