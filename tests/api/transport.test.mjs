// The HTTP layer as a client meets it: bodies, media types, size limits, routing errors, versions,
// the error body, keep-alive, and that no client input produces a 5xx.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCorridor, stopCorridor, call, basic, VERSION } from './lib/harness.mjs';
import { expectError, expectStatus, assertErrorShape } from './lib/expect.mjs';
import { RawConnection, requestText, rawRequest } from './lib/raw.mjs';

let server;
let sandbox;
let authorization;
const limits = JSON.parse(readFileSync(join(process.env.CORRIDOR_CONF_DIR, 'corridor.json'), 'utf8')).limits;
const statuses = [];  // every status seen in this file, checked for 5xx at the end

before(async () => {
  server = await startCorridor({ platforms: 1 });
  sandbox = server.platforms[0].sandbox;
  authorization = basic(sandbox);
});
after(async () => { if (server) await stopCorridor(server); });

async function send(method, path, body, headers) {
  const response = await call(server, sandbox, method, path, body, headers);
  statuses.push([`${method} ${path}`, response.status]);
  return response;
}

async function sendRaw(data) {
  const response = await rawRequest(server, data);
  statuses.push(['raw', response.status]);
  return response;
}

// /healthz on a connection of its own.
async function healthyOnNewConnection() {
  const response = await rawRequest(server, requestText('GET', '/healthz', { headers: { Connection: 'close' } }));
  assert.equal(response.status, 200);
  assert.equal(response.body.status, 'ok');
  expectStatus(await call(server, sandbox, 'GET', '/config'), 200);
}

