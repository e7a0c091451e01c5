// Liveness, readiness, metrics and graceful shutdown of the real binary.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call, metricsText } from './lib/harness.mjs';

let server;
before(async () => { server = await startCorridor({ platforms: 1 }); });
after(async () => { if (server) await stopCorridor(server); });

test('healthz and readyz answer without credentials', async () => {
  const live = await call(server, null, 'GET', '/healthz', undefined, { raw: true });
  assert.equal(live.status, 200);
  assert.equal(live.body.status, 'ok');
  const ready = await call(server, null, 'GET', '/readyz', undefined, { raw: true });
  assert.equal(ready.status, 200);
  assert.equal(ready.body.status, 'ready');
});

test('metrics count requests by route and status, on the admin listener only', async () => {
  await call(server, null, 'GET', '/config');  // 401
  await call(server, null, 'GET', '/healthz', undefined, { raw: true });
  const metrics = await fetch(`${server.adminUrl}/metrics`);
  assert.equal(metrics.status, 200);
  assert.match(metrics.headers.get('content-type'), /text\/plain/);
  const text = await metrics.text();
  assert.match(text, /corridor_http_requests_total\{route="GET \/2025-10-13\/config",status="401"\} [1-9]/);
  assert.match(text, /corridor_http_request_duration_seconds_bucket\{route="GET \/healthz",le="\+Inf"\} [1-9]/);
  // The public listener no longer serves them.
  const hidden = await call(server, null, 'GET', '/metrics', undefined, { raw: true });
  assert.equal(hidden.status, 404);
  assert.equal(hidden.body.code, 'NOT_FOUND');
  assert.ok(!hidden.text.includes('corridor_http_requests_total'));
  // Admin requests are not counted as API requests.
  assert.ok(!/route="GET \/metrics"/.test(await metricsText(server)));
});

test('every response carries X-Request-Id, echoed when the client sends one', async () => {
  const generated = await call(server, null, 'GET', '/healthz', undefined, { raw: true });
  assert.match(generated.headers.get('x-request-id'), /^req_/);
  const echoed = await call(server, null, 'GET', '/healthz', undefined, { raw: true, 'x-request-id': 'client-abc-123' });
  assert.equal(echoed.headers.get('x-request-id'), 'client-abc-123');
});

test('SIGTERM stops the server cleanly with exit code 0', async () => {
  const result = await stopCorridor(server, { keepFiles: false });
  server = null;
  assert.equal(result.code, 0, `exit ${JSON.stringify(result)}`);
});
