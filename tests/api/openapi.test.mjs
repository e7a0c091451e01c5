// GET /2025-10-13/openapi.json: the contract built into the binary is the repository's
// api/openapi.json, served without credentials as JSON with a strong ETag that answers 304.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { startCorridor, stopCorridor, call, VERSION } from './lib/harness.mjs';
import { openapi } from './lib/contract.mjs';

let server;
before(async () => { server = await startCorridor({ platforms: 1 }); });
after(async () => { if (server) await stopCorridor(server); });

test('the served document is the repository\'s api/openapi.json, without credentials', async () => {
  const response = await call(server, undefined, 'GET', '/openapi.json');
  assert.equal(response.status, 200, response.text);
  assert.match(response.headers.get('content-type'), /^application\/json\b/);
  const file = readFileSync(new URL('../../api/openapi.json', import.meta.url), 'utf8');
  assert.equal(response.text, file, 'the binary serves the document it was built with; rebuild after changing it');
  assert.deepEqual(response.body, openapi);
  assert.equal(response.body.openapi, '3.1.0');
  assert.equal(response.body.info.version, VERSION);
  // Credentials are not needed, and bad ones are not looked at.
  const withBad = await call(server, { clientId: 'nobody', clientSecret: 'wrong' }, 'GET', '/openapi.json');
  assert.equal(withBad.status, 200);
});

test('a strong ETag, the SHA-256 of the document, answers 304 to If-None-Match', async () => {
  const first = await call(server, undefined, 'GET', '/openapi.json');
  const tag = first.headers.get('etag');
  const file = readFileSync(new URL('../../api/openapi.json', import.meta.url));
  assert.equal(tag, `"${createHash('sha256').update(file).digest('hex')}"`);
  for (const header of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
    const again = await call(server, undefined, 'GET', '/openapi.json', undefined, { 'if-none-match': header });
    assert.equal(again.status, 304, header);
    assert.equal(again.text, '', header);
    assert.equal(again.headers.get('etag'), tag);
  }
  const changed = await call(server, undefined, 'GET', '/openapi.json', undefined, { 'if-none-match': '"not-it"' });
  assert.equal(changed.status, 200);
  assert.equal(changed.text.length, file.length);
});

test('the document names every route the server answers', async () => {
  // A route missing from the document would answer 404 NOT_FOUND here if it did not exist; each
  // documented operation is a route of the server (any answer but the no-route 404 or 405).
  for (const [template, item] of Object.entries(openapi.paths)) {
    for (const method of Object.keys(item)) {
      const path = template.replace(/\{[^}]+\}/g, 'x');
      const response = await call(server, undefined, method.toUpperCase(), path, method === 'get' || method === 'delete' ? undefined : {}, { raw: true });
      assert.ok(response.status !== 405 && response.body?.code !== 'NOT_FOUND', `${method.toUpperCase()} ${template}: ${response.status} ${response.text.slice(0, 120)}`);
    }
  }
});

test('x-permission and x-sandbox-only say what each operation requires', async () => {
  const platform = server.platforms[0];
  const only = {};
  for (const permission of ['VIEW', 'TRANSACT', 'MANAGE']) {
    const created = await call(server, platform.sandbox, 'POST', '/tokens', { name: `only ${permission}`, permissions: [permission] });
    assert.equal(created.status, 201, created.text);
    only[permission] = created.body;
  }
  let checked = 0;
  for (const [template, item] of Object.entries(openapi.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const required = operation['x-permission'];
      if (!required) {
        assert.deepEqual(operation.security, [], `${method} ${template}: neither public nor a permission`);
        continue;
      }
      const path = template.replace(/\{[^}]+\}/g, 'x');
      const send = (credentials) => call(server, credentials, method.toUpperCase(), path,
        method === 'get' || method === 'delete' ? undefined : {}, { raw: true });
      for (const [permission, credentials] of Object.entries(only)) {
        const response = await send(credentials);
        const refused = response.status === 403 && response.body?.code === 'FORBIDDEN';
        assert.equal(refused, permission !== required,
          `${method.toUpperCase()} ${template} with only ${permission} (needs ${required}): ${response.status} ${response.text.slice(0, 120)}`);
      }
      const production = await send(platform.production);
      const sandboxOnly = production.status === 403 && production.body?.code === 'FORBIDDEN';
      assert.equal(sandboxOnly, operation['x-sandbox-only'] === true,
        `${method.toUpperCase()} ${template} with production credentials: ${production.status} ${production.text.slice(0, 120)}`);
      checked++;
    }
  }
  assert.ok(checked >= 45, `only ${checked} operations need a permission`);
});
