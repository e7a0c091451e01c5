// The benchmark's webhook receiver, in a process of its own so that the load generator does not
// delay it: answers every POST with 200 and records, for payment events, the lag from the
// transaction's updatedAt (its commit, to the millisecond) to the moment the delivery arrived.
// GET /stats returns {received, lags} and resets the lags when asked (?reset=1).
import { createServer } from 'node:http';

let received = 0;
let lags = [];
const server = createServer((req, res) => {
  if (req.method === 'GET') {
    const body = JSON.stringify({ received, lags });
    if (req.url.includes('reset=1')) lags = [];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const now = Date.now();
    received += 1;
    const text = Buffer.concat(chunks).toString('utf8');
    const updated = text.match(/"updatedAt":"([^"]+)"/);
    if (updated && text.includes('"webhookId"')) lags.push(now - Date.parse(updated[1]));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`receiver on ${server.address().port}\n`));
