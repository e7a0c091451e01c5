// The benchmark's webhook receiver, in a process of its own so that the load generator does not
// delay it: answers every POST with 200 and records, for payment events, the lag from the
// transaction's updatedAt (its commit, to the millisecond) to the moment the delivery arrived.
// GET /stats returns {received, cpuUs (the receiver's own CPU so far), lags} and resets the lags
// when asked (?reset=1); ?count=1 leaves the lags out. GET /pause holds
// every POST unanswered (and uncounted) until GET /resume answers them all, so that a backlog can
// be built up in the outbox and then drained from full.
import { createServer } from 'node:http';

let received = 0;
let lags = [];
let paused = false;
let held = [];
const server = createServer((req, res) => {
  if (req.method === 'GET' && (req.url.startsWith('/pause') || req.url.startsWith('/resume'))) {
    paused = req.url.startsWith('/pause');
    const waiting = held;
    held = [];
    if (!paused) for (const answer of waiting) answer();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ paused, released: paused ? 0 : waiting.length }));
    return;
  }
  if (req.method === 'GET') {
    // ?count=1: the count alone, for probes made every few milliseconds during a drain (the lags
    // array grows with every payment event, and stringifying it would take the receiver's time).
    const cpuUs = (({ user, system }) => user + system)(process.cpuUsage());
    const body = JSON.stringify(req.url.includes('count=1') ? { received, cpuUs } : { received, cpuUs, lags });
    if (req.url.includes('reset=1')) lags = [];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    if (paused) {
      held.push(() => answer(req, res, chunks));
      return;
    }
    answer(req, res, chunks);
  });
});

function answer(req, res, chunks) {
  const now = Date.now();
  received += 1;
  const text = Buffer.concat(chunks).toString('utf8');
  const updated = text.match(/"updatedAt":"([^"]+)"/);
  if (updated && text.includes('"webhookId"')) lags.push(now - Date.parse(updated[1]));
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"ok":true}');
}
server.listen(0, '127.0.0.1', () => process.stdout.write(`receiver on ${server.address().port}\n`));
