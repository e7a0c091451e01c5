// Wrong types for every defined field of every route's JSON body, generated from api/openapi.json:
// for each operation with a JSON request body, and each property its schema defines (nested
// objects and array items included), a value of every other JSON type is put into an otherwise
// valid body. Corridor must answer 400 naming the field's path (in the message or the details),
// never 2xx, never 5xx. The valid bodies come from the small table of fixtures below; an operation
// with a JSON body and no fixture fails the suite, so a new route cannot slip through.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startCorridor, stopCorridor, call, VERSION } from './lib/harness.mjs';
import { openapi } from './lib/contract.mjs';
import { newCustomer, accountsOf, platformAccounts, quoteBody } from './lib/money.mjs';

// Fields where Corridor accepts a wrong type today, as "operationId field". Printed in the output
// when they fail as expected; the final merge with the strict-input work removes them. A field
// listed here that starts to be refused fails the suite, so the list cannot go stale.
const KNOWN_ACCEPTED = new Set([]);

let server;
let sandbox;
const fixtures = {};

before(async () => {
  server = await startCorridor({ platforms: 1 });
  sandbox = server.platforms[0].sandbox;
  const alice = await newCustomer(server, sandbox);
  const bob = await newCustomer(server, sandbox);
  const aliceAccounts = await accountsOf(server, sandbox, alice.id);
  const bobAccounts = await accountsOf(server, sandbox, bob.id);
  const usd = (await platformAccounts(server, sandbox)).USD;
  const external = await call(server, sandbox, 'POST', '/platform/external-accounts', {
    currency: 'USD',
    accountInfo: {
      accountType: 'US_ACCOUNT', accountNumber: '123456789', routingNumber: '021000021', accountCategory: 'CHECKING',
      beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ana Souza', birthDate: '1990-04-01', nationality: 'US' },
    },
  });
  assert.equal(external.status, 201, external.text);
  const quote = await call(server, sandbox, 'POST', '/quotes', quoteBody(aliceAccounts.USD.id, bobAccounts.EUR.id, 1000));
  assert.equal(quote.status, 201, quote.text);
  const link = await call(server, sandbox, 'POST', '/bank-link/link-tokens', { customerId: alice.id });
  assert.equal(link.status, 200, link.text);
  const invitation = await call(server, sandbox, 'POST', '/invitations', { inviterUma: alice.umaAddress });
  assert.equal(invitation.status, 201, invitation.text);
  const incoming = await call(server, sandbox, 'POST', '/sandbox/uma/receive', {
    senderUmaAddress: '$pending.long.usd@sandbox.uma.money', customerId: bob.id,
    receivingCurrencyCode: 'USD', receivingCurrencyAmount: 1000,
  });
  assert.equal(incoming.status, 200, incoming.text);
  const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Ana Souza', birthDate: '1990-04-01', nationality: 'US' };
  const usAccount = { accountType: 'US_ACCOUNT', accountNumber: '987654321', routingNumber: '021000021', accountCategory: 'CHECKING', beneficiary };
  // operationId -> { path, body }: a body Corridor accepts (or refuses only for a reason that
  // comes after the type checks, such as state), on the sandbox credentials.
  const config = await call(server, sandbox, 'GET', '/config');
  const { providerRequiredCustomerFields, providerRequiredCounterpartyCustomerFields, ...usdTerms } =
    config.body.supportedCurrencies.find((item) => item.currencyCode === 'USD');
  // Corridor reads a supportedCurrencies entry field by field, so each entry the walk touches must
  // be valid apart from the field under test: one with every field, and a counterparty field.
  usdTerms.requiredCounterpartyFields = [{ name: 'FULL_NAME', mandatory: false }];
  Object.assign(fixtures, {
    updateConfig: { path: '/config', body: { supportedCurrencies: [usdTerms] } },
    createToken: { path: '/tokens', body: { name: 'wrong types', permissions: ['VIEW'] } },
    createCustomer: { path: '/customers', body: { customerType: 'INDIVIDUAL', fullName: 'Wrong Types' } },
    updateCustomer: { path: `/customers/${alice.id}`, body: { fullName: 'Alice Again' } },
    createCustomerExternalAccount: { path: '/customers/external-accounts', body: { currency: 'USD', customerId: alice.id, accountInfo: usAccount } },
    createPlatformExternalAccount: { path: '/platform/external-accounts', body: { currency: 'USD', accountInfo: usAccount } },
    createLinkToken: { path: '/bank-link/link-tokens', body: { customerId: alice.id } },
    bankLinkCallback: { path: `/bank-link/callback/${link.body.linkToken}`, body: { publicToken: 'public-sandbox-unknown' }, credentials: null },
    sandboxPublicToken: { path: '/sandbox/bank-link/public-token', body: { linkToken: link.body.linkToken } },
    createQuote: { path: '/quotes', body: quoteBody(aliceAccounts.USD.id, bobAccounts.EUR.id, 1000) },
    approveTransaction: { path: `/transactions/${incoming.body.id}/approve`, body: {} },
    rejectTransaction: { path: `/transactions/${incoming.body.id}/reject`, body: {} },
    transferIn: { path: '/transfer-in', body: { source: { accountId: external.body.id }, destination: { accountId: usd.id }, amount: 100 } },
    transferOut: { path: '/transfer-out', body: { source: { accountId: usd.id }, destination: { accountId: external.body.id }, amount: 100 } },
    createInvitation: { path: '/invitations', body: { inviterUma: alice.umaAddress } },
    claimInvitation: { path: `/invitations/${invitation.body.code}/claim`, body: { inviteeUma: bob.umaAddress } },
    sandboxSend: { path: '/sandbox/send', body: { quoteId: quote.body.id, currencyCode: 'USD' } },
    sandboxUmaReceive: { path: '/sandbox/uma/receive', body: { senderUmaAddress: '$success.usd@sandbox.uma.money', customerId: bob.id, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 1000 } },
    sandboxFund: { path: `/sandbox/internal-accounts/${usd.id}/fund`, body: { amount: 100 } },
  });
});
after(async () => { if (server) await stopCorridor(server); });

