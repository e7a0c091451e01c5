// Liveness, readiness, metrics and graceful shutdown of the real binary.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call } from './lib/harness.mjs';

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

test('metrics count requests by route and status', async () => {
  await call(server, null, 'GET', '/config');  // 401
  const metrics = await call(server, null, 'GET', '/metrics', undefined, { raw: true });
  assert.equal(metrics.status, 200);
  assert.match(metrics.headers.get('content-type'), /text\/plain/);
  assert.match(metrics.text, /corridor_http_requests_total\{route="GET \/2025-10-13\/config",status="401"\} [1-9]/);
  assert.match(metrics.text, /corridor_http_request_duration_seconds_bucket\{route="GET \/healthz",le="\+Inf"\} [1-9]/);
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
