// Direct reads of a test server's database, for what the API does not show: the event outbox, and a
// KYC status changed behind the API to test the gate on an existing quote.
import { execFileSync } from 'node:child_process';

export function sql(server, text) {
  if (server.database.startsWith('sqlite:')) {
    return execFileSync('sqlite3', ['-cmd', '.timeout 5000', server.database.slice('sqlite:'.length), text], { encoding: 'utf8' });
  }
  return execFileSync('psql', [server.database, '-q', '-t', '-A', '-c', text], { encoding: 'utf8' });
}

// The payloads of the outbox events of one type, oldest first.
export function outboxEvents(server, type) {
  const out = sql(server, `SELECT payload FROM outbox_events WHERE type = '${type}' ORDER BY created_at_ms, id`);
  return out.split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line));
}