// ---------------------------------------------------------------------------------------------
// Walking the document

function resolve(schema) {
  while (schema?.$ref) {
    schema = schema.$ref.replace(/^#\//, '').split('/').reduce((at, part) => at[part], openapi);
  }
  if (schema?.allOf) {
    const merged = { ...schema, properties: { ...(schema.properties || {}) }, allOf: undefined };
    for (const part of schema.allOf) Object.assign(merged.properties, resolve(part).properties || {});
    return merged;
  }
  return schema;
}

function kindOf(schema) {
  schema = resolve(schema);
  if (schema.type) return Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (schema.enum) return typeof schema.enum[0];
  if ('const' in schema) return typeof schema.const;
  return undefined;  // any type
}

// [{ path: ['source', 'accountId'], kind: 'string' }, ...]; an array of objects contributes its
// item's fields at index 0, an array of scalars its item at index 0.
function fieldsOf(schema, prefix = []) {
  schema = resolve(schema);
  const out = [];
  for (const [name, property] of Object.entries(schema.properties || {})) {
    const path = [...prefix, name];
    const kind = kindOf(property);
    if (!kind) continue;
    out.push({ path, kind });
    const resolved = resolve(property);
    if (kind === 'object') out.push(...fieldsOf(resolved, path));
    if (kind === 'array' && resolved.items) {
      const itemKind = kindOf(resolved.items);
      if (!itemKind) continue;
      out.push({ path: [...path, 0], kind: itemKind });
      if (itemKind === 'object') out.push(...fieldsOf(resolved.items, [...path, 0]));
    }
  }
  return out;
}

const samples = { string: 'text', integer: 7, number: 1.5, boolean: true, object: { any: 1 }, array: ['x'] };
function wrongValues(kind) {
  const wrong = Object.entries(samples).filter(([type]) => type !== kind && !(kind === 'number' && type === 'integer'));
  return wrong.map(([type, value]) => ({ type, value }));
}

const pathText = (path) => path.reduce((text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${part}` : part), '');

// A copy of body with value at path, making the objects and arrays on the way.
function withValue(body, path, value) {
  const copy = structuredClone(body);
  let at = copy;
  for (let i = 0; i < path.length - 1; i++) {
    const part = path[i];
    const nextIsIndex = typeof path[i + 1] === 'number';
    const existing = at[part];
    const fits = nextIsIndex ? Array.isArray(existing) : existing && typeof existing === 'object' && !Array.isArray(existing);
    if (!fits) at[part] = nextIsIndex ? [] : {};
    if (nextIsIndex && at[part].length === 0) at[part].push({});
    at = at[part];
  }
  at[path[path.length - 1]] = value;
  return copy;
}

const operations = [];
for (const [template, item] of Object.entries(openapi.paths)) {
  for (const [method, operation] of Object.entries(item)) {
    const schema = operation.requestBody?.content?.['application/json']?.schema;
    if (!schema) continue;
    const fields = fieldsOf(schema);
    if (fields.length === 0) continue;  // a free-form body (the UMA callbacks) has no defined field
    operations.push({ template, method, operationId: operation.operationId, fields });
  }
}

test('the document defines JSON bodies to walk', () => {
  assert.ok(operations.length >= 15, `only ${operations.length} operations with JSON bodies`);
  assert.ok(operations.some((o) => o.fields.some((f) => f.path.length >= 3)), 'nested fields are walked');
});

const expectedFailures = [];
const unexpectedAccepts = [];
let casesSent = 0;

for (const { template, method, operationId, fields } of operations) {
  test(`${method.toUpperCase()} ${template}: every field of the wrong type is 400 naming it`, async () => {
    const fixture = fixtures[operationId];
    assert.ok(fixture, `no fixture for ${operationId}: add a valid body to the table`);
    const credentials = fixture.credentials === null ? undefined : sandbox;
    let cases = 0;
    const problems = [];
    for (const { path, kind } of fields) {
      const field = pathText(path);
      for (const { type, value } of wrongValues(kind)) {
        const body = withValue(fixture.body, path, value);
        const headers = method === 'post' ? { 'idempotency-key': randomUUID() } : {};
        const response = await call(server, credentials, method.toUpperCase(), fixture.path, body, headers);
        cases++;
        const named = `${response.body?.message ?? ''} ${JSON.stringify(response.body?.details ?? {})}`;
        const label = `${operationId} ${field} = ${type} ${JSON.stringify(value)}`;
        assert.ok(response.status < 500, `${label}: ${response.status} ${response.text}`);
        const ok = response.status === 400 && named.includes(field);
        const known = KNOWN_ACCEPTED.has(`${operationId} ${field}`);
        if (ok && known) problems.push(`${label}: refused now; remove it from KNOWN_ACCEPTED`);
        if (!ok && known) expectedFailures.push(`${label} -> ${response.status}`);
        if (!ok && !known) {
          problems.push(`${label} -> ${response.status} ${response.text.slice(0, 160)}`);
          unexpectedAccepts.push(`${operationId} ${field}`);
        }
      }
    }
    assert.ok(cases > 0);
    casesSent += cases;
    assert.deepEqual(problems, [], `${problems.length} wrong-type cases not refused as they should be:\n${problems.join('\n')}`);
  });
}

test('wrong-type report', () => {
  const fields = operations.reduce((n, o) => n + o.fields.length, 0);
  console.log(`wrong types: ${casesSent} requests over ${fields} fields of ${operations.length} operations`);
  console.log(`known wrong types still accepted: ${KNOWN_ACCEPTED.size ? [...KNOWN_ACCEPTED].join(', ') : 'none'}`);
  if (expectedFailures.length) {
    console.log(`KNOWN wrong types still accepted (expected failures, ${expectedFailures.length}):\n# ${expectedFailures.join('\n# ')}`);
  }
  if (unexpectedAccepts.length) {
    console.log(`fields not refused: ${[...new Set(unexpectedAccepts)].join(', ')}`);
  }
  assert.ok(VERSION);
});