test('malformed JSON, non-object JSON and empty bodies are 400 INVALID_INPUT', async () => {
  const before = expectStatus(await send('GET', '/customers'), 200).totalCount;
  for (const body of ['{"customerType":', '{customerType: "INDIVIDUAL"}', "{'customerType':'INDIVIDUAL'}", '{"customerType":"INDIVIDUAL"} trailing',
    '{"customerType":"INDIVIDUAL",}', '[]', '[{"customerType":"INDIVIDUAL"}]', '"INDIVIDUAL"', '42', 'null', 'true', '\u0000', '   ']) {
    for (const [method, path] of [['POST', '/customers'], ['PATCH', '/config'], ['POST', '/tokens']]) {
      expectError(await send(method, path, body), 400, 'INVALID_INPUT');
    }
  }
  // Empty bodies, with and without a JSON content type.
  expectError(await send('POST', '/customers', ''), 400, 'INVALID_INPUT');
  expectError(await send('PATCH', '/config', '', { 'content-type': 'application/json' }), 400, 'INVALID_INPUT');
  expectError(await send('POST', '/tokens'), 400, 'INVALID_INPUT');
  const raw = await sendRaw(requestText('POST', `/${VERSION}/customers`, { headers: { Authorization: authorization } }));
  expectError(raw, 400, 'INVALID_INPUT');
  // Invalid UTF-8 inside a string.
  const invalidUtf8 = Buffer.concat([Buffer.from('{"customerType":"INDIVIDUAL","fullName":"a'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
  expectError(await send('POST', '/customers', invalidUtf8), 400, 'INVALID_INPUT');
  assert.equal(expectStatus(await send('GET', '/customers'), 200).totalCount, before);
});

test('a non-JSON Content-Type is 415; JSON media types are accepted', async () => {
  const body = JSON.stringify({ customerType: 'INDIVIDUAL' });
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/jsonx', 'text/json']) {
    expectError(await send('POST', '/customers', body, { 'content-type': type }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await send('PATCH', '/config', '{}', { 'content-type': type }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  }
  for (const type of ['application/json', 'application/json; charset=utf-8', 'application/merge-patch+json']) {
    expectStatus(await send('POST', '/customers', body, { 'content-type': type }), 201);
  }
  expectStatus(await send('PATCH', '/config', '{}', { 'content-type': 'application/merge-patch+json' }), 200);
});

test('a body over the limit is 413 and the server stays healthy', async () => {
  const max = limits.request_body_bytes_max;
  const oversized = JSON.stringify({ customerType: 'INDIVIDUAL', pad: 'x'.repeat(max) });
  expectError(await send('POST', '/customers', oversized), 413, 'PAYLOAD_TOO_LARGE');
  await healthyOnNewConnection();

  // Announced by Content-Length before any of the body is sent.
  const announced = await sendRaw(`POST /${VERSION}/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\nContent-Type: application/json\r\nContent-Length: ${max + 1}\r\n\r\n`);
  expectError(announced, 413, 'PAYLOAD_TOO_LARGE');
  // Chunked, with no length announced.
  const connection = new RawConnection(server);
  await connection.send(`POST /${VERSION}/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
  const chunk = 'y'.repeat(64 * 1024);
  let chunked;
  const answer = connection.next(20000).then((response) => { chunked = response; });
  for (let sent = 0; sent <= max && !chunked && !connection.ended; sent += chunk.length) {
    await connection.send(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
  }
  await answer;
  connection.close();
  statuses.push(['chunked', chunked.status]);
  expectError(chunked, 413, 'PAYLOAD_TOO_LARGE');
  await healthyOnNewConnection();

  // Exactly at the limit is still accepted (unknown fields are ignored).
  const prefix = '{"customerType":"INDIVIDUAL","pad":"';
  const exact = `${prefix}${'z'.repeat(max - prefix.length - 2)}"}`;
  assert.equal(Buffer.byteLength(exact), max);
  expectStatus(await send('POST', '/customers', exact), 201);
});

test('an oversized header is 431 and the server stays healthy', async () => {
  const big = 'h'.repeat(limits.request_header_bytes_max + 1);
  const response = await sendRaw(requestText('GET', `/${VERSION}/config`, { headers: { Authorization: authorization, 'X-Padding': big } }));
  expectError(response, 431, 'HEADER_TOO_LARGE');
  const viaFetch = await send('GET', '/config', undefined, { 'x-padding': big });
  expectError(viaFetch, 431, 'HEADER_TOO_LARGE');
  const longTarget = await sendRaw(requestText('GET', `/${VERSION}/customers/${'c'.repeat(limits.request_header_bytes_max)}`, { headers: { Authorization: authorization } }));
  assert.equal(longTarget.status, 431);
  await healthyOnNewConnection();
});

test('unknown routes are 404 NOT_FOUND, with or without credentials', async () => {
  for (const path of [`/${VERSION}/nothing-here`, `/${VERSION}`, `/${VERSION}/`, `/${VERSION}/customers/a/b`, `/${VERSION}/tokens/x/y/z`, '/', '/customers', '/config', '/healthz/extra', `/${VERSION}/CONFIG`]) {
    for (const credentials of [sandbox, null]) {
      const response = await call(server, credentials, 'GET', path, undefined, { raw: true });
      statuses.push([path, response.status]);
      expectError(response, 404, 'NOT_FOUND');
    }
  }
});

test('a wrong method is 405 with an Allow header', async () => {
  const cases = [
    ['PUT', '/config', ['GET', 'PATCH']],
    ['POST', '/config', ['GET', 'PATCH']],
    ['DELETE', '/config', ['GET', 'PATCH']],
    ['DELETE', '/customers', ['GET', 'POST']],
    ['PATCH', '/tokens', ['GET', 'POST']],
    ['POST', '/tokens/Token:x', ['GET', 'DELETE']],
    ['PUT', '/customers/Customer:x', ['DELETE', 'GET', 'PATCH']],
  ];
  for (const [method, path, allowed] of cases) {
    for (const credentials of [sandbox, null]) {
      const response = await call(server, credentials, method, path, method === 'DELETE' ? undefined : {});
      statuses.push([path, response.status]);
      expectError(response, 405, 'METHOD_NOT_ALLOWED');
      const allow = (response.headers.get('allow') ?? '').split(',').map((m) => m.trim()).sort();
      assert.deepEqual(allow, [...allowed].sort(), `${method} ${path}`);
    }
  }
  const health = await call(server, null, 'POST', '/healthz', {}, { raw: true });
  expectError(health, 405, 'METHOD_NOT_ALLOWED');
  assert.match(health.headers.get('allow') ?? '', /GET/);
});

test('an unknown version segment is 404 naming the supported version', async () => {
  for (const version of ['2024-01-01', '2025-10-14', '2099-12-31', '0000-00-00']) {
    for (const path of ['/config', '/customers', '/nothing']) {
      const response = await call(server, sandbox, 'GET', `/${version}${path}`, undefined, { raw: true });
      statuses.push([version, response.status]);
      assert.equal(response.status, 404, response.text);
      assertErrorShape(response);
      assert.ok(response.body.message.includes(VERSION), response.body.message);
      assert.deepEqual(response.body.details.supportedVersions, [VERSION]);
    }
  }
});

test('deeply nested JSON is 400; moderate nesting is accepted', async () => {
  for (const depth of [64, 1000, 100000]) {
    const nested = `{"customerType":"INDIVIDUAL","deep":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    expectError(await send('POST', '/customers', nested), 400, 'INVALID_INPUT');
    const objects = `{"customerType":"INDIVIDUAL","deep":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
    if (objects.length < limits.request_body_bytes_max) expectError(await send('POST', '/customers', objects), 400, 'INVALID_INPUT');
  }
  const unclosed = '['.repeat(500000);
  expectError(await send('PATCH', '/config', unclosed), 400, 'INVALID_INPUT');
  const shallow = `{"customerType":"INDIVIDUAL","deep":${'['.repeat(10)}${']'.repeat(10)}}`;
  expectStatus(await send('POST', '/customers', shallow), 201);
  await healthyOnNewConnection();
});

test('malformed HTTP is 400 and the server stays healthy', async () => {
  for (const garbage of ['GARBAGE\r\n\r\n', 'GET /healthz HTTP/9.9\r\n\r\n', 'GET /healthz HTTP/1.1\r\nBad Header Line\r\n\r\n',
    `POST /${VERSION}/customers HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n`,
    `POST /${VERSION}/customers HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`]) {
    const response = await sendRaw(garbage);
    assert.equal(response.status, 400, JSON.stringify(garbage));
    assertErrorShape(response);
  }
  await healthyOnNewConnection();
});

test('odd paths, queries and credentials never produce a 5xx', async () => {
  const paths = [
    '/customers/%00', '/customers/%FF', '/customers/%C3%28', '/customers/Customer%3A%00', '/customers/%2F..%2F..',
    '/customers/%', '/customers/%zz', `/customers/${'é'.repeat(50)}`, "/customers/x'%20OR%20'1'='1", '/tokens/%00', '/tokens/%FF',
    '/customers?platformCustomerId=%00', '/customers?platformCustomerId=%FF', '/customers?umaAddress=%FF', '/tokens?name=%FF',
    '/tokens?name=%00', '/tokens?name=%C0%AF', '/customers?limit=%FF', '/customers?cursor=%FF', '/customers?createdAfter=%00',
    '/customers?%FF=1', '/customers?a=%', '/customers?&&&', '/customers?limit=1&limit=2', `/customers?platformCustomerId=${'p'.repeat(2000)}`,
    '/customers?isIncludingDeleted=%00',
  ];
  for (const path of paths) {
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const response = await send(method, path, method === 'PATCH' ? { customerType: 'INDIVIDUAL' } : undefined);
      assert.ok(response.status < 500, `${method} ${path} -> ${response.status} ${response.text}`);
      if (response.status >= 400) assertErrorShape(response);
    }
  }
  const strings = ['\u0000', 'a\u0000b', '\uffff', '\u202e', 'x'.repeat(300), '😀'];
  for (const value of strings) {
    for (const [method, path, body] of [
      ['POST', '/tokens', { name: value, permissions: ['VIEW'] }],
      ['POST', '/customers', { customerType: 'INDIVIDUAL', fullName: value, platformCustomerId: value }],
      ['POST', '/customers', { customerType: 'INDIVIDUAL', address: { line1: value, postalCode: value, country: 'US' } }],
      ['PATCH', '/config', { webhookEndpoint: `https://h.example.test/${value}` }],
      ['PATCH', '/config', { umaDomain: value }],
    ]) {
      const response = await send(method, path, body);
      assert.ok(response.status < 500, `${method} ${path} ${JSON.stringify(body)} -> ${response.status} ${response.text}`);
      if (response.status >= 400) assertErrorShape(response);
    }
  }
  // Text the database could not store as sent is refused, naming the field or parameter.
  expectError(await send('POST', '/tokens', { name: 'a\u0000b', permissions: ['VIEW'] }), 400, 'INVALID_INPUT', 'name');
  expectError(await send('POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'x\u0000y' }), 400, 'INVALID_INPUT', 'platformCustomerId');
  expectError(await send('PATCH', '/config', { webhookEndpoint: 'https://h.example.test/\u0000' }), 400, 'INVALID_INPUT', 'webhookEndpoint');
  for (const value of ['%00', 'a%00b', '%FF', '%C3%28', '%ED%A0%80', '%C0%AF', '%F4%90%80%80']) {
    expectError(await send('GET', `/tokens?name=${value}`), 400, 'INVALID_INPUT', 'name');
    expectError(await send('GET', `/customers?platformCustomerId=${value}`), 400, 'INVALID_INPUT', 'platformCustomerId');
    expectError(await send('GET', `/customers/${value}`), 404, 'NOT_FOUND');
    expectError(await send('DELETE', `/tokens/${value}`), 404, 'NOT_FOUND');
  }
  expectStatus(await send('GET', `/tokens?name=${encodeURIComponent('naïve ✓ 😀')}`), 200);

  const usernames = ['\u0000', Buffer.from([0xff, 0xfe]).toString('latin1'), 'é', 'x'.repeat(600), "' OR '1'='1"];
  for (const clientId of usernames) {
    const header = `Basic ${Buffer.from(`${clientId}:secret`, 'latin1').toString('base64')}`;
    for (const path of ['/config', '/customers']) {
      const response = await call(server, null, 'GET', path, undefined, { authorization: header });
      statuses.push(['auth', response.status]);
      expectError(response, 401, 'UNAUTHORIZED');
    }
  }
  // The server is still answering every kind of request.
  await healthyOnNewConnection();
  expectStatus(await send('GET', '/customers'), 200);
  expectStatus(await send('GET', '/tokens'), 200);
});

test('keep-alive: several requests, sequential and pipelined, on one connection', async () => {
  const connection = new RawConnection(server);
  const requests = [
    requestText('GET', '/healthz'),
    requestText('GET', `/${VERSION}/config`, { headers: { Authorization: authorization } }),
    requestText('POST', `/${VERSION}/customers`, { headers: { Authorization: authorization, 'Content-Type': 'application/json' }, body: '{"customerType":"INDIVIDUAL"}' }),
    requestText('GET', `/${VERSION}/nothing`, { headers: { Authorization: authorization } }),
    requestText('POST', `/${VERSION}/customers`, { headers: { Authorization: authorization }, body: '{"broken' }),
    requestText('GET', `/${VERSION}/customers?limit=1`, { headers: { Authorization: authorization } }),
    requestText('GET', `/${VERSION}/config`),
  ];
  const expected = [200, 200, 201, 404, 400, 200, 401];
  for (let i = 0; i < requests.length; i++) {
    await connection.send(requests[i]);
    const response = await connection.next();
    assert.equal(response.status, expected[i], `request ${i}: ${response.text}`);
    assert.notEqual(response.headers.get('connection'), 'close');
    assert.ok(response.headers.get('x-request-id'));
  }
  // Pipelined: three requests in one write, three answers in order.
  await connection.send(requests[1] + requests[3] + requests[0]);
  const pipelined = [await connection.next(), await connection.next(), await connection.next()];
  assert.deepEqual(pipelined.map((r) => r.status), [200, 404, 200]);
  assert.equal(connection.ended, false);
  connection.close();

  // Connection: close is honoured.
  const closing = new RawConnection(server);
  await closing.send(requestText('GET', '/healthz', { headers: { Connection: 'close' } }));
  assert.equal((await closing.next()).status, 200);
  await closing.closed;
});

test('every error body has status, code, message and details; nothing above was a 5xx', async () => {
  const samples = [
    await call(server, null, 'GET', '/config'),
    await send('GET', '/nope'),
    await send('PUT', '/config', {}),
    await send('POST', '/customers', '{'),
    await send('POST', '/customers', '{}', { 'content-type': 'text/plain' }),
    await send('GET', '/customers/Customer:missing'),
    await call(server, null, 'GET', '/2020-01-01/config', undefined, { raw: true }),
  ];
  for (const response of samples) {
    assert.ok(response.status >= 400);
    assertErrorShape(response);
    assert.ok(response.headers.get('x-request-id'));
    assert.equal(response.text.includes('std::'), false);
    assert.equal(response.text.toLowerCase().includes('sql'), false);
  }
  const serverErrors = statuses.filter(([, status]) => status >= 500);
  assert.deepEqual(serverErrors, []);
  assert.ok(statuses.length > 100);
});
