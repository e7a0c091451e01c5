// A webhook receiver on 127.0.0.1 for the API tests: records every request (raw body bytes and
// headers) and answers with what the test's `respond` function returns for it.
import { createServer } from 'node:http';
import { webhookProblems } from './contract.mjs';

// respond(request) -> {status, body?, headers?} or a Promise of it; default 200 {"ok":true}.
export async function startReceiver(respond = () => ({ status: 200 })) {
  const receiver = { requests: [], respond, contractProblems: [] };
  receiver.server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      let json;
      try { json = JSON.parse(raw.toString('utf8')); } catch { json = undefined; }
      const entry = { method: req.method, url: req.url, headers: req.headers, raw, body: json, at: Date.now() };
      receiver.requests.push(entry);
      // Every delivery from Corridor (it signs them all) must be a webhook the document describes;
      // a problem is reported now and fails the suite when the receiver stops.
      if (req.headers['x-service-signature'] !== undefined || json?.webhookId !== undefined) {
        for (const problem of webhookProblems(req.headers, raw)) {
          console.error(`contract: ${problem}`);
          receiver.contractProblems.push(problem);
        }
      }
      let answer;
      try { answer = await receiver.respond(entry); } catch { answer = { status: 500 }; }
      if (answer === null) return;  // never answer (the connection stays open)
      const body = answer.body === undefined ? '{"ok":true}' : (typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...(answer.headers || {}) });
      res.end(body);
    });
  });
  await new Promise((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  receiver.port = receiver.server.address().port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
  return receiver;
}

export async function stopReceiver(receiver) {
  receiver.server.closeAllConnections?.();
  await new Promise((resolve) => receiver.server.close(resolve));
  if (receiver.contractProblems.length) {
    throw new Error(`webhooks not described by api/openapi.json: ${receiver.contractProblems[0]}` +
      (receiver.contractProblems.length > 1 ? ` (and ${receiver.contractProblems.length - 1} more)` : ''));
  }
}

// The X-Service-Signature header parsed: {v, s}.
export function signatureOf(entry) {
  const header = entry.headers['x-service-signature'];
  if (!header) throw new Error('no X-Service-Signature header');
  return JSON.parse(header);
}
