// Assertions and small helpers shared by the API suites.
import assert from 'node:assert/strict';
import { call } from './harness.mjs';

// The error body of design.md section 4: {status, code, message, details}, status equal to the HTTP
// status. `field`, when given, must be what details.field names.
export function expectError(response, status, code, field) {
  const where = `${status} ${code}${field ? ` (${field})` : ''}, got ${response.status} ${response.text}`;
  assert.equal(response.status, status, where);
  assertErrorShape(response);
  assert.equal(response.body.code, code, where);
  if (field !== undefined) {
    assert.equal(response.body.details.field, field, where);
    assert.ok(response.body.message.includes(field), `message should name ${field}: ${response.body.message}`);
  }
}

export function assertErrorShape(response) {
  assert.ok(response.body && typeof response.body === 'object', `error body is not JSON: ${response.text}`);
  assert.deepEqual(Object.keys(response.body).sort(), ['code', 'details', 'message', 'status'],
    `error body keys: ${response.text}`);
  assert.equal(response.body.status, response.status);
  assert.match(response.body.code, /^[A-Z][A-Z0-9_]*$/);
  assert.equal(typeof response.body.message, 'string');
  assert.ok(response.body.message.length > 0);
  assert.ok(response.body.details && typeof response.body.details === 'object' && !Array.isArray(response.body.details));
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
}

export function expectStatus(response, status) {
  assert.equal(response.status, status, `expected ${status}, got ${response.status} ${response.text}`);
  return response.body;
}

export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

export async function createToken(server, credentials, name, permissions) {
  const response = await call(server, credentials, 'POST', '/tokens', { name, permissions });
  const body = expectStatus(response, 201);
  return { id: body.id, clientId: body.clientId, clientSecret: body.clientSecret, body };
}

export async function createCustomer(server, credentials, fields = {}) {
  const response = await call(server, credentials, 'POST', '/customers', { customerType: 'INDIVIDUAL', ...fields });
  return expectStatus(response, 201);
}

// Runs `count` calls of make(i) with at most `width` in flight.
export async function inBatches(count, width, make) {
  const results = [];
  for (let start = 0; start < count; start += width) {
    const batch = [];
    for (let i = start; i < Math.min(count, start + width); i++) batch.push(make(i));
    results.push(...await Promise.all(batch));
  }
  return results;
}

// Checks a pagination walk: no duplicate, every page's totalCount the same and equal to the number of
// items, the order strictly monotonic by id (keyset), and the items exactly the expected ids.
export function assertCompleteWalk(walk, expectedIds) {
  const ids = walk.items.map((item) => item.id);
  assert.equal(new Set(ids).size, ids.length, 'a page repeated an item');
  for (const total of walk.totals) assert.equal(total, ids.length, `totalCount ${total} but ${ids.length} items walked`);
  const ascending = ids.every((id, i) => i === 0 || ids[i - 1] < id);
  const descending = ids.every((id, i) => i === 0 || ids[i - 1] > id);
  assert.ok(ascending || descending, 'pages are not in one keyset order');
  if (expectedIds) assert.deepEqual([...ids].sort(), [...expectedIds].sort());
}
