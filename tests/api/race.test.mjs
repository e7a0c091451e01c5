// Fifty concurrent executes over HTTP against a balance that covers exactly ten of them: exactly ten
// succeed, the other forty are refused for the balance, and not one minor unit is created or lost.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call } from './lib/harness.mjs';
import { payer, fund, balanceOf, quoteBody, createQuote, assertError } from './lib/money.mjs';

const QUOTES = 50;
const COVERED = 10;

let server;
let sandbox;

before(async () => {
  server = await startCorridor({ platforms: 1 });
  sandbox = server.platforms[0].sandbox;
});
after(async () => { if (server) await stopCorridor(server); });

async function race(from, to, amount, side, remainder) {
  const { source, destination } = await payer(server, sandbox, from, to);
  const quotes = await Promise.all(Array.from({ length: QUOTES }, () =>
    createQuote(server, sandbox, quoteBody(source.id, destination.id, amount, side))));
  const cost = quotes[0].totalSendingAmount;
  const delivered = quotes[0].totalReceivingAmount;
  assert.ok(quotes.every((q) => q.totalSendingAmount === cost && q.totalReceivingAmount === delivered));
  await fund(server, sandbox, source.id, COVERED * cost + remainder);

  const responses = await Promise.all(quotes.map((quote) =>
    call(server, sandbox, 'POST', `/quotes/${quote.id}/execute`)));
  const succeeded = responses.filter((r) => r.status === 200);
  const refused = responses.filter((r) => r.status !== 200);
  assert.equal(succeeded.length, COVERED, responses.map((r) => r.status).join(','));
  assert.equal(refused.length, QUOTES - COVERED);
  for (const response of succeeded) assert.equal(response.body.status, 'COMPLETED');
  for (const response of refused) assertError(response, 400, 'INSUFFICIENT_BALANCE');

  assert.equal(await balanceOf(server, sandbox, source), remainder);
  assert.equal(await balanceOf(server, sandbox, destination), COVERED * delivered);

  // The quotes' states agree with the responses, one by one.
  const states = await Promise.all(quotes.map(async (quote) => (await call(server, sandbox, 'GET', `/quotes/${quote.id}`)).body.status));
  quotes.forEach((quote, i) => {
    assert.equal(states[i], responses[i].status === 200 ? 'COMPLETED' : 'PENDING', quote.id);
  });
  const incoming = await call(server, sandbox, 'GET', `/transactions?type=INCOMING&receiverAccountIdentifier=${destination.id}&limit=100`);
  assert.equal(incoming.body.totalCount, COVERED);
  assert.equal(incoming.body.data.reduce((sum, t) => sum + t.receivedAmount.amount, 0), COVERED * delivered);
  const completed = await call(server, sandbox, 'GET', `/transactions?type=OUTGOING&status=COMPLETED&senderAccountIdentifier=${source.id}&limit=100`);
  assert.equal(completed.body.totalCount, COVERED);
}

test('50 concurrent executes on a balance covering 10: exactly 10 succeed and it ends at 0', async () => {
  await race('USD', 'EUR', 10000, 'SENDING', 0);
});

test('the same race with a remainder smaller than one quote leaves exactly the remainder', async () => {
  await race('EUR', 'MXN', 150000, 'RECEIVING', 777);
});
